"""The secret gate: every excerpt of a transcript passes it before driftguard shows it.

Session transcripts hold whatever the tools read (``.env`` files, command output, pasted
keys; docs/formats.md "Privacy"). :func:`gate` takes one excerpt (a prompt, a command line, a
file path, an error line) and returns a :class:`GatedText`:

- a **delimitable secret** is replaced by ``[REDACTED:<rule-id>:<digest>]``, where the
  digest is the first 8 hex digits of the sha256 of the secret span (UTF-8), so two
  mentions of one secret can still be told apart from two different ones;
- an excerpt that **holds credential-file contents** is dropped whole (``text`` is
  ``None``) and ``dropped_reason`` says what it looked like.

Rules, in priority order — when two rules find
the same span the earlier one names it (``Authorization: Bearer eyJ…`` is a ``jwt``):

============================ ==================== ====================================
rule id                      finds                secret span (what is replaced)
============================ ==================== ====================================
``private-key``              PEM private key      the whole block, BEGIN to END line
``aws-access-key``           ``AKIA``/``ASIA`` id the 20-character key id
``aws-secret-key``           an AWS secret key    the 40-character secret (a longer
                             name + 40 characters run whole)
``github-token``             ``ghp_`` … tokens    the token
``anthropic-key``            ``sk-ant-…``         the key
``openai-key``               ``sk-``/``sk-proj-`` the key
``slack-token``              ``xox?-…``           the token
``google-api-key``           ``AIza…``            the key
``stripe-key``               ``sk_live_…``,       the key
                             ``rk_test_…`` …
``sendgrid-key``             ``SG.<22>.<43>``     the key
``slack-webhook``            ``hooks.slack.com/`` the secret part of the path
                             ``services/T/B/…``
``service-token``            npm, PyPI, GitLab,   the token
                             Hugging Face,
                             DigitalOcean,
                             Shopify, Databricks,
                             age, Google OAuth,
                             Square, Linear,
                             Vault, Docker Hub,
                             xAI, Groq,
                             Telegram tokens
``registry-auth``            Docker/Podman        the ``auth`` value, the token, the
                             ``auth``, ``identity`` whole base64 file
                             ``token``; a
                             ``.dockerconfigjson``
``discord-token``            Discord bot token,   the token; the webhook's token part
                             webhook URL
``twilio-key``               ``SK``/``AC`` + 32   the SID, and a secret paired with it
                             hex
``jwt``                      ``eyJ….eyJ….sig``    the token
``bearer-token``             ``Authorization:``   only the credentials after the scheme
                             ``Bearer``/``Basic``
``url-credentials``          ``scheme://u:p@h``   only the password (``p``)
``entropy-assignment``       ``name=value``       only the value
``password``                 ``PASSWORD=value``   only the value, whatever its entropy
``secret-assignment``        ``SECRET_KEY=value`` only the value, whatever it holds
``password-prose``           "my password is X",  only the value
                             "use X as the
                             password"
``netrc-password``           ``machine h login``  only the password
                             ``u password PW``
``cli-password``             ``mysql -pPW``,      only the password
                             ``curl -u user:PW``,
                             ``redis-cli -a PW``
``secret-prose``             "my api key is X",   only the value
                             "jwt secret: X",
                             "set the
                             ``SECRET_KEY`` to X"
``cli-secret``               ``--token X``,       only the value
                             ``--api-key X``,
                             ``--client-secret X``
============================ ==================== ====================================

For the rules from ``bearer-token`` on only the secret value is replaced, so the header,
the user and host of a URL, or the variable's name stay readable
(``DB_PASSWORD=[REDACTED:…]``).

``aws-secret-key``: a name ``aws_secret_access_key`` / ``AWS_SECRET_ACCESS_KEY`` /
``secret_access_key`` / ``SecretAccessKey`` (any case, ``_``/``-`` optional) followed,
after any of ``=``, ``:``, quotes and blanks, by at least 40 characters of
``[A-Za-z0-9/+=]`` that are not pure hex (a git commit hash) nor a mask (entropy ≤ 3 bits
per character). So ``AWS_SECRET_ACCESS_KEY wJalr…``, ``aws configure set
aws_secret_access_key wJalr…`` and ``"SecretAccessKey": "wJalr…"`` all count.

``entropy-assignment``: a name — one token containing key/secret/token/password
(case-insensitive, so ``tokenizer`` counts, but its value must still be high-entropy, see
:func:`is_high_entropy`) — given a value by ``name=value``, ``name: value``, ``name :=
value``, ``name => value`` (quotes allowed around either), a command-line flag ``--name
value``, or blanks on the same line, perhaps with ``is``/``was`` between (``export
GITHUB_TOKEN  value``, ``set aws_secret_access_key value``, ``my AWS secret is value``):
prose that puts a high-entropy run right after such a word gives a secret away as surely
as code does.

``password``: a name with a word (split at ``_ - .`` and camelCase) containing
``password``/``passwd``/``pwd``, or ending in the word ``pass`` (``DB_PASS``), given a
value by ``=``, ``:``, ``:=``, ``=>`` (``==`` is a comparison), or a ``--password``,
``--passwd``, ``--pass`` flag followed by its argument: the value is replaced whatever
its length or entropy (``PGPASSWORD=hunter2``). The value is double-quoted (JSON escapes
inside), quoted inside an escaped JSON string, single-quoted (all of it, blanks
included), or unquoted (up to a blank, quote, ``;``, ``&``, ``|`` or backtick); at most
256 characters. Not replaced: placeholders (``$VAR``, ``${VAR}``, ``$(cmd)``, ``%VAR%``,
``<…>``, ``{…}``, only ``*`` or ``x``/``X``, empty), words that say no value (``None``,
``null``, ``true``, ``false``, ``yes``, ``no``, ``on``, ``off``, ``str``, ``string``,
``bytes``), names about a password rather than holding one (a word after it such as
``file``, ``path``, ``length``, ``policy``, ``reset``, ``authentication``:
``--password-file path``, ``POSTGRES_PASSWORD_FILE=…``, ``PasswordAuthentication=no``),
and the shell's ``PWD``/``OLDPWD``. After ``:`` (not ``=``), neither is a word that says how
the password stands (``Password: hidden``, ``password: required``) nor a plain word that
begins a sentence (``Password: Enter your password``, ``password: see below``).

``password-prose``: the word ``password``, ``passphrase``, ``passcode`` or ``passwd``,
perhaps ``for``/``of``/``on``/``to`` and up to four words (``the password for the admin
account``), then ``:``, ``is``/``was``/``to``/``be``/``set to``/``is now``/``is still``
(perhaps with ``:`` after: ``is: …``) or ``, it is``/``, it's``/``- it was``, then the
value: a quoted one (``"…"``, ``'…'``, backticks) whatever it holds, placeholders and
bracketed notes (``(hidden)``) excepted; a bare word only when it looks made up — at least
6 characters without trailing sentence punctuation, holding a digit, a symbol inside it or
a capital after its first letter, and not a placeholder, a path, a URL, code (a call, an
index, an attribute chain, a generic type) nor a word that describes a password
(``case-sensitive``, ``bcrypt``, ``stored``); or a passphrase of plain words, taken to the
end of its clause (a sentence's end, a comma, a bracket, a quote, a line's end, a dash, a
conjunction): at least three words before the first function word (``the``, ``in``,
``is``, ``not``…), four when the first describes a password (``correct horse battery
staple``), and none after the first describing one. So "my password is
Hunter-42-Correct-Horse" and "password: correct horse battery staple" are redacted and
"the password is stored in the vault", "the password is plain text" are not. ``=`` is left
to ``password``, whose exceptions for code references apply.

``secret-prose``: a secret's noun — ``secret``, ``token``, ``apikey``, or ``key``/
``token``/``secret`` after ``api``, ``access``, ``auth``, ``jwt``, ``client``, ``signing``
and the like (``api key``, ``jwt secret``; a bare ``key`` is no secret: "the key is to cache
it") — perhaps ``for`` a thing, then ``:``, ``is``/``was`` or ``, it is``; or ``set``/
``change``/``update``/``rotate``/``reset`` [``the``] ``NAME to`` where ``NAME`` holds a
secret or a password (``set the DJANGO_SECRET_KEY to …``, ``change DB_PASSWORD to …``);
then one word, bare or quoted, that reads as a secret: made up as for ``password-prose``
and holding a digit or a symbol other than ``_`` and ``.`` (``_currToken`` is a variable).
A password's name also takes a passphrase. So "my api key is 3f9a…" and "The secret is:
b4nana-Phone-77" are redacted, and "the secret is to test early", "the token is expired",
"the api key is in the .env file" are not.

``cli-secret``: a long flag whose last word is ``token``, ``secret``, ``apikey``,
``passphrase`` or a secret's ``key`` (``--token``, ``--api-key``, ``--client-secret``,
``--secret-key``; not ``--key``, ``--token-file``, ``--max-tokens``), and its next
argument, quoted or not, when it reads as a secret (as for ``secret-prose``: not
``TOKEN``, ``YOUR_API_KEY``, ``...``) and is no placeholder (``$TOKEN``, ``<token>``), path,
URL, file name (``tok.txt``), code, nor ``key=value`` options; ``docker``/``podman``/
``buildah``/``nerdctl``/``buildctl``'s ``--secret`` names a stored secret (``docker build
--secret id=npm,src=.npmrc``) and is left.

``secret-assignment``: a name whose words (split as for ``password``) say it holds a
secret — ``secret``, ``token``, ``password``, ``passphrase``, ``credential(s)``,
``apikey``, or ``key`` after a word other than ``public``, ``sort``, ``cache``,
``primary``, ``partition`` and the like — with no word after it saying the value is *about*
the secret (``SECRET_KEY_FILE``, ``TOKEN_TTL``, ``SECRET_NAME``, ``ACCESS_KEY_ID``) and no
count before it (``MAX_TOKEN``), given any literal value: an upper-case ``.env`` name
``=`` a value up to a blank or quote (``SECRET_KEY=k#8!@#%^&*…``, every character
counts); any name ``=`` an unquoted value up to a blank, quote, ``;``, ``&`` or ``|``
(``--api-key=…``, ``?access_token=…``); any name ``=``, ``:``, ``:=`` or ``=>`` a quoted
value (``SECRET_KEY = '…'``, ``"client_secret": "…"``); a YAML line ``name: value``.
Not replaced: placeholders (``$VAR``, ``${…}``, ``$(…)``, ``$HOME/…``, ``%VAR%``,
``<…>``, ``{…}``, masks, the words of ``password``), code that fetches the value
(``os.getenv("…")``, ``os.environ['…']``, ``get_secret()``, ``settings.SECRET_KEY``, the
name itself), paths and URLs, and — unquoted after a lower- or mixed-case name, as code
and flags write them — values of letters, ``_`` and ``.`` only (``token=tok``) or UUIDs.
It exists for secrets whose characters fall outside ``entropy-assignment``'s
``[A-Za-z0-9+/=_-]``: Django's ``get_random_secret_key()`` draws from
``a-z0-9!@#$%^&*(-_=+)`` (django/core/management/utils.py).

``registry-auth``: in Docker's ``~/.docker/config.json`` and containers-auth.json(5), an
``auth`` (JSON, escaped JSON, YAML or ``auth=``) whose value is base64 of printable
``user:password`` (RFC 7617 §2; ``"auth": "basic"`` is not), an ``identitytoken`` or
``registrytoken`` holding any literal value of 8 characters or more, and a base64 run
starting ``ey``/``ew`` (``{"``, or ``{`` and a line break) that decodes to JSON holding
``"auths"`` (a Kubernetes ``.dockerconfigjson``).

``discord-token``: ``[MNO]`` + 22–26, ``.``, 6–7, ``.``, 27–40 base64url characters whose
first part decodes to a 17–20 digit snowflake (the bot's user id), and the token part of
``discord(app).com/api/(v<n>/)webhooks/<id>/<token>``. ``twilio-key``: ``SK`` (API key) or
``AC`` (account) + exactly 32 hex digits, and the 32 letters and digits paired with one by
``:`` or ``,`` (``-u SK…:<secret>``, ``Client('SK…', '<secret>')``); other SIDs (``CA``
calls, ``SM`` messages) are ids and stay. ``bearer-token`` also reads the ``Bot`` and
``Token`` schemes (Discord, GitHub and Django REST framework send them).

``netrc-password``: netrc(5) entries, on one line or several: ``machine <host>`` (a name
with a dot, an address, ``host:port`` or ``localhost``) or ``default``, then up to three
``login``/``account``/``port`` tokens, then ``password <string>``; placeholders excepted.

``entropy-assignment`` also takes plain hex (≥ 32 digits, perhaps after a lower-case label
such as ``key-``) when the name ends in ``token``, ``secret``, ``password``, ``passwd``,
``pwd``, ``apikey`` or ``api key`` (``TWILIO_AUTH_TOKEN=<32 hex>``); any other name given
hex holds a digest (``cache-key: node-modules-<sha256>``, ``commit=<sha>``) and is left.

``cli-password``: ``mysql``/``mysqldump``/``mariadb`` (and their ``mysql…``/``mariadb…``
tools) with the password attached to ``-p`` (``-pSECRET``, ``-p'…'``; a bare ``-p``
prompts, so ``-p dbname`` is no password), and ``curl``/``wget`` ``-u user:pw``,
``--user user:pw``, ``--user=user:pw`` (the password part only; a bare user prompts),
``docker``/``podman``/``helm`` ``login … -p PW``, ``sshpass -p PW`` and ``redis-cli … -a PW``;
in the same simple command (up to a newline, ``;``, ``&``, ``|``). Placeholders as above.

Spans found by several rules that overlap are merged into one marker, so no tail of a
secret survives.

Sources of the patterns: private keys — RFC 7468 §2 (PEM labels), OpenSSH
``PROTOCOL.key`` (``OPENSSH PRIVATE KEY``), RFC 4880 §6.2 (``PGP PRIVATE KEY BLOCK``);
AWS — IAM User Guide, "IAM identifiers", unique ID prefixes (``AKIA`` access key,
``ASIA`` temporary STS key, 20 characters), and "Managing access keys" (the secret access
key, 40 characters; named ``aws_secret_access_key`` in the CLI's files,
``AWS_SECRET_ACCESS_KEY`` in the environment, ``SecretAccessKey`` in STS responses);
GitHub — github.blog changelog 2021-03-04
"Authentication token format updates" and "Behind GitHub's new authentication token
formats" (2021): ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + ``[A-Za-z0-9_]``, up to 255
characters, and ``github_pat_`` fine-grained tokens; Anthropic — Console API keys
``sk-ant-api03-…`` / ``sk-ant-admin01-…``; OpenAI — API keys ``sk-…``, ``sk-proj-…``,
``sk-svcacct-…``, ``sk-admin-…``; Slack — "Token types" (api.slack.com): ``xoxb-``,
``xoxp-``, ``xoxa-``, ``xoxr-``, ``xoxs-``, ``xoxc-``, ``xoxd-``, ``xoxe.xoxp-``, ``xapp-``;
Google — Cloud API keys, ``AIza`` + 35 of ``[A-Za-z0-9_-]``; Stripe — "API keys"
(docs.stripe.com/keys): secret keys ``sk_live_``/``sk_test_`` and restricted keys
``rk_live_``/``rk_test_``, taken with at least 16 of ``[A-Za-z0-9]`` after the prefix
(publishable keys ``pk_…`` are public and left alone); JWT — RFC 7519 §3 and RFC 7515
§7.1 (compact serialisation; ``{"`` encodes as ``eyJ``); SendGrid — "API keys" (Twilio
SendGrid docs: ``SG.`` + 22 + ``.`` + 43, 69 characters); Slack webhooks — "Sending
messages using incoming webhooks" (api.slack.com); service tokens — npm "About access
tokens", PyPI "API tokens" (``pypi-AgEIcHlwaS5vcmc…``), GitLab "Personal access tokens"
(``glpat-``), Hugging Face "User access tokens" (``hf_``), DigitalOcean "API tokens"
(``dop_v1_``), Shopify access tokens (``shpat_``…), Databricks personal access tokens
(``dapi``), age(1) ``AGE-SECRET-KEY-1`` (bech32), Google OAuth client secrets
(``GOCSPX-``), Square access tokens (``EAAA``, ``sq0atp-``/``sq0csp-``), Linear API keys
(``lin_api_``), Telegram Bot API tokens (``<id>:<35>``); registry logins —
https://docs.docker.com/reference/cli/docker/login/ ("Credential stores"), docker/cli
``cli/config/types/authconfig.go`` (``auth``, ``identitytoken``, ``registrytoken``),
containers-auth.json(5) (github.com/containers/image
``docs/containers-auth.json.5.md``),
https://kubernetes.io/docs/concepts/configuration/secret/#docker-config-secrets; Discord —
https://discord.com/developers/docs/reference#authentication (``Authorization: Bot``),
https://discord.com/developers/docs/reference#snowflakes,
https://discord.com/developers/docs/resources/webhook#execute-webhook, trufflehog's
``DiscordBotToken`` and ``DiscordWebhook`` detectors; Twilio —
https://www.twilio.com/docs/iam/api-keys (``SK…`` SIDs and their secrets), gitleaks
``twilio-api-key`` (``SK[0-9a-fA-F]{32}``), trufflehog's ``Twilio`` detector
(``AC[0-9a-f]{32}``); netrc — netrc(5) (GNU inetutils);
Authorization — RFC 9110
§11.6.2, RFC 6750 §2.1 (``b64token``), RFC 7617 (Basic); URL userinfo — RFC 3986
§3.2.1; entropy — C. E. Shannon, "A Mathematical Theory of Communication" (1948);
command-line passwords — mysql(1) ``--password[=pw]``/``-p[pw]`` ("there must be no space
between -p and the password"), curl(1) ``-u, --user <user:password>``, wget(1)
``--user``/``--password``, openssl-passphrase-options(1) ``pass:password``, redis-cli
(redis.io, "redis-cli, the Redis command line interface": ``-a <password>``); passphrases
of plain words — xkcd 936, "Password Strength".

Whole-excerpt drops (credential-file contents; checked first, on the raw text):
a **private key file** (the excerpt is nothing but one PEM private key block, as
``cat ~/.ssh/id_rsa`` prints it), an **incomplete private key block** (a BEGIN line without
its END line or an END line without its BEGIN — the key cannot be delimited), an
**AWS credentials file** (a ``[profile]`` section line and an ``aws_secret_access_key``
line, as in ``~/.aws/credentials``) and a **.env dump**: lines of the dotenv form
``NAME=value`` (no space before ``=``, optional ``export``), at least
:data:`DOTENV_SECRET_LINES` of them with secret-ish names (containing
key/secret/token/password/credential), or at least :data:`DOTENV_MIN_LINES` of them of
which one has a secret-ish name or a value some rule above catches (``DATABASE_URL=
postgres://u:pw@…``, ``SLACK=xoxb-…``). A secret-ish name counts only with a literal
value (not ``$API_KEY``, ``<key>``, ``***``, ``false``: see ``password`` above). Code
(``api_key = os.environ[…]``) is not dotenv; plain config (``DEBUG=1``, ``PORT=8080``) is
not secret.

Idempotence: text inside an existing ``[REDACTED:…]`` marker is never matched again (nor
is a marker's rule id taken for a password's name, nor a match whose secret begins inside
a marker, as in ``curl -u [REDACTED:…]:``), and the drop checks cannot newly fire
on gated text (redaction only shortens lines and never writes a section line, a
BEGIN/END line or ``NAME=``; a kept excerpt with enough dotenv lines had no value a rule
catches), so gating gated text changes nothing and reports no redactions.

Pure functions, no I/O. Design reference: docs/design.md §6 (``get_handoff``).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "DOTENV_MIN_LINES",
    "DOTENV_SECRET_LINES",
    "ENTROPY_MIN_BITS",
    "ENTROPY_MIN_LENGTH",
    "HEX_SECRET_MIN_LENGTH",
    "MARKER_PATTERN",
    "PASSPHRASE_MIN_WORDS",
    "PASSPHRASE_MIN_WORDS_TELLING",
    "RULE_IDS",
    "GatedText",
    "Redaction",
    "gate",
    "is_high_entropy",
    "marker",
    "shannon_entropy",
]

ENTROPY_MIN_LENGTH = 24
"""Characters a value needs before it can count as high-entropy."""
ENTROPY_MIN_BITS = 4.0
"""Shannon entropy a value must exceed, in bits per character."""
DOTENV_SECRET_LINES = 2
"""Dotenv lines with secret-ish names from which an excerpt counts as a ``.env`` dump."""
DOTENV_MIN_LINES = 3
"""Dotenv lines from which one secret-ish name or one caught value makes a ``.env`` dump."""

DIGEST_HEX = 8
"""Hex digits of the sha256 of the secret span kept in a marker."""

MARKER_PATTERN = re.compile(rf"\[REDACTED:[a-z-]+:[0-9a-f]{{{DIGEST_HEX}}}\]")
"""A redaction marker as :func:`marker` writes it."""


@dataclass(frozen=True, slots=True)
class Redaction:
    """One secret the gate replaced.

    Attributes:
        rule: the rule id (one of :data:`RULE_IDS`).
        digest: first 8 hex digits of the sha256 of the secret span's UTF-8 bytes.
    """

    rule: str
    digest: str


@dataclass(frozen=True, slots=True)
class GatedText:
    """An excerpt after the gate.

    Attributes:
        text: the excerpt with every secret replaced by its marker, or ``None`` when the
            excerpt was dropped whole.
        redactions: the secrets replaced, in text order (empty when dropped).
        dropped_reason: why the excerpt was dropped (``"a .env dump"``, ``"a private key
            file"``, ``"an incomplete private key block"``, ``"an AWS credentials
            file"``), else ``None``.
    """

    text: str | None
    redactions: tuple[Redaction, ...] = ()
    dropped_reason: str | None = None

    @property
    def dropped(self) -> bool:
        """The excerpt held credential-file contents and was withheld."""
        return self.text is None


def marker(rule: str, span: str) -> str:
    """The marker that replaces ``span`` found by ``rule``:
    ``[REDACTED:<rule>:<first 8 hex of sha256(span)>]``."""
    return f"[REDACTED:{rule}:{_digest(span)}]"


def _digest(span: str) -> str:
    return hashlib.sha256(span.encode("utf-8")).hexdigest()[:DIGEST_HEX]


def shannon_entropy(value: str) -> float:
    """Shannon entropy of the characters of ``value``, in bits per character:
    ``H = −Σ pᵢ·log₂ pᵢ`` over the character frequencies (C. E. Shannon, "A Mathematical
    Theory of Communication", Bell System Technical Journal 27, 1948, §6). 0 for ``""``."""
    if not value:
        return 0.0
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in Counter(value).values())


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_ENTROPY_VALUE = re.compile(r"[A-Za-z0-9+/=_-]+")


def is_high_entropy(value: str) -> bool:
    """A "high-entropy" value: ≥ 24 characters, all from ``[A-Za-z0-9+/=_-]``,
    Shannon entropy > 4.0 bits per character, and neither a UUID nor pure hex (digests,
    commit hashes and ids are not secrets)."""
    return (
        len(value) >= ENTROPY_MIN_LENGTH
        and _ENTROPY_VALUE.fullmatch(value) is not None
        and _UUID.fullmatch(value) is None
        and _HEX.fullmatch(value) is None
        and shannon_entropy(value) > ENTROPY_MIN_BITS
    )


# --- rules ---------------------------------------------------------------------------

_PEM_EDGE = re.compile(r"-----(?P<edge>BEGIN|END) (?P<label>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----")


def _pem_blocks(text: str) -> tuple[list[tuple[int, int]], bool]:
    """The complete private key blocks of ``text`` (BEGIN line to the next END line of
    the same label) and whether any BEGIN or END line is left unpaired.

    One pass over the BEGIN/END lines, so linear in the text however many there are.
    """
    blocks: list[tuple[int, int]] = []
    unpaired = False
    open_at: int | None = None
    open_label = ""
    for edge in _PEM_EDGE.finditer(text):
        if edge.group("edge") == "BEGIN":
            if open_at is None:
                open_at, open_label = edge.start(), edge.group("label")
        elif open_at is None:
            unpaired = True  # an END without its BEGIN: the key's body precedes it
        elif edge.group("label") == open_label:
            blocks.append((open_at, edge.end()))
            open_at = None
    return blocks, unpaired or open_at is not None


def _has_digit_and_cases(span: str) -> bool:
    tail = span.split("-", 1)[-1]
    return (
        any(c.isdigit() for c in tail)
        and any(c.isupper() for c in tail)
        and any(c.islower() for c in tail)
    )


def _has_digit(span: str) -> bool:
    return any(c.isdigit() for c in span)


def _not_a_word(span: str) -> bool:
    """At least 8 characters and not a plain lower-case word ("header", "scheme");
    lower-case letters only still count from 20 characters (no English word is that
    long, a random token can be)."""
    return len(span) >= 8 and (len(span) >= 20 or re.fullmatch(r"[a-z]+", span) is None)


def _not_a_placeholder(span: str) -> bool:
    """Not a variable reference (``$PW``, ``${PW}``, ``%PW%``), a template (``<pw>``,
    ``{{pw}}``) or a mask made only of ``*`` or ``x`` (``***``, as git prints it)."""
    return not span.startswith(("$", "<", "{", "%")) and span.strip("*x") != ""


@dataclass(frozen=True, slots=True)
class _Rule:
    """One rule: each of ``patterns`` finds candidates whose group ``secret`` is the
    secret span, and ``accept`` vets the match (its ``secret``, and its ``name`` where
    the pattern has one). ``skip_rejected``: a rejected match is skipped whole (its value
    is one run: retrying inside it would cost quadratic time on runs like
    ``key=key=key=…``), else the search retries one character further on (the patterns
    start with a literal prefix or a bounded name, so that is cheap)."""

    rule: str
    patterns: tuple[re.Pattern[str], ...]
    accept: Callable[[re.Match[str]], bool] | None = None
    skip_rejected: bool = False


def _on_secret(check: Callable[[str], bool]) -> Callable[[re.Match[str]], bool]:
    """An ``accept`` that vets the secret span alone."""
    return lambda match: check(match.group("secret"))


def _aws_secret(span: str) -> bool:
    """Neither pure hex (a 40-digit git commit hash has AWS's length) nor a mask or
    repeated filler (Shannon entropy ≤ 3 bits per character, e.g. ``xxxx…``)."""
    return _HEX.fullmatch(span) is None and shannon_entropy(span) > 3.0


_NAME = r"[A-Za-z0-9_.-]{0,64}?(?i:key|secret|token|passw(?:or)?d)[A-Za-z0-9_.-]{0,64}"
_VALUE = r"[\"']?(?P<secret>[A-Za-z0-9+/=_-]{24,}(?:\.[A-Za-z0-9+/=_-]{4,})*)"
"""A value run, with dot-separated parts taken whole (a Discord bot token
``<24>.<6>.<38>``, a Vault ``hvs.…``): no tail of a dotted token survives."""
_ENTROPY_SPACED = re.compile(
    rf"(?<![A-Za-z0-9_.-])(?P<name>{_NAME})(?![A-Za-z0-9_.-])[\"']?[ \t]+"
    rf"(?:(?:is|was|are|be)[ \t]+)?(?!-){_VALUE}"
)
"""A name, blanks on the same line (and perhaps ``is``/``was``), a value: ``export
GITHUB_TOKEN  …``, ``aws configure set aws_secret_access_key …``, ``my AWS secret is …``."""


_HEX_SECRET_WORDS = frozenset({"token", "secret", "password", "passwd", "pwd", "apikey"})
"""Last words of a name that hold a secret even when it is plain hex (``AUTH_TOKEN``,
``client_secret``, ``api_key`` — not ``cache_key`` or ``tokenizer_hash``, which hold
digests)."""
HEX_SECRET_MIN_LENGTH = 32
"""Hex digits a value given to such a name needs to count (Twilio auth tokens, Mailgun and
many session secrets are 32 hex digits; shorter hex is an id or a short hash)."""


_LABELLED_HEX = re.compile(r"(?:[a-z0-9]+[-_.:])+(?P<hex>[0-9a-fA-F]+)")
"""Lower-case words and separators, then hex digits: a labelled digest such as
``node-modules-<sha256>`` or ``key-<hex>``."""


def _names_a_hex_secret(name: str) -> bool:
    """Whether ``name`` ends in a word of :data:`_HEX_SECRET_WORDS`, or in ``api key``."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    return bool(words) and (words[-1] in _HEX_SECRET_WORDS or words[-2:] == ["api", "key"])


def _entropy_assignment(match: re.Match[str]) -> bool:
    """A high-entropy value; after blanks only, given to a name that ends in a letter,
    digit or ``_`` (not ``KEY-----`` of a PEM header). Prose counts too ("the token is
    …"): a high-entropy run right after such a word is a secret far more often than not,
    and a handoff must not carry one. Hex of at least :data:`HEX_SECRET_MIN_LENGTH` digits
    (perhaps after a label, ``node-modules-<sha256>``) counts only, and then always, when
    the name ends in a secret's word (:func:`_names_a_hex_secret`:
    ``TWILIO_AUTH_TOKEN=<32 hex>``, not ``cache-key: node-modules-<sha256>``)."""
    value = match.group("secret")
    labelled = _LABELLED_HEX.fullmatch(value)
    digits = labelled.group("hex") if labelled is not None else value
    if len(digits) >= HEX_SECRET_MIN_LENGTH and _HEX.fullmatch(digits) is not None:
        # hex (or a digest with a label: ``node-modules-<sha256>``) is a secret only when
        # the name says so; else it is a digest, a cache key, a commit
        if not _names_a_hex_secret(match.group("name")):
            return False
    elif not is_high_entropy(value.replace(".", "")):  # a dotted token's parts as one
        return False
    if match.re is not _ENTROPY_SPACED:
        return True
    name = match.group("name")
    return name[-1].isalnum() or name[-1] == "_"


_NOT_A_VALUE = frozenset(
    {"none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off"}
    | {"str", "string", "bytes", "secretstr", "secretbytes"}
)
"""Values that say a password is absent, switched on or off, or of some type (``password:
str`` in code, pydantic's ``SecretStr``), not what it is."""


def _is_value(span: str) -> bool:
    """A literal value, not a placeholder: not empty, not a variable reference (``$PW``,
    ``${PW}``, ``$(cmd)``, ``%PW%``), a template (``<pw>``, ``{pw}``, ``{{ pw }}``), a
    mask made only of ``*`` or ``x``/``X`` (``***``), a note in brackets (``(hidden)``,
    ``[REDACTED]``), or one of :data:`_NOT_A_VALUE` (trailing ``,;)]}`` of code ignored)."""
    core = span.strip().rstrip(",;)]}")
    return (
        core != ""
        and not core.startswith(("$", "<", "{", "%"))
        and core.strip("*xX") != ""
        and core.lower() not in _NOT_A_VALUE
        and _NOTE.fullmatch(core) is None
    )


_PASSWORD_WORD = re.compile(r"passw(?:or)?d|pwd")
_NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NOT_A_PASSWORD = frozenset(
    {"file", "files", "path", "dir", "length", "len", "min", "max", "policy", "field"}
    | {"prompt", "env", "var", "cmd", "command", "reset", "expires", "expiry", "expiration"}
    | {"age", "rule", "rules", "regex", "pattern", "strength", "changed", "updated"}
    | {"required", "enabled", "label", "hint", "placeholder", "input", "type", "mode"}
    | {"manager", "validator", "helper", "url", "uri", "link", "form", "page", "view"}
    | {"auth", "authentication", "count", "attempts", "retries", "timeout"}
)
"""Words that, following the password word in a name, say the value is about a password
(its file, its length, its policy) rather than the password itself."""
_WORKING_DIRECTORY = frozenset({"pwd", "oldpwd"})
"""The shell's working-directory variables (POSIX ``cd``): paths, not passwords."""


def _is_password_name(name: str) -> bool:
    """A name holding a password: one of its words (split at ``_``, ``-``, ``.`` and
    camelCase) contains ``password``, ``passwd`` or ``pwd``, or its last word is
    ``pass`` (``DB_PASS``, ``--pass``, ``pass:`` of OpenSSL); no word after it is one of
    :data:`_NOT_A_PASSWORD` (``PASSWORD_FILE``); not ``PWD``/``OLDPWD``."""
    bare = name.strip("-.")
    if bare.lower() in _WORKING_DIRECTORY:
        return False
    words = [word.lower() for word in _NAME_WORDS.findall(bare)]
    for index, word in enumerate(words):
        if _PASSWORD_WORD.search(word) or (word == "pass" and index == len(words) - 1):
            return _NOT_A_PASSWORD.isdisjoint(words[index + 1 :])
    return False


_ATTRIBUTE_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


def _is_code_reference(value: str, name: str) -> bool:
    """Code that names where a password comes from, not the password: the name itself
    (``password=password``), an attribute chain ending in a password's name
    (``self.password``, ``process.env.PGPASSWORD``), a call or index whose argument is
    a quoted string (``os.getenv(``, ``os.environ[``), or a generic type
    (``Optional[str]``)."""
    core = value.strip().rstrip(",;)]}")
    if core.lower() == name.strip("-.").lower() or value.endswith(("(", "[")):
        return True
    if _GENERIC_TYPE.fullmatch(value.strip()) is not None:
        return True  # an annotation: ``password: Optional[str] = None``
    return _ATTRIBUTE_CHAIN.fullmatch(core) is not None and _is_password_name(
        core.rsplit(".", 1)[1]
    )


def _is_path_then_message(match: re.Match[str]) -> bool:
    """The name ends a file path and ``:`` follows: a tool's ``/etc/passwd: Permission
    denied``, not an assignment (``…/PGPASSWORD=pw`` still is one)."""
    start = match.start("name")
    between = match.string[match.end("name") : match.start("secret")]
    return start > 0 and match.string[start - 1] in "/\\" and "=" not in between


_PASSWORD_STATUS = frozenset(
    {"required", "optional", "hidden", "masked", "redacted", "set", "unset", "missing"}
    | {"empty", "provided", "given", "invalid", "incorrect", "expired", "prompted", "ok"}
)
"""Words a tool or a form prints after ``password:`` to say how the password stands
(``password: required``, ``Password: hidden``), not what it is; after ``=`` (a ``.env``
line, a shell assignment) every word is a value."""
_MORE_WORDS = re.compile(r"[ \t]+(?:[A-Za-z0-9]|\[REDACTED:)")
"""More words after a value on its line: the value began a sentence. A marker counts as a
word, as the value it replaced (a word) did, so gating gated text changes nothing."""


def _is_said_after_colon(match: re.Match[str]) -> bool:
    """An unquoted value after ``:`` that says how the password stands (one of
    :data:`_PASSWORD_STATUS`), or a plain word that starts a sentence (more words follow it
    on the line and it does not look made up): "Password: Enter your password",
    "password: see below". A passphrase after ``:`` is ``password-prose``'s to read whole."""
    between = match.string[match.end("name") : match.start("secret")]
    if ":" not in between or "=" in between or between.endswith(("'", '"')):
        return False
    value = match.group("secret")
    if value.rstrip(_TRAILING_PUNCTUATION).lower() in _PASSWORD_STATUS:
        return True
    sentence = _MORE_WORDS.match(match.string, match.end("secret")) is not None
    return sentence and not _looks_like_a_password(value)


def _password(match: re.Match[str]) -> bool:
    name, value = match.group("name"), match.group("secret")
    return (
        _is_password_name(name)
        and _is_value(value)
        and not _is_code_reference(value, name)
        and not _is_path_then_message(match)
        and not _is_said_after_colon(match)
    )


_PLAIN = r"[^\s\"'`;&|]"
"""A character of an unquoted shell or config value (up to a blank, quote or separator)."""
_VALUE_LIMIT = 256
"""Characters a password value may have; a longer run is left to the other rules (this
bound keeps each rejected candidate's cost constant)."""


def _password_values(prefix: str) -> tuple[re.Pattern[str], ...]:
    """``prefix`` followed by a value: double-quoted (JSON escapes inside), quoted
    inside an escaped JSON string (``\\"…\\"``), single-quoted, or unquoted; a quoted
    value without its closing quote runs to the end of the line (a cut excerpt)."""
    n = _VALUE_LIMIT
    return tuple(
        re.compile(prefix + value)
        for value in (
            rf'"(?P<secret>(?:[^"\\\n]|\\.){{0,{n}}})(?="|\n|\Z)',
            rf'\\"(?P<secret>(?:[^"\\\n]|\\[^"\n]){{0,{n}}})(?=\\"|\n|\Z)',
            rf"'(?P<secret>[^'\n]{{0,{n}}})(?='|\n|\Z)",
            rf"(?P<secret>(?!\\[\"']){_PLAIN}{{1,{n}}})(?!{_PLAIN})",
        )
    )


_PASSWORD_NAME = r"[A-Za-z0-9_.-]{0,64}?(?i:passw(?:or)?d|pwd|pass)[A-Za-z0-9_.-]{0,64}"
_PASSWORD_ASSIGNED = (
    rf"(?<![A-Za-z0-9_.-])(?<!\[REDACTED:)(?P<name>{_PASSWORD_NAME})(?![A-Za-z0-9_.-])"
    r"(?:\\?[\"'])?(?:[ \t]*(?::=|=>|:)[ \t]*|=(?!=)|[ \t]+=(?!=)[ \t]*)"
)
"""A password's name, then ``:=``, ``=>``, ``:`` or ``=`` (``==`` is a comparison); blanks
after ``=`` only when there are some before it (``PW= cmd`` gives ``PW`` an empty value)."""
_PASSWORD_FLAG = (
    r"(?<![A-Za-z0-9_.-])(?P<name>--(?i:password|passwd|pass))(?![A-Za-z0-9_.-])[ \t]+(?!-)"
)
_SAME_COMMAND = r"(?=[ \t])[^\n;&|]{0,512}?[ \t]"
"""The rest of one simple command: up to a newline, ``;``, ``&`` or ``|`` (bounded)."""
_MYSQL_P = rf"(?<![A-Za-z0-9_.-])(?:mysql|mariadb)[a-z-]{{0,16}}{_SAME_COMMAND}-p"
_CURL_USER = rf"(?<![A-Za-z0-9_.-])(?:curl|wget){_SAME_COMMAND}(?:-u[ \t]*|--user(?:[ \t]+|=))"
_SEPARATE_P = (
    rf"(?<![A-Za-z0-9_.-])(?:(?:docker|podman|helm)[ \t]+(?:registry[ \t]+)?login{_SAME_COMMAND}"
    r"|sshpass[ \t]+)-p[ \t]*"
)
"""``docker``/``podman``/``helm`` ``login … -p PW`` and ``sshpass -p PW``: their ``-p``
takes the password itself (docker-login(1), sshpass(1))."""
_REDIS_A = rf"(?=r)(?<![A-Za-z0-9_.-])redis-cli{_SAME_COMMAND}(?:-a|--pass)[ \t]+"
"""``redis-cli … -a PW`` (or ``--pass PW``): redis-cli's password (redis.io, "redis-cli,
the Redis command line interface": ``-a <password>``)."""
_CLI_PASSWORD_PATTERNS = (
    *(
        re.compile(_MYSQL_P + value)
        for value in (
            rf"'(?P<secret>[^'\n]{{1,{_VALUE_LIMIT}}})(?='|\n|\Z)",
            rf'"(?P<secret>[^"\n]{{1,{_VALUE_LIMIT}}})(?="|\n|\Z)',
            rf"(?P<secret>{_PLAIN}{{1,{_VALUE_LIMIT}}})(?!{_PLAIN})",
        )
    ),
    *(
        re.compile(_CURL_USER + value)
        for value in (
            rf"'[^\s:']*:(?P<secret>[^'\n]{{1,{_VALUE_LIMIT}}})(?='|\n|\Z)",
            rf'"[^\s:"]*:(?P<secret>[^"\n]{{1,{_VALUE_LIMIT}}})(?="|\n|\Z)',
            rf"(?!-)[^\s:\"'`;&|]*:(?P<secret>{_PLAIN}{{1,{_VALUE_LIMIT}}})(?!{_PLAIN})",
        )
    ),
    *(
        re.compile(prefix + value)
        for prefix in (_SEPARATE_P, _REDIS_A)
        for value in (
            rf"'(?P<secret>[^'\n]{{1,{_VALUE_LIMIT}}})(?='|\n|\Z)",
            rf'"(?P<secret>[^"\n]{{1,{_VALUE_LIMIT}}})(?="|\n|\Z)',
            rf"(?!-)(?P<secret>{_PLAIN}{{1,{_VALUE_LIMIT}}})(?!{_PLAIN})",
        )
    ),
)

_PASSWORD_NOUN = r"(?i:pass(?:word|phrase|code)|passwd|pw)(?![A-Za-z0-9_-])"
_FOR_THING = r"(?:[ \t]+(?i:for|of|on|to)(?:[ \t]+[A-Za-z0-9_.@/-]{1,64}){1,4})?"
"""``for <thing>`` of up to four words: ``the password for the admin account``."""
_IT_IS = r"[ \t]*[,;:\u2013\u2014-]+[ \t]*(?i:it)(?:[ \t]+(?i:is|was)|['\u2019](?i:s))[ \t]+"
"""``, it is`` / ``, it's`` / ``- it was`` after the noun: "never print the password, it is
…" names the password and gives it in one breath. (Not ``, which is``: "one token - which
is _currToken" names a variable, in code comments and prose alike.)"""
_PASSWORD_PROSE_LEAD = (
    r"(?<![A-Za-z0-9_.-])" + _PASSWORD_NOUN + _FOR_THING + r"(?:" + _IT_IS + r"|[ \t]*:[ \t]*"
    r"|[ \t]+(?i:is|was|to|be|set[ \t]+to|is[ \t]+now|is[ \t]+still)(?:[ \t]*:)?[ \t]+)"
)
"""A password word (``password``, ``passphrase``, ``passcode``, ``passwd``, ``pw``), perhaps ``for
<thing>``, then ``, it is``, ``:`` or ``is``/``was``/``to``/``be``/``set to`` (perhaps with
``:`` after the verb: ``password is: …``), then the value (``=`` is code: the ``password``
rule reads it, with its exceptions for code references)."""

_CLAUSE_END = (
    r"(?=[ \t]*[.!?,;:)\]]*(?:[\"'`\n]|\Z)|[.!?,;:)\]]+[ \t]"
    r"|[ \t]+(?:[(#]|[-\u2013\u2014]{1,2}[ \t]"
    r"|(?i:and|but|or|nor|so|then|because|since|while|which|unless|until|though|although"
    r"|whereas|if|when|where|once|please)(?![A-Za-z0-9_'-])))"
)
"""Where a clause ends: a sentence's end (``.``, ``!``, ``?`` before a blank or the end), a
comma, semicolon or colon before a blank, a closing bracket, a quote, a line's end, an
opening ``(`` or a comment's ``#`` after a blank, a dash between blanks, or a conjunction
(``and``, ``but``, ``or``, ``because``, ``which``, ``please`` …)."""
_CLAUSE_UNITS = 24
"""Pieces a clause's value may have (a word and the blank after it are two): a passphrase
has a few words; a longer clause is a sentence, not a value."""
_CLAUSE = (
    rf"(?P<secret>[^\s\"'`](?:[^\s\"'`.!?,;:)\]]{{1,64}}+|[^\S\n]|[.!?,;:)\]])"
    rf"{{0,{_CLAUSE_UNITS}}}?){_CLAUSE_END}"
)
"""A value up to the end of its clause (:data:`_CLAUSE_END`), whatever characters it holds
— a passphrase of several words is taken whole. It is read piece by piece: a run of
characters that cannot end a clause, taken whole (possessive: never given back), or one
blank or punctuation mark; a clause can only end before a blank, a punctuation mark, a
quote or a line's end, so the end is looked for only between pieces, and a lead without a
clause end near it costs a few steps per word, not per character."""
_QUOTED = r"[\"'`](?P<secret>[^\"'`\n]{1,256})(?=[\"'`])"

_PASSWORD_PROSE_QUOTED = re.compile(_PASSWORD_PROSE_LEAD + _QUOTED)
_PASSWORD_PROSE_CLAUSE = re.compile(_PASSWORD_PROSE_LEAD + _CLAUSE)
_WORD = r"(?P<secret>[^\s\"'`]{5,255}[^\s\"'`.,;:!?)\]}])(?=[.,;:!?)\]}]*(?:\s|[\"'`]|\Z))"
"""One bare word of at least 6 characters, trailing sentence punctuation left out."""
_PASSWORD_PROSE_BARE = re.compile(_PASSWORD_PROSE_LEAD + _WORD)
"""The first word alone, when it looks made up (:func:`_looks_like_a_password`) and prose
follows it: "the password is Tr0ub4dor&3 for the staging box" keeps "for the staging box"."""
_PASSWORD_PROSE_AS = re.compile(
    r"(?<![A-Za-z0-9_.-])(?i:use|used|using|with|set)[ \t]+[\"'`]?"
    r"(?P<secret>[^\s\"'`]{5,255}[^\s\"'`.,;:!?)\]}])[\"'`]?"
    r"[ \t]+(?i:as)[ \t]+(?:(?i:the|a|my|your)[ \t]+)?"
    r"(?i:pass(?:word|phrase)|passwd)(?![A-Za-z0-9_-])"
)
"""The value before the word: "use grV6!f9iXN19Q as the password"."""
_PASSWORD_PROSE_NEXT = re.compile(
    r"(?<![A-Za-z0-9_.-])(?i:pass(?:word|phrase)|passwd)[ \t]+"
    r"(?P<secret>[^\s\"'`]{5,255}[^\s\"'`.,;:!?)\]}])(?=[.,;:!?)\]}]*(?:\s|[\"'`]|\Z))"
)
"""The value right after the word, without a verb: "deploy with password hunter2hunter2"
(only a word that looks made up counts: "password reset" and "password field" stay)."""

_NETRC_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9_.-])(?:machine[ \t\r\n]+(?:[A-Za-z0-9_-]+[.:][A-Za-z0-9._:-]+|localhost)"
    r"|default)"
    r"(?:[ \t\r\n]+(?:login|account|port)[ \t\r\n]+[^\s]+){0,3}"
    r"[ \t\r\n]+password[ \t\r\n]+(?P<secret>[^\s]{1,256})"
)
"""A netrc entry up to its password: ``machine <host>`` (a host name with a dot, an
address, ``host:port`` or ``localhost``: "machine learning" is prose) or ``default``, up
to three ``login``/``account``/``port`` tokens, then ``password <string>``; across lines
too."""

