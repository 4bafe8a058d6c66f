"""The secret gate: every excerpt of a transcript passes it before driftguard shows it.

Session transcripts hold whatever the tools read (``.env`` files, command output, pasted
keys; formats.md "Privacy"). :func:`gate` takes one excerpt (a prompt, a command line, a
file path, an error line) and returns a :class:`GatedText`:

- a **delimitable secret** is replaced by ``[REDACTED:<rule-id>:<digest>]``, where the
  digest is the first 8 hex digits of the sha256 of the secret span (UTF-8), so two
  mentions of one secret can still be told apart from two different ones;
- an excerpt that **holds credential-file contents** is dropped whole (``text`` is
  ``None``) and ``dropped_reason`` says what it looked like.

Rules (issue #3 item 2), in priority order — when two rules find the same span the
earlier one names it (``Authorization: Bearer eyJ…`` is a ``jwt``):

============================ ==================== ====================================
rule id                      finds                secret span (what is replaced)
============================ ==================== ====================================
``private-key``              PEM private key      the whole block, BEGIN to END line
``aws-access-key``           ``AKIA``/``ASIA`` id the 20-character key id
``github-token``             ``ghp_`` … tokens    the token
``anthropic-key``            ``sk-ant-…``         the key
``openai-key``               ``sk-``/``sk-proj-`` the key
``slack-token``              ``xox?-…``           the token
``google-api-key``           ``AIza…``            the key
``jwt``                      ``eyJ….eyJ….sig``    the token
``bearer-token``             ``Authorization:``   only the credentials after the scheme
                             ``Bearer``/``Basic``
``url-credentials``          ``scheme://u:p@h``   only the password (``p``)
``entropy-assignment``       ``name=value``       only the value
============================ ==================== ====================================

For the last three only the secret value is replaced, so the header, the user and host
of a URL, or the variable's name stay readable (``DB_PASSWORD=[REDACTED:…]``). An
assignment is ``name=value``, ``name: value``, ``name := value``, ``name => value``
(quotes allowed around either) or a command-line flag ``--name value``; the name is one
token containing key/secret/token/password (case-insensitive, so ``tokenizer`` counts,
but its value must still be high-entropy — see :func:`is_high_entropy`). Spans found by
several rules that overlap are merged into one marker, so no tail of a secret survives.

Sources of the patterns: private keys — RFC 7468 §2 (PEM labels), OpenSSH
``PROTOCOL.key`` (``OPENSSH PRIVATE KEY``), RFC 4880 §6.2 (``PGP PRIVATE KEY BLOCK``);
AWS — IAM User Guide, "IAM identifiers", unique ID prefixes (``AKIA`` access key,
``ASIA`` temporary STS key, 20 characters); GitHub — github.blog changelog 2021-03-04
"Authentication token format updates" and "Behind GitHub's new authentication token
formats" (2021): ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + ``[A-Za-z0-9_]``, up to 255
characters, and ``github_pat_`` fine-grained tokens; Anthropic — Console API keys
``sk-ant-api03-…`` / ``sk-ant-admin01-…``; OpenAI — API keys ``sk-…``, ``sk-proj-…``,
``sk-svcacct-…``, ``sk-admin-…``; Slack — "Token types" (api.slack.com): ``xoxb-``,
``xoxp-``, ``xoxa-``, ``xoxr-``, ``xoxs-``, ``xoxc-``, ``xoxd-``, ``xoxe.xoxp-``, ``xapp-``;
Google — Cloud API keys, ``AIza`` + 35 of ``[A-Za-z0-9_-]``; JWT — RFC 7519 §3 and RFC 7515
§7.1 (compact serialisation; ``{"`` encodes as ``eyJ``); Authorization — RFC 9110
§11.6.2, RFC 6750 §2.1 (``b64token``), RFC 7617 (Basic); URL userinfo — RFC 3986
§3.2.1; entropy — C. E. Shannon, "A Mathematical Theory of Communication" (1948).

Whole-excerpt drops (credential-file contents; checked first, on the raw text):
a **private key file** (the excerpt is nothing but one PEM private key block, as
``cat ~/.ssh/id_rsa`` prints it), an **incomplete private key block** (a BEGIN line without
its END line or an END line without its BEGIN — the key cannot be delimited), an
**AWS credentials file** (a ``[profile]`` section line and an ``aws_secret_access_key``
line, as in ``~/.aws/credentials``) and a **.env dump** (at least
:data:`DOTENV_SECRET_LINES` lines of the dotenv form ``NAME=value`` — no space before
``=``, optional ``export`` — whose names contain key/secret/token/password/credential).

Idempotence: text inside an existing ``[REDACTED:…]`` marker is never matched again, and
the drop checks cannot newly fire on gated text (redaction only shortens lines and never
writes a section line, a BEGIN/END line or ``NAME=``), so gating gated text changes
nothing and reports no redactions.

Pure functions, no I/O. Design reference: issue #3 item 2, design.md §6 (``get_handoff``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "DOTENV_SECRET_LINES",
    "ENTROPY_MIN_BITS",
    "ENTROPY_MIN_LENGTH",
    "MARKER_PATTERN",
    "RULE_IDS",
    "GatedText",
    "Redaction",
    "gate",
    "is_high_entropy",
    "marker",
    "shannon_entropy",
]

ENTROPY_MIN_LENGTH = 24
"""Characters a value needs before it can count as high-entropy (issue #3)."""
ENTROPY_MIN_BITS = 4.0
"""Shannon entropy a value must exceed, in bits per character (issue #3)."""
DOTENV_SECRET_LINES = 2
"""Dotenv lines with secret-ish names from which an excerpt counts as a ``.env`` dump."""

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
    """Issue #3's "high-entropy" value: ≥ 24 characters, all from ``[A-Za-z0-9+/=_-]``,
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
    secret span, and ``accept`` vets that span. ``skip_rejected``: a rejected match is
    skipped whole (its value is one run: retrying inside it would cost quadratic time on
    runs like ``key=key=key=…``), else the search retries one character further on (the
    patterns start with a literal prefix, so that is cheap)."""

    rule: str
    patterns: tuple[re.Pattern[str], ...]
    accept: Callable[[str], bool] | None = None
    skip_rejected: bool = False


_NAME = r"[A-Za-z0-9_.-]{0,64}?(?i:key|secret|token|passw(?:or)?d)[A-Za-z0-9_.-]{0,64}"
_VALUE = r"[\"']?(?P<secret>[A-Za-z0-9+/=_-]{24,})"

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
        _has_digit_and_cases,
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
        _has_digit,
    ),
    # Google Cloud API keys: "AIza" + 35 characters of [A-Za-z0-9_-] (39 in all), as the
    # keys Google Cloud console "Credentials" issues and Firebase configs carry.
    _Rule("google-api-key", (re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>AIza[A-Za-z0-9_-]{35})"),)),
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
                r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer|basic)\s+"
                r"(?P<secret>[A-Za-z0-9._~+/-]+=*)"
            ),
        ),
        _not_a_word,
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
        _not_a_placeholder,
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
        ),
        is_high_entropy,
        skip_rejected=True,
    ),
)

