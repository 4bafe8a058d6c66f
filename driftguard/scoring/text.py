"""Text conventions every factor shares (design.md §5.2), exact.

- lower-case with :meth:`str.lower`; words are :meth:`str.split` tokens;
- lengths are ``len(str)`` (code points);
- "code removed": fenced code blocks (``` or ~~~) are deleted, fences included, as
  CommonMark defines them (spec 0.31 §4.5): an opening fence is a line of at least three
  backticks or tildes indented by at most three spaces (a backtick fence's info string
  holds no backtick); the block ends at a line of the same character, at least as long,
  and nothing else but spaces — or, when unclosed, at the end of the message. Inline code
  (single backticks, or backticks mid-line) stays;
- a phrase matches case-insensitively with ``(?<!\\w)`` before it, ``\\s+`` between its
  words, and ``(?!\\w)`` after it when it ends in a letter or digit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["count_phrases", "phrase_pattern", "remove_code", "word_trigrams", "words"]

_OPENING_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


def remove_code(text: str) -> str:
    """``text`` with every fenced code block deleted, fence lines included (design §5.2)."""
    if "```" not in text and "~~~" not in text:
        return text
    kept: list[str] = []
    fence = ""
    for line in text.splitlines(keepends=True):
        if fence:
            body = line.strip(" \t\r\n")
            if (
                len(line) - len(line.lstrip(" ")) <= 3
                and body.startswith(fence)
                and not (body.strip(fence[0]))
            ):
                fence = ""
            continue
        opening = _OPENING_FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = opening.group(1)
            continue
        kept.append(line)
    return "".join(kept)


def words(text: str) -> list[str]:
    """The lower-cased :meth:`str.split` tokens of ``text`` (design §5.2)."""
    return text.lower().split()


def word_trigrams(text: str) -> frozenset[tuple[str, str, str]]:
    """The set of word trigrams (three consecutive :func:`words`) of ``text``, as is."""
    tokens = words(text)
    return frozenset(zip(tokens, tokens[1:], tokens[2:], strict=False))


@lru_cache(maxsize=64)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """The compiled matcher of ``phrase`` under the design §5.2 phrase rule."""
    body = r"\s+".join(re.escape(part) for part in phrase.split())
    tail = r"(?!\w)" if phrase[-1].isalnum() else ""
    return re.compile(r"(?<!\w)" + body + tail, re.IGNORECASE)


_FOLD = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}
"""The only non-ASCII characters that ``re.IGNORECASE`` matches to an ASCII letter
(``İ ı`` ~ ``i``, ``ſ`` ~ ``s``, the Kelvin sign ~ ``k``; a test pins this set), mapped
to that letter."""
_FOLD_CHARS = "".join(map(chr, _FOLD))


@lru_cache(maxsize=64)
def _required_words(phrase: str) -> tuple[str, ...] | None:
    """Lower-cased words that occur in every match of an ASCII ``phrase``; ``None`` for
    a non-ASCII phrase (no shortcut is taken for it)."""
    return tuple(phrase.lower().split()) if phrase.isascii() else None


def _folded(text: str) -> str:
    """``text`` lower-cased after mapping :data:`_FOLD`: wherever the phrase rule matches
    an ASCII phrase, this string holds each of the phrase's words in lower case."""
    if not text.isascii() and any(char in text for char in _FOLD_CHARS):
        text = text.translate(_FOLD)
    return text.lower()


def count_phrases(text: str, phrases: Iterable[str]) -> int:
    """Total non-overlapping matches of each phrase in ``text``, summed over the phrases.

    A phrase none of whose matches can exist (one of its words is not a substring of the
    folded text) is not searched for: the count is the same, found much faster, since
    most phrases are absent from most texts.
    """
    folded: str | None = None
    total = 0
    for phrase in phrases:
        needed = _required_words(phrase)
        if needed:
            if folded is None:
                folded = _folded(text)
            if not all(word in folded for word in needed):
                continue
        total += len(phrase_pattern(phrase).findall(text))
    return total
