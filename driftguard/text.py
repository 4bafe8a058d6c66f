"""Text conventions every factor shares (docs/design.md §5.2), exact.

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

__all__ = ["count_phrases", "folded", "phrase_pattern", "remove_code", "word_trigrams", "words"]

_OPENING_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


def remove_code(text: str) -> str:
    """``text`` with every fenced code block deleted, fence lines included (docs/design.md §5.2)."""
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
    """The lower-cased :meth:`str.split` tokens of ``text`` (docs/design.md §5.2)."""
    return text.lower().split()


def word_trigrams(text: str) -> frozenset[tuple[str, str, str]]:
    """The set of word trigrams (three consecutive :func:`words`) of ``text``, as is."""
    tokens = words(text)
    return frozenset(zip(tokens, tokens[1:], tokens[2:], strict=False))


@lru_cache(maxsize=64)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """The compiled matcher of ``phrase`` under the docs/design.md §5.2 phrase rule."""
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


@lru_cache(maxsize=64)
def _folded_pattern(phrase: str) -> re.Pattern[str]:
    """The matcher of an ASCII ``phrase`` in a :func:`_folded` text: the phrase rule with
    the phrase lower-cased, case-sensitive, and without its leading ``(?<!\\w)`` (which
    :func:`_count_folded` checks itself). So the pattern starts with a literal, which the
    regex engine finds with a fast search instead of trying every position: on the 2 159
    distinct replies of the 45 MB benchmark session, "might" is counted in 1 ms instead of
    32 ms."""
    body = r"\s+".join(re.escape(part) for part in phrase.lower().split())
    tail = r"(?!\w)" if phrase[-1].isalnum() else ""
    return re.compile(body + tail)


_WORD_CHAR = re.compile(r"\w")


def _count_folded(fold: str, phrase: str) -> int:
    """Non-overlapping matches of an ASCII ``phrase`` in the folded text ``fold``, found
    as ``findall`` of the full phrase rule finds them: left to right, a match at the first
    position where the pattern matches and no word character precedes it, the next search
    from its end; where a word character precedes, the search goes on from the next
    position."""
    pattern = _folded_pattern(phrase)
    count = 0
    position = 0
    while (found := pattern.search(fold, position)) is not None:
        start = found.start()
        if start > 0 and _WORD_CHAR.match(fold, start - 1):
            position = start + 1
            continue
        count += 1
        position = found.end() if found.end() > start else start + 1
    return count


def folded(text: str) -> str:
    """``text`` folded for phrase matching (:func:`count_phrases`; same length, same
    whitespace and word characters at the same places)."""
    return _folded(text)


def count_phrases(text: str, phrases: Iterable[str], *, folded_text: str | None = None) -> int:
    """Total non-overlapping matches of each phrase in ``text``, summed over the phrases.

    An ASCII phrase is matched in the folded text (:data:`_FOLD`, then lower-case) with its
    lower-cased pattern, case-sensitively. That finds exactly what the phrase rule finds in
    ``text`` case-insensitively: folding keeps every position, whitespace and word
    character (``\\s``, ``\\w``) where it was, and maps to an ASCII letter exactly the
    characters ``re.IGNORECASE`` matches to it (tests check both over every code point).
    A phrase one of whose words is not a substring of the folded text is not searched for
    at all. ``folded_text`` is ``folded(text)`` when the caller has it already.
    """
    fold = folded_text
    total = 0
    for phrase, needed in _plan(tuple(phrases)):
        if needed is None:
            total += len(phrase_pattern(phrase).findall(text))
            continue
        if fold is None:
            fold = _folded(text)
        if len(needed) == 1:
            if needed[0] not in fold:
                continue
        elif not all(word in fold for word in needed):
            continue
        total += _count_folded(fold, phrase)
    return total


@lru_cache(maxsize=64)
def _plan(phrases: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
    """Each phrase with the words every match holds (``None``: a non-ASCII phrase, matched
    in the text itself)."""
    return tuple((phrase, _required_words(phrase) or None) for phrase in phrases)