RULE_IDS: tuple[str, ...] = tuple(rule.rule for rule in _RULES)
"""The rule ids in priority order: ``private-key``, ``aws-access-key``, ``github-token``,
``anthropic-key``, ``openai-key``, ``slack-token``, ``google-api-key``, ``jwt``,
``bearer-token``, ``url-credentials``, ``entropy-assignment``. Stable: they appear in
redaction markers."""


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
                if rule.accept is None or rule.accept(match.group("secret")):
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
_DOTENV_LINE = re.compile(r"^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.]*)=\S", re.M)
_DOTENV_SECRETISH = re.compile(r"key|secret|token|passw(?:or)?d|credential", re.IGNORECASE)


def _drop_reason(text: str) -> str | None:
    """Why ``text`` holds credential-file contents, or ``None`` (see the module doc)."""
    if "PRIVATE KEY" in text:
        blocks, unpaired = _pem_blocks(text)
        if unpaired:
            return "an incomplete private key block"
        stripped = text.strip()
        if len(blocks) == 1 and blocks[0][1] - blocks[0][0] == len(stripped):
            return "a private key file"
    if _SECTION_LINE.search(text) and _AWS_SECRET_LINE.search(text):
        return "an AWS credentials file"
    secretish = sum(
        1 for m in _DOTENV_LINE.finditer(text) if _DOTENV_SECRETISH.search(m.group("name"))
    )
    if secretish >= DOTENV_SECRET_LINES:
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
    reason = _drop_reason(text)
    if reason is not None:
        return GatedText(text=None, dropped_reason=reason)
    spans = _merge(_candidates(text))
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
