"""The one secret detector on a corpus of real credential formats."""

from __future__ import annotations

import json

import pytest

from codekeep.common import secrets
from tests.common.secret_corpus import CORPUS, INNOCENT


@pytest.mark.parametrize(
    ("kind", "text", "hidden"), CORPUS, ids=[f"{i}-{c[0]}" for i, c in enumerate(CORPUS)]
)
def test_every_real_format_is_found_and_hidden(kind: str, text: str, hidden: str) -> None:
    redacted, kinds = secrets.redact(text)
    assert kind in kinds, (text, kinds)
    assert hidden not in redacted, redacted
    assert secrets.marker(kind) in redacted


@pytest.mark.parametrize("text", INNOCENT)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert secrets.redact(text) == (text, ())


def test_the_label_stays_so_the_fact_stays_readable() -> None:
    text, _ = secrets.redact(
        "cache at redis://:r3dispw0rd@cache.internal:6379/0 and DB_PASS=x9y8z7w6"
    )
    assert text == (
        "cache at redis://:[REDACTED:connection string with credentials]@cache.internal:6379/0"
        " and DB_PASS=[REDACTED:secret assignment]"
    )


def test_structured_values_hide_secret_named_fields_and_secrets_in_strings() -> None:
    args = {"command": "curl -H 'Authorization: Bearer abcdefghijklmnopqrst' x",
            "env": {"API_TOKEN": "plain", "PATH": "/usr/bin"}, "items": ["npm_" + "a" * 36]}
    redacted = secrets.redact_value(args)
    assert "abcdefghijklmnopqrst" not in str(redacted) and "plain" not in str(redacted)
    assert redacted["env"]["PATH"] == "/usr/bin" and "a" * 36 not in str(redacted)


@pytest.mark.parametrize("name", ["API_KEY", "GITHUB_TOKEN", "db_password", "AWS_SECRET_ACCESS_KEY",
                                  "client_secret", "SSH_AUTH_SOCK", "KEY"])
def test_secret_names(name: str) -> None:
    assert secrets.is_secret_name(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "KEYBOARD_LAYOUT", "LANG", "content", "path"])
def test_ordinary_names(name: str) -> None:
    assert not secrets.is_secret_name(name)


def test_secrets_inside_json_inside_json_are_found() -> None:
    """Tool-call arguments reach the ledger as JSON strings inside JSON (escaped quotes)."""
    for kind, text, secret in CORPUS:
        doubled = json.dumps({"arguments": json.dumps({"content": text})})
        redacted = secrets.redact_text(doubled)
        assert secret.encode("unicode_escape").decode() not in redacted, (kind, redacted)


def _variants(text: str) -> list[str]:
    """A sample as it also arrives: in other case, escaped inside JSON, amid prose."""
    return [text, text.upper(), text.lower(), json.dumps(json.dumps(text)),
            f"Setup notes.\n\n{text}\n\nThen restart the service."]


PREFILTER_TEXTS = [v for _kind, text, _hidden in CORPUS for v in _variants(text)] + [
    v for text in INNOCENT for v in _variants(text)
] + ["\n".join(text for _kind, text, _hidden in CORPUS)]


@pytest.mark.parametrize("text", PREFILTER_TEXTS)
def test_the_prefilter_never_drops_what_the_full_table_finds(text: str) -> None:
    folded = text.casefold()
    for kind in secrets.TABLE:
        if kind.regex.search(text):
            assert kind.may_occur(text, folded), (kind.name, text)
    assert secrets.find(text) == secrets.scan(text, secrets.TABLE)


def test_the_prefilter_rules_out_prose_without_running_the_patterns() -> None:
    prose = "Serve the static files from a CDN once the site is live; see the guide."
    folded = prose.casefold()
    assert [k.name for k in secrets.TABLE if k.may_occur(prose, folded)] == []


def test_case_folding_keeps_what_ignorecase_matches() -> None:
    # re.IGNORECASE matches the long s "ſ" to "s": the needles are looked for in the
    # casefold of the text, where it is an "s", so the finding is not dropped.
    text = "db_paſſword = hunter2hunter2"
    assert secrets.scan(text, secrets.TABLE)
    assert secrets.find(text) == secrets.scan(text, secrets.TABLE)