_TRAILING_PUNCTUATION = ".,;:!?)]}"

_PROSE_WORDS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "some", "any", "no", "not", "never"}
    | {"always", "also", "still", "now", "just", "only", "even", "too", "very", "so", "quite"}
    | {"really", "actually", "probably", "likely", "usually", "often", "sometimes", "already"}
    | {"again", "yet", "here", "there", "then", "than", "in", "on", "at", "of", "for", "from"}
    | {"to", "with", "without", "by", "via", "into", "onto", "under", "over", "behind", "per"}
    | {"inside", "within", "as", "like", "about", "after", "before", "across", "through"}
    | {"between", "around", "against", "during", "upon", "and", "or", "but", "nor", "if"}
    | {"because", "while", "whereas", "when", "where", "which", "who", "whom", "whose"}
    | {"what", "whatever", "whichever", "how", "why", "it", "its", "it's", "i", "you", "he"}
    | {"she", "we", "they", "me", "him", "her", "us", "them", "my", "your", "our", "their"}
    | {"his", "mine", "yours", "ours", "theirs", "is", "are", "was", "were", "be", "been"}
    | {"being", "am", "has", "have", "had", "do", "does", "did", "can", "could", "will"}
    | {"would", "shall", "should", "may", "might", "must", "something", "nothing"}
    | {"anything", "everything", "someone", "one", "other", "another", "each", "every", "all"}
    | {"both", "either", "neither", "more", "most", "less", "least", "much", "many", "few"}
    | {"enough", "today", "tomorrow", "yesterday", "tonight", "later", "soon", "currently"}
    | {"correctly", "properly", "automatically", "securely", "manually", "directly"}
    | {"recently", "weekly", "daily", "monthly", "nightly", "hourly", "else", "instead"}
)
"""Function words, pronouns and adverbs: a value that starts with one is a sentence about
the secret ("the password is in Vault", "the secret is to test early"), and a passphrase
runs only up to the first one (after which the clause is taken whole, or the made-up word
alone)."""
_TELLING_WORDS = frozenset(
    {"required", "mandatory", "optional", "correct", "incorrect", "right", "wrong", "valid"}
    | {"invalid", "empty", "blank", "missing", "null", "nil", "none", "unset", "set", "reset"}
    | {"new", "old", "current", "previous", "default", "temporary", "temp", "random", "weak"}
    | {"strong", "short", "long", "secure", "insecure", "safe", "unsafe", "plain", "plaintext"}
    | {"cleartext", "clear", "hidden", "visible", "secret", "private", "public", "known"}
    | {"unknown", "same", "different", "unique", "shared", "personal", "global", "local"}
    | {"static", "dynamic", "fixed", "stale", "fine", "good", "bad", "ok", "okay", "sensitive"}
    | {"insensitive", "case", "irrelevant", "important", "necessary", "available", "gone"}
    | {"unavailable", "present", "absent", "part", "length", "hash", "field", "value", "key"}
    | {"problem", "issue", "reason", "culprit", "thing", "bug", "fake", "dummy", "placeholder"}
    | {"example", "sample", "auto", "automatic", "manual", "numeric", "alphanumeric", "mixed"}
    | {"lowercase", "uppercase", "complex", "simple", "easy", "hard", "obvious", "guessable"}
    | {"trivial", "stronger", "weaker", "longer", "shorter", "opaque", "readable", "mutable"}
    | {"unreadable", "immutable", "readonly", "unused", "obsolete", "outdated", "bogus"}
    | {"broken", "great", "specific", "identical", "constant", "configurable", "env"}
    | {"environment", "user", "username", "email", "characters", "chars", "digits", "letters"}
    | {"bytes", "bits", "words", "read", "taken", "sent", "kept", "written", "given", "shown"}
    | {"chosen", "stolen", "forgotten", "lost", "put", "built", "made", "done", "used"}
    | {"pending", "working", "failing", "expiring", "changing", "coming", "using"}
    | {"loading", "rotating", "expire", "rotate", "refresh", "renew", "change", "update"}
    | {"match", "use", "live", "lived", "bcrypt", "scrypt", "pbkdf2", "argon2", "argon2id"}
    | {"hex", "ascii", "unicode", "jwt", "uuid", "base64", "base32", "md5", "sha1", "sha256"}
    | {"sha512", "utf8", "utf-8", "aes", "aes256", "hmac", "encrypted", "hashed", "stored"}
)
"""Words that describe a secret instead of being it: its state (``required``,
``expired``, ``missing``, ``incorrect``), its kind or encoding (``plaintext``, ``bcrypt``,
``base64``), what it is a part of (``case``, ``length``, ``field``) and a few verbs
("set the token to expire"). Besides these, a lower-case word ending in ``-ed`` (a
participle: ``stored``, ``hashed``, ``rotated``) tells, and a hyphenated compound tells
when each of its parts does (``case-sensitive``, ``read-only``, ``base64-encoded``)."""
_COMPOUND = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


