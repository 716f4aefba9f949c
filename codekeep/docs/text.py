"""Words in, words out: what a query asks for, and what a chunk is indexed under.

A question is written the way people talk ("how do I ...?"); its question words and
other stop words say nothing about the topic and are dropped before ranking. What
remains is OR-ed for BM25, so a chunk matching more of the words ranks higher without
having to match them all. An identifier (``STATIC_ROOT``, ``find_related``,
``Foo.bar``) stays one phrase, so its parts must appear together.

British and American spellings are one word to the index (:func:`american`, applied to
what is indexed and to every question alike): "colour", "behaviour", "initialise",
"catalogue" and "cancelled" find pages that write "color", "behavior", "initialize",
"catalog" and "canceled", and the other way round. Porter stemming does not join them
(``organis`` and ``organ`` are different stems).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[^\W_]+(?:[_.][^\W_]+)*", re.UNICODE)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

STOP_WORDS = frozenset(
    """a about above after again all am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each else
    for from further get gets getting got had has have having he her here hers him his
    how i if in into is it its itself just let lets me might more most must my myself
    need no nor not now of off on once only or other our ours out over own please same
    shall she should so some such than that the their theirs them then there these they
    this those through to too under until up upon us very via want wants was we were
    what when where whether which while who whom whose why will with within without
    would yes you your yours""".split()  # noqa: SIM905 (a word list reads better as text)
)

# Markup that is syntax, not words: reST roles (":func:"), link targets, URLs.
_ROLE = re.compile(r":[\w:.-]+:(?=`)")
_URL = re.compile(r"\bhttps?://\S+")
_TARGET = re.compile(r"<[^<>\n]*>`")


@dataclass(frozen=True, slots=True)
class QueryTerms:
    words: tuple[str, ...]  # lower-cased words and identifier phrases, stop words removed
    identifiers: tuple[str, ...]  # tokens written as code (snake_case, camelCase, dotted)
    dropped: tuple[str, ...]  # the stop words that were dropped

    def expression(self) -> str:
        """The FTS5 MATCH expression: every word or phrase, OR-ed."""
        return " OR ".join(f'"{word}"' for word in self.words)


# British -> American, word by word (case-insensitive; the index lower-cases anyway).
# Spelt-out lists where a rule would catch other words ("hour", "tour" end in -our);
# the -ise rule is general: a word with no -ize form ("promise") is folded the same way
# in the page and in the question, so it still matches itself.
_IRREGULAR = {
    "practise": "practice", "practised": "practiced", "practising": "practicing",
    "licence": "license", "licences": "licenses", "defence": "defense",
    "defences": "defenses", "offence": "offense", "offences": "offenses",
    "pretence": "pretense", "grey": "gray", "greys": "grays", "whilst": "while",
    "amongst": "among", "programme": "program", "programmes": "programs",
    "cheque": "check", "cheques": "checks", "ageing": "aging", "artefact": "artifact",
    "artefacts": "artifacts", "judgement": "judgment", "judgements": "judgments",
    "acknowledgement": "acknowledgment", "acknowledgements": "acknowledgments",
    "enrol": "enroll", "enrolment": "enrollment", "fulfil": "fulfill",
    "fulfilment": "fulfillment", "instalment": "installment", "sceptical": "skeptical",
    "aeroplane": "airplane", "aluminium": "aluminum", "storey": "story",
    "manoeuvre": "maneuver", "oestrogen": "estrogen", "paediatric": "pediatric",
    "encyclopaedia": "encyclopedia", "mould": "mold", "plough": "plow",
}
_OUR = re.compile(r"\b(arm|behavi|cand|clam|col|endeav|fav|flav|harb|hon|hum|lab|neighb|"
                  r"od|parl|rig|rum|sav|splend|vap|vig)our(\w*)", re.IGNORECASE)
_ISE = re.compile(r"\b(\w{3,}?)is(e|es|ed|ing|er|ers|ation|ations|able)\b", re.IGNORECASE)
_YSE = re.compile(r"\b(anal|paral|catal|hydrol|dial)ys(e|es|ed|ing|er|ers)\b",
                  re.IGNORECASE)
_TRE = re.compile(r"\b(cent|met|lit|theat|fib|calib|sab|spect|lust|somb|meag)re(s|d)?\b",
                  re.IGNORECASE)
_OGUE = re.compile(r"\b(catal|dial|anal)ogue(s|d)?\b", re.IGNORECASE)
_LL = re.compile(r"\b(cancel|channel|counsel|dial|equal|fuel|funnel|jewel|label|level|"
                 r"marshal|unmarshal|marvel|model|pedal|quarrel|signal|total|travel|"
                 r"tunnel|unravel)l(ed|ing|er|ers)\b", re.IGNORECASE)
_SPELLING_WORD = re.compile(r"\b[a-z]+\b", re.IGNORECASE)


def american(text: str) -> str:
    """``text`` with British spellings in their American form: "colour" -> "color",
    "initialised" -> "initialized", "analyse" -> "analyze", "centre" -> "center",
    "catalogue" -> "catalog", "cancelled" -> "canceled", "licence" -> "license"."""
    text = _SPELLING_WORD.sub(lambda m: _IRREGULAR.get(m.group().lower(), m.group()), text)
    text = _OUR.sub(r"\1or\2", text)
    text = _ISE.sub(r"\1iz\2", text)
    text = _YSE.sub(r"\1yz\2", text)
    text = _TRE.sub(lambda m: f"{m.group(1)}er{m.group(2) or ''}", text)
    text = _OGUE.sub(lambda m: f"{m.group(1)}og{m.group(2) or ''}", text)
    return _LL.sub(r"\1\2", text)


def query_terms(query: str) -> QueryTerms:
    words: dict[str, None] = {}
    identifiers: dict[str, None] = {}
    dropped: dict[str, None] = {}
    for token in _TOKEN.findall(query):
        lowered = american(token.lower())
        if ("_" in token or "." in token or _CAMEL.search(token)) and _IDENTIFIER.match(token):
            identifiers[token] = None
            words[" ".join(_WORD.findall(lowered))] = None
        elif lowered in STOP_WORDS:
            dropped[lowered] = None
        else:
            for word in _WORD.findall(lowered):
                words[word] = None
    return QueryTerms(tuple(words), tuple(identifiers), tuple(dropped))


def indexed_body(text: str) -> str:
    """The words of a chunk FTS should see: roles, link targets and URLs taken out,
    spellings folded to American (:func:`american`)."""
    return american(_URL.sub(" ", _TARGET.sub("`", _ROLE.sub("", text))))


def place_words(rel: str) -> str:
    """The words of a path, ``howto/static-files/deployment.txt`` -> ``howto static files
    deployment``: where a page sits says what it is about."""
    stem = rel.rsplit(".", 1)[0] if "/" not in rel.rsplit(".", 1)[-1] else rel
    return american(" ".join(_WORD.findall(stem.replace("_", " "))))


_INLINE = re.compile(
    r"\[([^\]]*)\]\([^)]*\)"  # Markdown link: its text
    r"|:[\w:.-]+:`~?([^`<]*?)\s*(?:<[^>]*>)?`"  # reST role: its text
    r"|`+([^`]*)`+_{0,2}"  # code span, reST literal or reference
)
_EMPHASIS = re.compile(r"(\*\*|\*)(\S(?:.*?\S)?)\1|(?<!\w)(__|_)(\S(?:.*?\S)?)\3(?!\w)")


def heading_text(raw: str) -> str:
    """A heading as it reads: ``"``send_mail()``"`` -> ``send_mail()``, Markdown links and
    emphasis reduced to their text."""
    text = _INLINE.sub(lambda m: next(g for g in m.groups() if g is not None), raw)
    text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(4), text)
    return " ".join(text.split()) or raw.strip()


# reST explicit markup that is syntax: ".. module:: x", ".. _label:", ".. index::" lines,
# and the ":name:" of a field line (":synopsis: Provides sessions" keeps its text).
_DIRECTIVE_LINE = re.compile(r"^[ \t]*\.\.[ \t]+(?:[\w:-]+::|_[^:\n]*:|\|[^|\n]*\|).*$",
                             re.MULTILINE)
_FIELD_NAME = re.compile(r"^[ \t]*:[\w -]+:[ \t]*", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~).*$", re.MULTILINE)


def embedding_text(heading: str, text: str) -> str:
    """What an embedding model reads for a chunk: its heading path, then its text as it
    reads — directives, labels, field names and fences dropped, roles and literals reduced
    to their words, spaces collapsed — so a model that sees only the first few dozen
    word pieces spends them on what the section says, not on markup."""
    body = _FENCE.sub(" ", _FIELD_NAME.sub("", _DIRECTIVE_LINE.sub(" ", text)))
    body = _URL.sub(" ", _INLINE.sub(lambda m: next(g for g in m.groups() if g is not None),
                                     body))
    return " ".join(f"{heading}.\n{body}".split())
