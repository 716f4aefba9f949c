"""Realistic credential formats, each in the kind of sentence that carries it in practice.

Every entry is ``(kind, template, secret)``: ``template`` with ``{}`` replaced by ``secret``
is the text; the detector must report ``kind`` for it and ``secret`` must not survive
redaction or reach any file. Values are random, not live keys; they are split so no
scanner mistakes this file for a leak.
"""

from __future__ import annotations

from pathlib import Path

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
FINE_GRAINED_GITHUB = (
    "github_pat_" + "11ABCDEFG0aBcDeFgHiJkL_"
    + "mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"
)
JWT = (
    "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
PROSE_KEY = "Hk7Pq2Rt9Wx4Zb6Nc8Vm1" + "Lj3Gf5Ds0Aa2Ee4Ii6Oo"
# The sentence a user once stored in clear: the key has no vendor format, only the words
# around it say what it is.
PROSE_FACT = f"the deploy signs S3 requests with the AWS secret key {PROSE_KEY} in eu-west-1"
PEM_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU="
PEM = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"

_CORPUS: list[tuple[str, str, str]] = [
    ("secret assignment", "deploy with STRIPE_API_KEY={} set", "live9f8e7d6c5b4a"),
    ("secret assignment", "export MY_SERVICE_TOKEN={}", "q8w7e6r5t4y3u2i1"),
    ("secret assignment", "client_secret: {}", "Zk3pLq9vXw2mNb7c"),
    ("secret assignment", 'config {{"client_secret": "{}"}}', "Hh4Jj5Kk6Ll7Mm8N"),
    ("secret assignment", "PGPASSWORD='{}' psql", "correct horse battery"),
    ("secret assignment", 'db.password = "{}"', "Tr0ub4dor&3xx"),
    ("secret assignment", "SECRET_KEY_BASE={}", "a9b8c7d6e5f4a3b2c1d0"),
    ("secret assignment", "Server=db;User Id=app;Password={};", "Pa55w0rdX"),
    ("secret assignment", "DB_PASS={}", "s3cr3tpass"),
    ("connection string with credentials", "cache at redis://:{}@cache:6379/0", "r3dispw0rd"),
    ("connection string with credentials", "postgres://admin:{}@db:5432/app", "s3cr3tP4ss"),
    ("connection string with credentials", "mongodb+srv://svc:{}@c0.example.net/db", "M0ng0Pa55"),
    ("connection string with credentials", "clone https://bot:{}@git.example.com/r", "gitPa55wd"),
    ("Slack token", "bot uses {}", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrSt"),
    ("Slack token", "socket mode app token {}", "xapp-" + "1-A0123ABCDEF-1234567890123-abcdef012"),
    (
        "Slack webhook URL",
        "alerts post to {} on failure",
        "https://hooks.slack.com/services/" + "T0A1B2C3D/B0E4F5G6H/" + "aBcDeFgHiJkLmNoPqRsTuVwX",
    ),
    (
        "Discord webhook URL",
        "hook {}",
        "https://discord.com/api/webhooks/" + "123456789012345678/" + "AbCdEfGhIjKlMnOpQrStUvWxYz0",
    ),
    ("AWS secret access key", "the AWS secret key for staging is {} (rotate it)", AWS_SECRET),
    ("AWS secret access key", "aws_secret_access_key = {}", AWS_SECRET),
    ("AWS access key id", "key id {} in us-east-1", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("GitHub token", "CI pushes with {}", FINE_GRAINED_GITHUB),
    ("GitHub token", "GH_TOKEN: {}", "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"),
    ("GitLab token", "{} for the mirror", "glpat-" + "xYz12AbC34dEf56GhI78"),
    ("JSON Web Token", "session cookie was {}", JWT),
    ("Stripe secret key", "billing uses {}", "sk_live_" + "51H8xYzAbCdEfGhIjKlMnOpQr"),
    ("Stripe secret key", "restricted {}", "rk_test_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("Stripe webhook secret", "{}", "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    ("Google API key", "maps key {}", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"),
    ("Google OAuth client secret", "oauth {}", "GOCSPX-" + "1a2B3c4D5e6F7g8H9i0JkLmNoPq"),
    ("npm token", "//registry.npmjs.org/ uses {}", "npm_" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"),
    ("Hugging Face token", "download with {}", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    ("OpenAI API key", "OPENAI key {}", "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQ7e"),
    ("Anthropic API key", "claude key {}", "sk-ant-api03-" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuV"),
    (
        "PyPI token",
        "twine uses {}",
        "pypi-AgEIcHlwaS5vcmc" + "CJDk4ZWQ0NjgtZjM2Yi00ODBiLWE0ZDctZjU1NjFhNzE4ZGQy",
    ),
    (
        "SendGrid API key",
        "mail {}",
        "SG." + "ngeVfQFYQlKU0ufo8x5d1A." + "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
    ),
    ("Telegram bot token", "bot {}", "123456789:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9"),
    ("authorization header", "curl -H 'Authorization: Basic {}' api", "dXNlcjpodW50ZXIy"),
    ("bearer token", "send Bearer {}", "abcdef0123456789abcdef0123456789"),
    ("secret option", "mysql --password={} -u root", "hunter2hunter2"),
    ("secret option", "gh release --token {} upload", "t0kenValue99"),
    ("private key", "deploy key:\n{}", PEM),
    ("secret in prose", "signs S3 requests with the AWS secret key {} in eu-west-1", PROSE_KEY),
    ("secret in prose", "{} is the staging deploy token, rotate it monthly", PROSE_KEY),
    ("secret in prose", "the webhook password is\n{} (see the vault)", "q1W2e3R4t5Y6u7I8o9P0a1S2"),
]

# (kind, text, secret): the text that carries each secret.
CORPUS: list[tuple[str, str, str]] = [
    (kind, template.format(secret), secret) for kind, template, secret in _CORPUS
]

# Ordinary engineering text that looks a little like the above and must stay untouched.
INNOCENT: list[str] = [
    "Use the token bucket in net/ratelimit.py for API calls",
    "max_tokens: 4096 and token_count = 1200 per request",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the parser",
    "password: ${DB_PASSWORD} comes from the environment",
    "api_key = os.environ['API_KEY']",
    "the author = Jane Doe, tokenizer: cl100k_base",
    "auth: true and secret_file = none",
    "see https://example.com/docs:8080/path for details",
    "password = get_password()",
    "the basic internationalization settings live in i18n.py",
    "hash passwords with BCryptSHA256PasswordHasher, the key is derived per user",
    "the schema key is checked by Draft202012Validator",
    "the foreign key constraint became object_id_refs_id_5e8f10c132091d1e in 1.1",
    "the secret key rotates.\n\nq1W2e3R4t5Y6u7I8o9P0a1S2 is a build id",
]


def files_holding(secret: str, *folders: Path) -> list[str]:
    """Every file under ``folders`` whose bytes contain ``secret`` (WAL and journals too)."""
    return [str(path) for folder in folders for path in sorted(folder.rglob("*"))
            if path.is_file() and secret.encode() in path.read_bytes()]