def _tells(word: str) -> bool:
    """Whether ``word`` (trailing punctuation ignored, any case) describes a secret rather
    than being one: a word of :data:`_PROSE_WORDS` or :data:`_TELLING_WORDS`, a
    lower-case participle in ``-ed`` of at least 5 letters, or a hyphenated compound all
    of whose parts tell."""
    core = word.rstrip(_TRAILING_PUNCTUATION).lower()
    if core in _PROSE_WORDS or core in _TELLING_WORDS:
        return True
    if core.isalpha() and core.isascii():
        return len(core) >= 5 and core.endswith("ed")
    if _COMPOUND.fullmatch(core) is not None:
        return all(_tells(part) for part in core.split("-"))
    return False


def _looks_like_a_password(word: str) -> bool:
    """A bare word that reads as a made-up secret rather than prose: at least 6 characters
    once trailing sentence punctuation is dropped, not a placeholder, a path, code or a
    word that tells (:func:`_tells`), and holding a digit, a symbol inside it (a hyphen
    between lower-case letters does not count: ``case-sensitive``) or a capital letter
    after its first character (``Hunter-42``, ``tr0ub4dor``, ``CorrectHorse``; not
    ``stored``, ``required``, ``base64``)."""
    core = word.rstrip(_TRAILING_PUNCTUATION)
    if len(core) < 6:
        return False
    inner = core[1:-1]
    compound = _LOWER_COMPOUND.fullmatch(core) is not None
    made_up = (
        any(c.isdigit() for c in core)
        or (not compound and any(not c.isalnum() for c in inner))
        or any(c.isupper() for c in core[1:])
    )
    # the cheap test first: most words a lead is followed by are plain
    return made_up and _is_literal_word(core) and not _tells(core)


_LOWER_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")

PLAIN_PASSWORD_MIN_CHARS = 6
"""Letters a plain lower-case word needs to be taken as a password when it alone completes
"password is …" ("my password is sunshine", "the password is changeme"): the length that
leaves out short words of prose ("is wrong", "is fine"), which :data:`_TELLING_WORDS`
does not list all of."""
_ENGLISH_ENDINGS = (
    *("ly", "ing", "able", "ible", "al", "ive", "ous", "ful", "less", "ent", "ant"),
    *("ary", "ory", "ic", "ity", "ion", "ness", "ment", "ise", "ize", "where", "ward"),
)
"""Endings of English adjectives, adverbs and abstract nouns: a plain word ending so says
how the password is ("the password is confidential", "… is expiring", "… is elsewhere"),
where a password made of one plain word seldom ends so."""
_NOT_A_PLAIN_PASSWORD = frozenset(
    {"prompt", "stdin", "keyring", "keychain", "vault", "config", "settings", "console"}
    | {"terminal", "header", "cookie", "token", "secret", "secrets", "there", "please"}
    | {"password", "passwords", "passwd", "passphrase", "passcode"}
)
"""Plain words that say where a password comes from ("password: prompt", "… is in the
keychain"), not what it is, and the password's own nouns ("password: password:" is a
form's labels)."""


def _is_plain_password(word: str) -> bool:
    """A plain lower-case word that, alone after a password's noun and verb, is the
    password: letters only, at least :data:`PLAIN_PASSWORD_MIN_CHARS`, not a word that
    tells (:func:`_tells`), nor one of :data:`_NOT_A_PLAIN_PASSWORD`, nor ending as English
    adjectives and adverbs do (:data:`_ENGLISH_ENDINGS`)."""
    core = word.rstrip(_TRAILING_PUNCTUATION)
    return (
        len(core) >= PLAIN_PASSWORD_MIN_CHARS
        and core.isascii()
        and core.isalpha()
        and core.islower()
        and not _tells(core)
        and core not in _NOT_A_PLAIN_PASSWORD
        and not core.endswith(_ENGLISH_ENDINGS)
    )


_CLAUSE_ENDS_HERE = re.compile(
    r"[.!?,;:)\]]*(?:[ \t]*(?:\n|\Z)|[.!?,;:)\]][ \t]|[\"'`])"
    r"|(?=[ \t]+(?i:and|but|or|so|then|because|since|while|which|unless|until|if|when"
    r"|where|once)(?![A-Za-z0-9_'-]))"
)
"""After a value: the end of its clause, as :data:`_CLAUSE_END` has it but for a dash or
a bracket (``password is sunshine.``, ``… sunshine, then``, ``… sunshine and``)."""


def _ends_its_clause(match: re.Match[str]) -> bool:
    """Whether the value ``match`` took is the last word of its clause (nothing of the
    sentence follows it but a conjunction: "the password is sunshine for now" keeps it)."""
    return _CLAUSE_ENDS_HERE.match(match.string, match.end()) is not None


_NOTE = re.compile(r"[(\[][A-Za-z][A-Za-z _.-]*[)\]]?")
"""A note in brackets standing where a value would be: ``(hidden)``, ``[REDACTED]``,
``(not set``."""
_GENERIC_TYPE = re.compile(r"[A-Za-z_][\w.]*\[[\w., |\[\]]*\]?")
"""A generic type in an annotation: ``Optional[str]``, ``dict[str, str]``."""


def _is_literal_word(word: str) -> bool:
    """A word written out as a value: :func:`_is_value`, not a bracketed note
    (:data:`_NOTE`), a path or URL, code (a call, an index, an attribute chain, a generic
    type), a redaction marker, or an operator without a letter or digit (``=``, ``->``)."""
    core = word.strip().rstrip(_TRAILING_PUNCTUATION)
    return (
        _is_value(core)
        and _NOTE.fullmatch(core) is None
        and _PATH_OR_URL.match(core) is None
        and not core.startswith(("~", "http"))
        and _CODE_VALUE.match(core) is None
        and not core.endswith(("(", "["))
        and _ATTRIBUTE_CHAIN.fullmatch(core) is None
        and _GENERIC_TYPE.fullmatch(core) is None
        and MARKER_PATTERN.search(core) is None
        and any(c.isalnum() for c in core)
    )


PASSPHRASE_MIN_WORDS = 3
"""Words a bare value of plain words needs to count as a passphrase: "the wifi password is
blue sky forty" is one, "password: see below" is not (two plain words are too often an
instruction)."""
PASSPHRASE_MIN_WORDS_TELLING = 4
"""Words a passphrase starting with a telling word (:func:`_tells`) needs: "my password is
correct horse battery staple" (the four words of xkcd 936, "Password Strength") is one,
"the password is correct" and "the password is plain text" are not."""


def _gives_a_passphrase(value: str) -> bool:
    """Whether a bare clause after a password's noun and a verb (``… is``, ``…:``) gives a
    passphrase of several words. The clause's *run* is its words up to the first of
    :data:`_PROSE_WORDS`. It gives one when the run has two words or more, every word of
    it is a literal (:func:`_is_literal_word`), no word after its first tells
    (:func:`_tells`), and it is long enough: :data:`PASSPHRASE_MIN_WORDS_TELLING` words
    when its first word tells, else :data:`PASSPHRASE_MIN_WORDS` (or two, one of them
    made up). A run of one word is left to :data:`_PASSWORD_PROSE_BARE`: a made-up word
    alone is the secret and the prose after it stays readable; a plain word followed by
    more ("Password: Enter your password") is an instruction."""
    if MARKER_PATTERN.search(value):
        return False  # gated already: what is left was judged no secret
    run: list[str] = []
    for word in value.split():
        if word.rstrip(_TRAILING_PUNCTUATION).lower() in _PROSE_WORDS:
            break
        run.append(word)
    if len(run) < 2 or not all(_is_literal_word(word) for word in run):
        return False
    if any(_tells(word) for word in run[1:]):
        return False
    if _tells(run[0]):
        return len(run) >= PASSPHRASE_MIN_WORDS_TELLING
    return len(run) >= PASSPHRASE_MIN_WORDS or any(_looks_like_a_password(w) for w in run)


def _password_in_prose(match: re.Match[str]) -> bool:
    """A quoted value that is a literal (:func:`_is_value`, not a note), a clause that
    gives a passphrase (:func:`_gives_a_passphrase`), or a bare word that
    :func:`_looks_like_a_password`."""
    value = match.group("secret")
    if match.re is _PASSWORD_PROSE_QUOTED:
        return _is_value(value) and _NOTE.fullmatch(value.strip()) is None
    if match.re is _PASSWORD_PROSE_CLAUSE:
        return _gives_a_passphrase(value)
    if match.re is _PASSWORD_PROSE_NEXT and (
        value.lower() in _PROSE_VERBS or _NETRC_LOGIN.search(match.string, 0, match.start())
    ):
        return False  # "password is …" reads on; "login u password pw" is netrc's
    if _looks_like_a_password(value):
        return True
    # A plain word is the password when it completes "password is …" alone, or stands
    # in "use … as the password"; after the noun alone ("password reset") it never is.
    if match.re is _PASSWORD_PROSE_AS:
        return _is_plain_password(value)
    return (
        match.re is _PASSWORD_PROSE_BARE and _is_plain_password(value) and _ends_its_clause(match)
    )


_NETRC_LOGIN = re.compile(r"(?:login|account|port)[ \t\r\n]+[^\s]+[ \t\r\n]+\Z")


_PROSE_VERBS = frozenset({"is", "was", "to", "be", "set", "for", "of", "on"})
"""Words after "password" that the other prose patterns read."""


# --- registry credentials, Discord, Twilio, secret-named assignments ---------------------

_B64_RUN = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def _b64_decoded(value: str, *, urlsafe: bool = False) -> bytes | None:
    """``value`` decoded as base64 (RFC 4648 §4, or §5 with ``urlsafe``), padding optional;
    ``None`` when it is not base64."""
    body = value.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        if urlsafe:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _is_basic_credentials(value: str) -> bool:
    """``value`` is base64 of ``user:password`` (RFC 7617 §2): it decodes to printable
    UTF-8 holding a ``:`` after at least one character — how Docker's ``config.json`` and
    containers-auth.json(5) store a registry login in ``auth``."""
    if len(value) < 4 or _B64_RUN.fullmatch(value) is None:
        return False
    decoded = _b64_decoded(value)
    if decoded is None:
        return False
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return text.find(":") > 0 and text.isprintable()


_REGISTRY_TOKEN_NAMES = frozenset({"identitytoken", "registrytoken"})
"""Docker ``AuthConfig`` fields that hold a token whatever it looks like (docker/cli
``cli/config/types/authconfig.go``: ``identitytoken`` — an OAuth refresh token a
registry issued at login — and ``registrytoken``, a bearer token)."""


def _registry_credential(match: re.Match[str]) -> bool:
    """An ``auth`` holding base64 ``user:password`` (:func:`_is_basic_credentials`), an
    ``identitytoken``/``registrytoken`` holding any literal value of at least 8 characters
    (:func:`_is_value`), or a base64 run whose JSON holds ``"auths"`` (a Kubernetes
    ``.dockerconfigjson``: the whole ``config.json`` encoded)."""
    value = match.group("secret")
    name = match.groupdict().get("name")
    if name is None:
        decoded = _b64_decoded(value)
        return decoded is not None and b'"auths"' in decoded
    if name.lower().replace("_", "") in _REGISTRY_TOKEN_NAMES:
        return len(value) >= 8 and _is_value(value)
    return _is_basic_credentials(value)


_DISCORD_BOT = re.compile(
    r"(?<![A-Za-z0-9_-])(?P<secret>[MNO][A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6,7}"
    r"\.[A-Za-z0-9_-]{27,40})(?![A-Za-z0-9_-])"
)


def _is_discord_bot_token(span: str) -> bool:
    """The first of the token's three parts is the bot's user id — a snowflake of 17 to
    20 decimal digits (Discord "API Reference", Snowflakes) — in base64url: that is what
    tells a bot token from another dotted run of the same shape."""
    decoded = _b64_decoded(span.split(".", 1)[0], urlsafe=True)
    return decoded is not None and decoded.isdigit() and 17 <= len(decoded) <= 20


_SECRET_NAME_WORDS = frozenset(
    {"secret", "token", "password", "passwd", "pwd", "passphrase", "credential"}
    | {"credentials", "apikey", "secretkey", "privatekey", "accesskey", "authkey"}
    | {"masterkey", "signingkey", "encryptionkey"}
)
"""Words (split at ``_ - .`` and camelCase, compared lower-case) that make a name hold a
secret whatever the value looks like: ``SECRET_KEY``, ``AUTH_TOKEN``, ``apiKey``."""
_NOT_A_SECRET_KEY = frozenset(
    {"public", "pub", "sort", "cache", "primary", "foreign", "partition", "hash", "row"}
    | {"shard", "routing", "index", "lookup", "group", "idempotency", "dedup", "dedupe"}
    | {"object", "map", "hot", "short", "cut", "host", "known", "unique", "composite"}
    | {"natural", "surrogate", "column", "field", "dict", "json", "item", "s3", "redis"}
    | {"kv", "lock", "translation", "i18n", "react", "env", "config", "storage", "table"}
)
"""Words before ``key`` in an upper-case (``.env``) name that make it a lookup or a public
key, not a secret (``SORT_KEY``, ``CACHE_KEY``, ``PRIMARY_KEY``, ``PUBLIC_KEY``); any
other word counts (``STRIPE_KEY``, ``MAILGUN_KEY``). (``storage``: an object's path in a
bucket; Azure's account key is caught by the entropy rule.)"""
_SECRET_KEY_QUALIFIERS = frozenset(
    {"api", "secret", "private", "access", "signing", "sign", "encryption", "encrypt"}
    | {"decryption", "master", "auth", "client", "app", "application", "session"}
    | {"webhook", "service", "account", "hmac", "jwt", "cookie", "consumer", "deploy"}
    | {"admin", "license", "licence", "crypto", "cipher", "aes", "subscription", "shared"}
    | {"server", "bot", "secure", "root", "ssh", "gpg", "pgp", "write", "live", "billing"}
)
"""Words before ``key`` in a lower- or mixed-case name (code, JSON, YAML, flags) that make
it a secret's (``api_key``, ``secretKey``, ``--signing-key``): code names keys of every
kind (``primary_key``, ``invalid-key``, ``shortcut_key``), so only these count there; a
high-entropy value after any ``key`` is still the entropy rule's."""
_ABOUT_A_SECRET = _NOT_A_PASSWORD | frozenset(
    {"name", "names", "arn", "id", "ids", "ttl", "lifetime", "limit", "limits", "size"}
    | {"header", "prefix", "suffix", "scope", "scopes", "version", "format", "kind"}
    | {"store", "backend", "provider", "source", "location", "endpoint", "interval"}
    | {"rotation", "usage", "budget", "fingerprint", "algorithm", "alg", "bits", "hash"}
    | {"digest", "ref", "exists", "set", "present", "missing", "valid", "invalid"}
)
"""Words that, after a name's secret word, say the value is about the secret (its file,
name, lifetime, size) rather than the secret: ``SECRET_KEY_FILE``, ``TOKEN_TTL``,
``SECRET_NAME``, ``ACCESS_KEY_ID``."""
_COUNTING = frozenset({"max", "min", "num", "total", "used", "remaining", "count", "n"})
"""Words that, before a name's secret word, make it a count: ``MAX_TOKEN``."""


def _is_secret_name(name: str) -> bool:
    """A name that holds a secret: its last word of :data:`_SECRET_NAME_WORDS`, or its
    last ``key`` after a word not in :data:`_NOT_A_SECRET_KEY` (an upper-case name) or in
    :data:`_SECRET_KEY_QUALIFIERS` (any other; a bare ``key`` is a dictionary's), with no
    word of :data:`_ABOUT_A_SECRET` after it and none of :data:`_COUNTING` before it."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    upper = not any(c.islower() for c in name)
    found = -1
    for index, word in enumerate(words):
        if word in _SECRET_NAME_WORDS:
            found = index
        elif word == "key" and index > 0:
            before = words[index - 1]
            if (before not in _NOT_A_SECRET_KEY) if upper else (before in _SECRET_KEY_QUALIFIERS):
                found = index
    return (
        found >= 0
        and _ABOUT_A_SECRET.isdisjoint(words[found + 1 :])
        and _COUNTING.isdisjoint(words[:found])
    )


def _is_literal(value: str) -> bool:
    """A value written out, not a placeholder — as :func:`_is_value`, except that a
    value only *starting* with ``$`` or ``%`` counts (random secrets use those symbols:
    Django's ``get_random_secret_key`` alphabet holds ``!@#$%^&*(-_=+)``); a variable
    (``$NAME``, ``${…}``, ``$(…)``, ``$NAME/…``), ``%NAME%`` and ``%(name)s`` do not."""
    core = value.strip().rstrip(",;)]}")
    if _PLACEHOLDER.fullmatch(core) is not None:
        return False
    if core.startswith(("$", "%")):
        return core.lower() not in _NOT_A_VALUE and core != ""
    return _is_value(value)


_PLACEHOLDER = re.compile(
    r"\$(?:\{[^}]*\}?|\([^)]*\)?|[A-Za-z_][A-Za-z0-9_]*(?:/.*)?)"
    r"|%[A-Za-z_][A-Za-z0-9_]*%|%\([A-Za-z_][A-Za-z0-9_]*\)[a-z]",
    re.DOTALL,
)
"""A shell or ``%`` variable standing for the value (perhaps the start of a path built
from it): ``$TOKEN``, ``${TOKEN}``, ``$(cat f)``, ``$HOME/.key``, ``%TOKEN%``,
``%(token)s``."""


_CODE_VALUE = re.compile(
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:[(\[][ \t]*[\"'`]|\([ \t]*\)[,;)\]}]*\Z)"
)
"""Code that fetches the value: a call or index with a quoted argument
(``os.getenv("…")``, ``os.environ['…']``, ``config('…')``) or a call without one
(``get_secret()``); a value that merely holds ``(`` (``k8(x…``, a random secret) is not."""
_PATH_OR_URL = re.compile(r"(?:/|~/|\./|\.\./|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*://)")
"""A value that names a file or a location (``/run/secrets/key``, ``https://…``)."""


def _secret_assignment(match: re.Match[str]) -> bool:
    """A secret's name (:func:`_is_secret_name`) given a literal value (:func:`_is_literal`)
    that is neither code (a call or index, an attribute chain, the name itself), nor a path
    or URL, nor holding a redaction marker (so gating gated text changes nothing).
    Unquoted, a lower- or mixed-case name (code, flags, YAML) needs a value with a digit
    or a symbol that is not a UUID, so ``api_key=api_key``, ``token=tok`` and an id stay;
    an upper-case one (a ``.env`` line) takes any value."""
    name, value = match.group("name"), match.group("secret")
    core = value.strip().rstrip(",;)]}")
    if not (_is_secret_name(name) and _is_literal(value)) or MARKER_PATTERN.search(value):
        return False  # a marker in it: gated already, and what is left was judged no secret
    if _PATH_OR_URL.match(core) or _CODE_VALUE.match(value.strip()):
        return False
    unquoted = match.re in _SECRET_ASSIGNED_UNQUOTED or match["bare"] is not None
    after = match.string[match.end("secret") : match.end("secret") + 1]
    if unquoted and core.endswith(("(", "[")) and after in ('"', "'", "`"):
        return False  # cut at the quote of a call's argument: ``os.getenv("…")``
    if core.lower() == name.strip("-.").lower() or _ATTRIBUTE_CHAIN.fullmatch(core):
        return False
    if unquoted and any(c.islower() for c in name):
        return _WORDISH.fullmatch(core) is None and _UUID.fullmatch(core) is None
    return True


_WORDISH = re.compile(r"[A-Za-z_.]+")
"""A value of letters, ``_`` and ``.`` only: an identifier in code, not a secret."""


_SECRET_NAME = (
    r"[A-Za-z0-9_.-]{0,64}?(?i:key|secret|token|passw(?:or)?d|pwd|credential|passphrase)"
    r"[A-Za-z0-9_.-]{0,64}"
)
_UNQUOTED_CHAR = r"[^\s\"'`\\;&|]"
"""A character of an unquoted value given to a secret's name in code or a command: up to
a blank, a quote, a backslash (an escaped line break of JSON text) or ``;``/``&``/``|``,
which end a command, a query parameter or a connection string's field."""
_SECRET_ASSIGNED = re.compile(
    rf"(?<![A-Za-z0-9_.-])(?<!\[REDACTED:)(?P<name>-{{0,2}}{_SECRET_NAME})(?![A-Za-z0-9_.-])"
    r"(?:(?P<bare>=)(?![=\"'\\])"
    r"|(?:\\?[\"'])?[ \t]*(?::=|=>|:|=(?!=))[ \t]*(?P<esc>\\)?(?:(?P<dq>\")|'))"
    rf"(?P<secret>(?(bare){_UNQUOTED_CHAR}{{1,{_VALUE_LIMIT}}}(?!{_UNQUOTED_CHAR})"
    rf"|(?(esc)(?:[^\"\\\n]|\\[^\"\n]){{1,{_VALUE_LIMIT}}}(?=\\\"|\n|\Z)"
    rf"|(?(dq)(?:[^\"\\\n]|\\.){{1,{_VALUE_LIMIT}}}(?=\"|\n|\Z)"
    rf"|[^'\n]{{1,{_VALUE_LIMIT}}}(?='|\n|\Z)))))"
)
"""A secret's name, then either ``=`` right after it and an unquoted value
(:data:`_UNQUOTED_CHAR`: ``api_key=…&page=2``, ``--api-key=…``), or ``=``, ``:``, ``:=``
or ``=>`` (blanks around allowed) and a quoted value: double-quoted (JSON escapes inside),
inside an escaped JSON string (``\\"…\\"``) or single-quoted; a quoted value without
its closing quote runs to the end of the line (a cut excerpt). One pattern for all, so
the name is looked for once."""
_SECRET_ASSIGNED_ENV = re.compile(
    r"(?<![A-Za-z0-9_.-])(?<!\[REDACTED:)"
    r"(?P<name>[A-Z0-9_]{0,64}?(?:KEY|SECRET|TOKEN|PASSW(?:OR)?D|PWD|CREDENTIALS?|PASSPHRASE)"
    rf"[A-Z0-9_]{{0,64}})(?![A-Za-z0-9_.-])=(?![\"'\\])"
    rf"(?P<secret>[^\s\"'`\\]{{1,{_VALUE_LIMIT}}})(?![^\s\"'`\\])"
)
"""An upper-case name as a ``.env`` file writes it, ``=``, the value up to a blank, a
quote or a backslash, whatever else it holds (``SECRET_KEY=k#8!@#%^&*…``: ``;``, ``&``,
``|`` and a leading ``=`` are the secret's own characters there)."""
_SECRET_ASSIGNED_YAML = re.compile(
    rf"^[ \t]*(?:-[ \t]+)?(?P<name>{_SECRET_NAME}):[ \t]+(?![|>&*!])"
    rf"(?P<secret>[^\s\"'`\\]{{1,{_VALUE_LIMIT}}})[ \t]*$",
    re.MULTILINE,
)
"""A YAML mapping line whose value is one unquoted word (``client_secret: k#8!@…``); a
block scalar, anchor, alias or tag (``|``, ``>``, ``&``, ``*``, ``!``) is not a value."""
_SECRET_ASSIGNED_UNQUOTED = (_SECRET_ASSIGNED_ENV, _SECRET_ASSIGNED_YAML)


# --- secrets given in prose and on command lines ---------------------------------------

_SECRET_NOUN = (
    r"(?:(?i:api|access|auth|secret|signing|session|jwt|client|bearer|bot|app|master"
    r"|encryption|refresh|webhook|deploy|admin|service)[ \t-]?(?i:key|token|secret)"
    r"|(?i:apikey|token|secret))(?![A-Za-z0-9_-])"
)
"""A secret's noun in prose: ``secret``, ``token``, ``apikey``, or ``key``/``token``/
``secret`` after a word that makes it a credential (``api key``, ``jwt secret``, ``access
token``). A bare ``key`` is not one ("the key is to cache it"), nor a name joined by ``_``
(``api_token: …`` is code or YAML, which ``secret-assignment`` reads)."""
_SECRET_PROSE_LEAD = (
    r"(?=[AaBbCcDdEeJjMmRrSsTtWw])(?<![A-Za-z0-9_.-])"
    + _SECRET_NOUN
    + _FOR_THING
    + r"(?:"
    + _IT_IS
    + r"|[ \t]*:[ \t]*|[ \t]+(?i:is|was|is[ \t]+now|is[ \t]+still)(?:[ \t]*:)?[ \t]+)"
)
"""A secret's noun (:data:`_SECRET_NOUN`), perhaps ``for <thing>``, then ``, it is``, ``:``
or ``is``/``was``/``is now``/``is still``. The lookahead on the first letter (one a noun
can start with) comes first so that the scan skips most positions at once: the lead is
looked for in every excerpt, and this halves its cost on real transcripts. The patterns
below that start the same way do so for the same reason."""
_SECRET_PROSE = re.compile(
    _SECRET_PROSE_LEAD + r"(?P<quote>[\"'`])?(?P<secret>(?(quote)[^\s\"'`]{1,256}(?=[\"'`])"
    r"|[^\s\"'`]{5,255}[^\s\"'`.,;:!?)\]}](?=[.,;:!?)\]}]*(?:\s|[\"'`]|\Z))))"
)
"""The lead, then one word: quoted, whole up to its closing quote; bare, as :data:`_WORD`
(one pattern for both, so the text is scanned for the lead once)."""
_SET_SECRET_TO = (
    r"(?=[SsCcUuRr])(?<![A-Za-z0-9_.-])(?i:set|change|update|rotate|reset)[ \t]+"
    r"(?:(?i:the|my|our|your)[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,64})[ \t]+(?i:to)[ \t]+"
)
"""``set [the] NAME to`` — a secret's or a password's name given a value in words: "set the
DJANGO_SECRET_KEY to …", "change DB_PASSWORD to …"."""
_SET_SECRET_TO_QUOTED = re.compile(_SET_SECRET_TO + _QUOTED)
_SET_SECRET_TO_BARE = re.compile(_SET_SECRET_TO + _WORD)
_SET_SECRET_TO_CLAUSE = re.compile(_SET_SECRET_TO + _CLAUSE)


def _is_secret_word(word: str) -> bool:
    """A word that reads as a token, a key or a secret: made up
    (:func:`_looks_like_a_password`) and holding a digit or a symbol other than ``_`` and
    ``.`` — an identifier (``_currToken``, ``accessToken``) names a variable."""
    core = word.strip().rstrip(_TRAILING_PUNCTUATION)
    return _WORDISH.fullmatch(core) is None and _looks_like_a_password(core)


def _secret_in_prose(match: re.Match[str]) -> bool:
    """A value given to a secret's noun or name in prose: one word, quoted or bare, that
    reads as a secret (:func:`_is_secret_word`; "the secret is to test early", "the
    token is expired" stay). After ``set NAME to`` the name must hold a secret or a
    password (:func:`_is_secret_name`, :func:`_is_password_name`); a password's name
    takes any word that looks made up, or a passphrase (:func:`_gives_a_passphrase`)."""
    value = match.group("secret")
    name = match.groupdict().get("name")
    if name is None:
        return " " not in value.strip() and _is_secret_word(value)
    if _is_password_name(name):
        if match.re is _SET_SECRET_TO_CLAUSE:
            return _gives_a_passphrase(value)
        if match.re is _SET_SECRET_TO_QUOTED:
            return _is_value(value) and _NOTE.fullmatch(value.strip()) is None
        return _looks_like_a_password(value) or (
            _is_plain_password(value) and _ends_its_clause(match)
        )
    if not _is_secret_name(name) or match.re is _SET_SECRET_TO_CLAUSE:
        return False
    return " " not in value.strip() and _is_secret_word(value)


_SECRET_FLAG_WORDS = frozenset({"token", "secret", "apikey", "passphrase", "key"})
"""The last word of a command-line flag that takes a secret: ``--token``, ``--api-key``,
``--client-secret``, ``--passphrase`` (``key`` only where :func:`_is_secret_name` counts
it: ``--api-key``, ``--secret-key``, not ``--key`` or ``--sort-key``)."""
_CONTAINER_TOOL = re.compile(r"(?<![A-Za-z0-9_.-])(?:docker|podman|buildah|nerdctl|buildctl)\b")
"""Tools whose ``--secret`` names a stored secret (``docker build --secret id=npm,src=…``,
``podman run --secret mysecret``), not the secret itself."""
_FILE_NAME = re.compile(
    r"[\w.-]+\.(?:json|ya?ml|txt|pem|key|env|cfg|conf|ini|toml|p12|pfx|crt|jks|asc|gpg)"
)
"""A value that names a file (``--token tok.txt``): where the secret is, not the secret."""
_SECRET_FLAG = (
    r"(?=-)(?<![A-Za-z0-9_.-])(?P<name>--[A-Za-z][A-Za-z0-9_-]{0,64})(?![A-Za-z0-9_.=-])[ \t]+(?!-)"
)
_SECRET_FLAG_PATTERNS = tuple(
    re.compile(_SECRET_FLAG + value)
    for value in (
        rf"'(?P<secret>[^'\n]{{1,{_VALUE_LIMIT}}})(?='|\n|\Z)",
        rf'"(?P<secret>[^"\n]{{1,{_VALUE_LIMIT}}})(?="|\n|\Z)',
        rf"(?P<secret>{_PLAIN}{{1,{_VALUE_LIMIT}}})(?!{_PLAIN})",
    )
)
"""A long flag and its next argument (quoted, or unquoted up to a blank, quote or
separator): ``--token S3cretT0kenValue``, ``--api-key '…'``."""


def _secret_flag(match: re.Match[str]) -> bool:
    """A flag whose last word takes a secret (:data:`_SECRET_FLAG_WORDS`,
    :func:`_is_secret_name`) given a literal value (:func:`_is_literal`) that reads as a
    secret (:func:`_is_secret_word`: not ``TOKEN``, ``YOUR_API_KEY``, ``...``, ``to``) and
    is not code, a path, a URL, a file name, a redaction marker, nor ``key=value`` options
    (``docker build --secret id=…,src=…``); a container tool's ``--secret`` names a stored
    secret."""
    name, value = match.group("name"), match.group("secret")
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    if not words or words[-1] not in _SECRET_FLAG_WORDS or not _is_secret_name(name):
        return False
    core = value.strip()
    if not _is_literal(core) or MARKER_PATTERN.search(core) or "=" in core:
        return False
    if _PATH_OR_URL.match(core) or _CODE_VALUE.match(core) or _FILE_NAME.fullmatch(core):
        return False
    if not _is_secret_word(core):
        return False
    if words == ["secret"]:
        line_start = match.string.rfind("\n", 0, match.start()) + 1
        if _CONTAINER_TOOL.search(match.string, line_start, match.start()):
            return False
    return True


_RULES: tuple[_Rule, ...] = (
    # RFC 7468 §2 (PKCS #8 / PKCS #1 / SEC 1 labels), OpenSSH PROTOCOL.key ("OPENSSH
    # PRIVATE KEY"), RFC 4880 §6.2 ("PGP PRIVATE KEY BLOCK"): the whole armored block.
    # Found by _pem_blocks, not by a pattern.
    _Rule("private-key", ()),
    # AWS IAM User Guide, "IAM identifiers" → unique ID prefixes: AKIA = access key,
    # ASIA = temporary (STS) access key; the id is 20 upper-case letters and digits.
    _Rule(
        "aws-access-key", (re.compile(r"(?<![A-Za-z0-9])(?P<secret>(?:AKIA|ASIA)[A-Z0-9]{16})"),)
    ),
    # AWS IAM User Guide, "Managing access keys": the secret access key is 40 characters
    # of base64 ([A-Za-z0-9/+]); the AWS CLI names it aws_secret_access_key (config file,
    # `aws configure set`), the SDKs' environment AWS_SECRET_ACCESS_KEY, STS responses
    # "SecretAccessKey". The value follows the name after any of = : " ' and blanks, so
    # "KEY value", "KEY=value" and JSON all count; a longer run is taken whole.
    _Rule(
        "aws-secret-key",
        (
            re.compile(
                r"(?i:(?:aws[_-]?)?secret[_-]?access[_-]?key)[\s\"'=:>\\]{1,8}"
                r"(?P<secret>[A-Za-z0-9/+=]{40,})(?![A-Za-z0-9/+=_-])"
            ),
        ),
        _on_secret(_aws_secret),
    ),
    # github.blog changelog 2021-03-04 "Authentication token format updates" and the
    # engineering post "Behind GitHub's new authentication token formats" (2021):
    # ghp_/gho_/ghu_/ghs_/ghr_ + [A-Za-z0-9_], up to 255 characters in all; fine-grained
    # personal access tokens (2022) are github_pat_ + [A-Za-z0-9_].
    _Rule(
        "github-token",
        (
            re.compile(
                r"(?<![A-Za-z0-9])(?P<secret>gh[pousr]_[A-Za-z0-9_]{36,251}"
                r"|github_pat_[A-Za-z0-9_]{22,244})"
            ),
        ),
    ),
    # Anthropic Console API keys ("sk-ant-api03-…", admin keys "sk-ant-admin01-…").
    _Rule(
        "anthropic-key", (re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})"),)
    ),
    # OpenAI API keys: legacy "sk-" + 48 base62, project keys "sk-proj-…", service
    # account "sk-svcacct-…", admin "sk-admin-…" (platform.openai.com API keys page).
    # Random base62 always mixes digits and both cases; "sk-learn-…" prose does not.
    _Rule(
        "openai-key",
        (re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>sk-(?!ant-)[A-Za-z0-9_-]{20,})"),),
        _on_secret(_has_digit_and_cases),
    ),
    # Slack "Token types" (api.slack.com/authentication/token-types): bot xoxb-, user
    # xoxp-, legacy workspace xoxa-, refresh xoxr-, session xoxs-/xoxc-/xoxd-,
    # configuration xoxe.xoxp-/xoxe-, app-level xapp-; all carry numeric segments.
    _Rule(
        "slack-token",
        (
            re.compile(
                r"(?<![A-Za-z0-9])(?P<secret>(?:xoxe\.)?xox[a-z]-[A-Za-z0-9-]{10,}"
                r"|xapp-[A-Za-z0-9-]{10,})"
            ),
        ),
        _on_secret(_has_digit),
    ),
    # Google Cloud API keys: "AIza" + 35 characters of [A-Za-z0-9_-] (39 in all), as the
    # keys Google Cloud console "Credentials" issues and Firebase configs carry.
    _Rule("google-api-key", (re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>AIza[A-Za-z0-9_-]{35})"),)),
    # Stripe "API keys" (docs.stripe.com/keys): secret keys sk_live_/sk_test_ and
    # restricted keys rk_live_/rk_test_, then a base62 body (24 characters in older keys,
    # longer now); at least 16 are asked for, so a bare prefix in prose is not a key.
    # Publishable keys (pk_live_/pk_test_) are meant to be public: not matched.
    _Rule(
        "stripe-key",
        (re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>[sr]k_(?:live|test)_[A-Za-z0-9]{16,})"),),
    ),
    # Twilio SendGrid "API keys": "SG." + 22 + "." + 43 characters of base64url (69 in
    # all), as the key SendGrid shows once at creation.
    _Rule(
        "sendgrid-key",
        (
            re.compile(
                r"(?<![A-Za-z0-9_.-])(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})"
                r"(?![A-Za-z0-9_-])"
            ),
        ),
    ),
    # Slack "Sending messages using incoming webhooks" (api.slack.com/messaging/webhooks):
    # https://hooks.slack.com/services/T…/B…/<secret>; workflow and trigger URLs
    # (/workflows/…, /triggers/…) carry their secret in the path too. Only the secret part
    # is replaced: the workspace and channel ids stay readable.
    _Rule(
        "slack-webhook",
        (
            re.compile(
                r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/(?P<secret>[A-Za-z0-9]{16,})"
            ),
            re.compile(r"hooks\.slack\.com/(?:workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]{20,})"),
        ),
    ),
    # Issuers' documented token prefixes (each body as the issuer generates it):
    # npm "About access tokens" (npm_ + 36 base62), PyPI "API tokens" (macaroons starting
    # pypi-AgE…: pypi.org "pypi-AgEIcHlwaS5vcmc", test.pypi.org "pypi-AgENdGVzdC5weXBp"),
    # GitLab "Personal access tokens" (glpat- + 20), Hugging Face "User access tokens"
    # (hf_ + 34 letters), DigitalOcean "API tokens" (dop_v1_/doo_v1_/dor_v1_ + 64 hex),
    # Shopify "Access tokens" (shpat_/shpca_/shppa_/shpss_ + 32 hex), Databricks
    # "Personal access tokens" (dapi + 32 hex, optionally -N), age(1) "AGE-SECRET-KEY-1"
    # + 58 bech32 characters, Google OAuth client secrets (GOCSPX- + 28), Square "Access
    # tokens" (EAAA + 60, sq0atp-/sq0csp- + 22–43), Linear API keys (lin_api_ + 40),
    # HashiCorp Vault "Tokens" (service hvs., batch hvb., recovery hvr. + base62), Docker
    # Hub "Personal access tokens" (dckr_pat_), xAI API keys (xai- + base62), Groq API
    # keys (gsk_ + base62), and Telegram Bot API tokens ("<bot id>:<35 characters>",
    # core.telegram.org/bots/api).
    _Rule(
        "service-token",
        (
            re.compile(
                r"(?<![A-Za-z0-9_-])(?P<secret>npm_[A-Za-z0-9]{36}"
                r"|pypi-AgE[A-Za-z0-9_-]{50,}"
                r"|glpat-[A-Za-z0-9_-]{20}"
                r"|hf_[A-Za-z]{34}"
                r"|do[por]_v1_[a-f0-9]{64}"
                r"|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"
                r"|dapi[a-f0-9]{32}(?:-[0-9]+)?"
                r"|GOCSPX-[A-Za-z0-9_-]{28}"
                r"|EAAA[A-Za-z0-9_-]{60}"
                r"|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}"
                r"|lin_api_[A-Za-z0-9]{40}"
                r"|hv[sbr]\.[A-Za-z0-9_-]{24,}"
                r"|dckr_pat_[A-Za-z0-9_-]{20,}"
                r"|xai-[A-Za-z0-9]{40,}"
                r"|gsk_[A-Za-z0-9]{40,})(?![A-Za-z0-9_-])"
            ),
            re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58})"),
            re.compile(r"(?<![\w:-])(?P<secret>[0-9]{8,10}:[A-Za-z0-9_-]{35})(?![\w-])"),
        ),
    ),
    # Container registry logins as Docker's config.json and containers-auth.json(5) keep
    # them (docs.docker.com/reference/cli/docker/login/, "Credential stores"; docker/cli
    # cli/config/types/authconfig.go; github.com/containers/image
    # docs/containers-auth.json.5.md): "auth" is base64 of "user:password" (RFC 7617),
    # "identitytoken"/"registrytoken" a registry's token; a Kubernetes
    # kubernetes.io/dockerconfigjson Secret carries the whole file in base64
    # (kubernetes.io/docs/concepts/configuration/secret/#docker-config-secrets).
    _Rule(
        "registry-auth",
        (
            re.compile(
                r"(?<![A-Za-z0-9_.-])(?<!\[REDACTED:)"
                r"(?P<name>(?i:auth|identity_?token|registry_?token))(?:\\?[\"'])?"
                r"[ \t]*[:=][ \t]*(?P<quote>\\?[\"'])?"
                r"(?P<secret>(?(quote)[^\"'\\\s]{1,8192}(?=\\?[\"'])"
                r"|[A-Za-z0-9+/=._~-]{1,8192}(?![A-Za-z0-9+/=._~-])))"
            ),
            re.compile(
                r"(?<![A-Za-z0-9+/=_-])(?P<secret>e[wy][A-Za-z0-9+/]{14,}={0,2})"
                r"(?![A-Za-z0-9+/=_-])"
            ),
        ),
        _registry_credential,
    ),
    # Discord bot tokens: base64url(bot user id) "." 6 "." 27–38 characters, as
    # trufflehog's DiscordBotToken detector (pkg/detectors/discordbottoken) and
    # detect-secrets' DiscordBotTokenDetector match them ([MNO]…: a snowflake's first digit
    # in base64), sent as "Authorization: Bot <token>"
    # (discord.com/developers/docs/reference#authentication); webhook URLs
    # discord.com/api/webhooks/<id>/<token> (discord.com/developers/docs/resources/webhook,
    # trufflehog's DiscordWebhook detector): only the token part is replaced.
    _Rule(
        "discord-token",
        (
            _DISCORD_BOT,
            re.compile(
                r"discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks/[0-9]{17,20}/"
                r"(?P<secret>[A-Za-z0-9_-]{60,80})(?![A-Za-z0-9_-])"
            ),
        ),
        lambda match: match.re is not _DISCORD_BOT or _is_discord_bot_token(match["secret"]),
    ),
    # Twilio (www.twilio.com/docs/iam/api-keys, .../docs/iam/api/account): API key SIDs
    # "SK" + 32 hex (gitleaks twilio-api-key), account SIDs "AC" + 32 hex (trufflehog's
    # Twilio detector, detect-secrets' TwilioKeyDetector), and the secret paired with
    # one — "SK…:<secret>" as HTTP Basic credentials, "SK…", "<secret>" as a client's
    # arguments (32 characters: an API key secret or an auth token).
    _Rule(
        "twilio-key",
        (
            re.compile(r"(?<![A-Za-z0-9])(?P<secret>(?:SK|AC)[0-9a-fA-F]{32})(?![A-Za-z0-9])"),
            re.compile(
                r"(?<![A-Za-z0-9])(?:SK|AC)[0-9a-fA-F]{32}[\"']?[ \t]*[:,][ \t]*[\"']?"
                r"(?P<secret>[A-Za-z0-9]{32})(?![A-Za-z0-9])"
            ),
        ),
    ),
    # RFC 7519 §3 / RFC 7515 §7.1 compact serialisation: base64url(header) "."
    # base64url(payload) "." signature; both JSON objects start '{"' → "eyJ". The
    # signature is empty for an unsecured JWT (RFC 7519 §6).
    _Rule(
        "jwt",
        (
            re.compile(
                r"(?<![A-Za-z0-9_-])(?P<secret>eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}"
                r"\.[A-Za-z0-9_-]*)"
            ),
        ),
    ),
    # RFC 9110 §11.6.2 Authorization header (name case-insensitive); RFC 6750 §2.1 bearer
    # credentials are b64token = 1*(ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/")
    # *"="; RFC 7617 Basic credentials are base64(user:password). Shell variables
    # ("$TOKEN"), placeholders ("<token>") and plain words ("header") are not secrets.
    _Rule(
        "bearer-token",
        (
            re.compile(
                r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer|basic|bot|token)\s+"
                r"(?P<secret>[A-Za-z0-9._~+/-]+=*)"
            ),
        ),
        _on_secret(_not_a_word),
    ),
    # RFC 3986 §3.2.1 userinfo "user:password" (deprecated, still common in database
    # URLs and git remotes): only the password is replaced; up to the last "@" before
    # the host, since people write unescaped "@" in passwords.
    _Rule(
        "url-credentials",
        (
            re.compile(
                r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\"'<>]*:"
                r"(?P<secret>[^\s/?#\"'<>]+)@(?=[A-Za-z0-9\[])"
            ),
        ),
        _on_secret(_not_a_placeholder),
    ),
    # A name containing key/secret/token/password given a high-entropy value (see
    # is_high_entropy): assigned with =, :, := or => (env files, shell, JSON, YAML,
    # code), or a --flag followed by a space. The name is one whole token holding the
    # keyword, anchored and bounded, so a long base64 run costs linear time; a rejected
    # value is skipped whole (an assignment nested inside a low-entropy value run,
    # "k=aaaa…/token=…", is the one case not looked into).
    _Rule(
        "entropy-assignment",
        (
            re.compile(
                rf"(?<![A-Za-z0-9_.-])(?P<name>{_NAME})(?![A-Za-z0-9_.-])[\"']?"
                rf"\s*(?::=|=>|=|:)\s*{_VALUE}"
            ),
            re.compile(rf"(?<![A-Za-z0-9_.-])(?P<name>--?(?=[A-Za-z]){_NAME})[\"']?\s+{_VALUE}"),
            _ENTROPY_SPACED,
        ),
        _entropy_assignment,
        skip_rejected=True,
    ),
    # Any value given to a password: `NAME=value`, `name: value` (env files, YAML, JSON,
    # connection strings "Password=…;", query strings "&password=…", OpenSSL's
    # "pass:…" (openssl-passphrase-options(1))) or the next argument of --password,
    # --passwd, --pass; short and low-entropy ones too, placeholders excepted (_is_value).
    _Rule(
        "password",
        (*_password_values(_PASSWORD_ASSIGNED), *_password_values(_PASSWORD_FLAG)),
        _password,
    ),
    # Any value given to a name that says it holds a secret (SECRET_KEY, AUTH_TOKEN,
    # client_secret, apiKey; see _is_secret_name), whatever characters it holds: a .env
    # line or shell assignment (up to a blank), a quoted value in code, JSON or YAML, a
    # one-word YAML value. The entropy rule reads only [A-Za-z0-9+/=_-]; a random secret
    # with symbols (Django's get_random_secret_key: "!@#$%^&*(-_=+)") needs this one.
    _Rule(
        "secret-assignment",
        (_SECRET_ASSIGNED, *_SECRET_ASSIGNED_UNQUOTED),
        _secret_assignment,
    ),
    # A password written in prose: "my password is Hunter-42-Correct-Horse", "the db
    # password for staging was `x`", "set the passphrase to …", "never print the
    # password, it is …". Quoted values count whatever they hold; a bare word counts when
    # it looks made up (see _looks_like_a_password), a clause of plain words when it is a
    # passphrase (see _gives_a_passphrase), so "the password is stored in the vault" stays.
    _Rule(
        "password-prose",
        (
            _PASSWORD_PROSE_QUOTED,
            _PASSWORD_PROSE_CLAUSE,
            _PASSWORD_PROSE_BARE,
            _PASSWORD_PROSE_AS,
            _PASSWORD_PROSE_NEXT,
        ),
        _password_in_prose,
    ),
    # netrc(5) (GNU inetutils, curl's and git's ~/.netrc / _netrc): tokens "machine
    # <host>" (or "default"), "login <name>", "account <string>", "port <n>" and
    # "password <string>", separated by blanks or newlines; the string after "password".
    _Rule("netrc-password", (_NETRC_PASSWORD,), _on_secret(_is_value)),
    # Passwords in a client's command line: mysql(1) / mariadb(1) and their tools take
    # the password attached to -p ("-pSECRET"; a bare -p prompts for it); curl(1) -u /
    # --user and wget -u take "user:password" (a bare user prompts); redis-cli's -a takes
    # the password itself.
    _Rule("cli-password", _CLI_PASSWORD_PATTERNS, _on_secret(_is_value)),
    # A secret given in prose: "my api key is …", "jwt secret: …", "the token, it is …",
    # "set the DJANGO_SECRET_KEY to …" (see _secret_in_prose).
    _Rule(
        "secret-prose",
        (
            _SECRET_PROSE,
            _SET_SECRET_TO_QUOTED,
            _SET_SECRET_TO_BARE,
            _SET_SECRET_TO_CLAUSE,
        ),
        _secret_in_prose,
    ),
    # A secret given to a command-line flag: --token, --api-key, --client-secret, --secret
    # followed by its argument (see _secret_flag).
    _Rule("cli-secret", _SECRET_FLAG_PATTERNS, _secret_flag),
)

RULE_IDS: tuple[str, ...] = tuple(rule.rule for rule in _RULES)
"""The twenty-six rule ids in priority order: ``private-key``, ``aws-access-key``,
``aws-secret-key``, ``github-token``, ``anthropic-key``, ``openai-key``, ``slack-token``,
``google-api-key``, ``stripe-key``, ``sendgrid-key``, ``slack-webhook``, ``service-token``,
``registry-auth``, ``discord-token``, ``twilio-key``, ``jwt``, ``bearer-token``,
``url-credentials``, ``entropy-assignment``, ``password``, ``secret-assignment``,
``password-prose``, ``netrc-password``, ``cli-password``, ``secret-prose``, ``cli-secret``.
Stable: they appear in redaction markers."""


def _outside(start: int, end: int, markers: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` that lie outside every existing marker."""
    pieces: list[tuple[int, int]] = []
    cursor = start
    for m_start, m_end in markers:
        if m_end <= cursor or m_start >= end:
            continue
        if m_start > cursor:
            pieces.append((cursor, m_start))
        cursor = max(cursor, m_end)
    if cursor < end:
        pieces.append((cursor, end))
    return pieces


def _starts_in_marker(start: int, markers: list[tuple[int, int]]) -> bool:
    """Whether ``start`` lies strictly inside a marker: a match that begins in a marker's
    own text (``curl -u [REDACTED:stripe-key:…]:`` read as user ``[REDACTED`` and
    password ``stripe-key:…]:``) is not a secret, and must not leave a tail behind."""
    return any(m_start < start < m_end for m_start, m_end in markers)


def _candidates(text: str) -> list[tuple[int, int, int]]:
    """Every secret span the rules accept, as ``(start, end, rule priority)``."""
    markers = [m.span() for m in MARKER_PATTERN.finditer(text)]
    found: list[tuple[int, int, int]] = []
    for start, end in _pem_blocks(text)[0]:
        found.extend((s, e, 0) for s, e in _outside(start, end, markers))
    for priority, rule in enumerate(_RULES):
        for pattern in rule.patterns:
            pos = 0
            while (match := pattern.search(text, pos)) is not None:
                start, end = match.span("secret")
                if not _starts_in_marker(start, markers) and (
                    rule.accept is None or rule.accept(match)
                ):
                    found.extend((s, e, priority) for s, e in _outside(start, end, markers))
                    pos = max(match.end(), match.start() + 1)
                elif rule.skip_rejected:
                    pos = max(match.end(), match.start() + 1)
                else:
                    # a rejected match may hide an acceptable one starting inside it
                    pos = match.start() + 1
    return found


def _merge(found: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Overlapping spans merged into one (so no tail of a secret survives); the merged
    span is named by the highest-priority rule among them."""
    merged: list[tuple[int, int, int]] = []
    for start, end, priority in sorted(found):
        if merged and start < merged[-1][1]:
            m_start, m_end, m_priority = merged[-1]
            merged[-1] = (m_start, max(m_end, end), min(m_priority, priority))
        else:
            merged.append((start, end, priority))
    return merged


_SECTION_LINE = re.compile(r"^[ \t]*\[(?!REDACTED:)[^\]\n]+\][ \t]*$", re.MULTILINE)
_AWS_SECRET_LINE = re.compile(r"^[ \t]*aws_secret_access_key[ \t]*[=:]", re.MULTILINE | re.I)
_DOTENV_LINE = re.compile(
    r"^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.]*)=(?P<value>\S[^\n]*)", re.M
)
_DOTENV_SECRETISH = re.compile(r"key|secret|token|passw(?:or)?d|credential", re.IGNORECASE)

_Spans = list[tuple[int, int, int]]


def _is_dotenv_dump(text: str, found: Callable[[], _Spans]) -> bool:
    """At least :data:`DOTENV_SECRET_LINES` dotenv lines with secret-ish names, or at
    least :data:`DOTENV_MIN_LINES` dotenv lines of which one has a secret-ish name or a
    value a rule catches. A secret-ish name counts only with a literal value
    (:func:`_is_value`: not ``$API_KEY``, ``<key>``, ``***``, ``false``)."""
    lines = list(_DOTENV_LINE.finditer(text))
    if len(lines) < min(DOTENV_SECRET_LINES, DOTENV_MIN_LINES):
        return False
    secretish = sum(
        1
        for line in lines
        if _DOTENV_SECRETISH.search(line.group("name"))
        and _is_value(line.group("value").strip().strip("\"'"))
    )
    if secretish >= DOTENV_SECRET_LINES:
        return True
    if len(lines) < DOTENV_MIN_LINES:
        return False
    if secretish:
        return True
    starts = [line.start("value") for line in lines]
    for start, end, _ in found():
        index = bisect.bisect_right(starts, start) - 1  # the last value starting at or before
        if index >= 0 and start < lines[index].end("value"):
            return True
        if index + 1 < len(lines) and starts[index + 1] < end:
            return True  # the span runs into the next line's value
    return False


def _drop_reason(text: str, found: Callable[[], _Spans]) -> str | None:
    """Why ``text`` holds credential-file contents, or ``None`` (see the module doc);
    ``found`` gives the secret spans of the text, computed only when needed."""
    if "PRIVATE KEY" in text:
        blocks, unpaired = _pem_blocks(text)
        if unpaired:
            return "an incomplete private key block"
        stripped = text.strip()
        if len(blocks) == 1 and blocks[0][1] - blocks[0][0] == len(stripped):
            return "a private key file"
    if _SECTION_LINE.search(text) and _AWS_SECRET_LINE.search(text):
        return "an AWS credentials file"
    if _is_dotenv_dump(text, found):
        return "a .env dump"
    return None


def gate(text: str) -> GatedText:
    """Pass one excerpt through the secret gate.

    Args:
        text: the excerpt (any length; characters, not bytes).

    Returns:
        A :class:`GatedText`: ``text=None`` with ``dropped_reason`` when the excerpt
        holds credential-file contents, else the text with each secret span replaced by
        :func:`marker` and one :class:`Redaction` per replacement, in text order.
        ``gate(gate(t).text)`` returns the same text and no redactions.
    """
    computed: list[_Spans] = []

    def found() -> _Spans:
        if not computed:
            computed.append(_candidates(text))
        return computed[0]

    reason = _drop_reason(text, found)
    if reason is not None:
        return GatedText(text=None, dropped_reason=reason)
    spans = _merge(found())
    if not spans:
        return GatedText(text=text)
    parts: list[str] = []
    redactions: list[Redaction] = []
    cursor = 0
    for start, end, priority in spans:
        rule = RULE_IDS[priority]
        secret = text[start:end]
        parts.append(text[cursor:start])
        parts.append(marker(rule, secret))
        redactions.append(Redaction(rule=rule, digest=_digest(secret)))
        cursor = end
    parts.append(text[cursor:])
    return GatedText(text="".join(parts), redactions=tuple(redactions))
