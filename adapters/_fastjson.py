"""Decoding session lines with msgspec's C decoder, with exactly the outcome of the
standard library's.

:func:`driftguard.adapters._common.load_record` (``json.loads`` plus the depth limit) is the
reference: for every line, :func:`load_object` returns an equal value or ``None`` exactly
when it does, and :func:`load_typed` returns what the adapter's ``from_dict`` makes of that
value. Tests check both against it on random and hostile lines.

msgspec (measured on the synthetic 45 MB Claude Code session of ``benchmarks/``: 24 956
lines) decodes every line into Python values in 119 ms where ``json.loads`` takes 260 ms,
and into a typed :class:`msgspec.Struct` that declares only the fields an adapter reads in
57 ms (the fields it does not read are checked and skipped, never built). Where msgspec and
the standard library disagree, the standard library decides:

- msgspec refuses what ``json.loads`` accepts: ``NaN``/``Infinity``, numbers that overflow
  to infinity, escaped lone surrogates (``"\\ud800"``), UTF-8-encoded surrogates, a UTF-8
  byte-order mark, UTF-16/32 text, integers of more digits than
  :func:`sys.get_int_max_str_digits` allows (which ``json.loads`` refuses too). Any refusal
  falls back to :func:`~driftguard.adapters._common.load_record`, so no line that was read
  before is skipped now.
- msgspec has no depth limit of its own below Python's recursion limit: a line holding more
  than :data:`~driftguard.adapters._common.MAX_JSON_DEPTH` ``[`` and ``{`` bytes (the only
  lines that can nest deeper) goes to the reference.
- a typed decode does not check the fields it skips: their strings may hold invalid UTF-8
  and their integers any number of digits, which ``json.loads`` refuses. A typed decode is
  therefore tried only on a line that is ASCII (or valid UTF-8, surrogates allowed as
  ``json.loads`` allows them) and holds no run of digits longer than the integer limit;
  any other line goes through :func:`load_object`.

Pure functions; nothing here does I/O.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from driftguard.adapters._common import MAX_JSON_DEPTH, load_record

__all__ = ["load_object", "load_typed"]

T = TypeVar("T")

_GENERIC: msgspec.json.Decoder[Any] = msgspec.json.Decoder()
_DIGITS = b"0123456789"


def _shallow(line: bytes) -> bool:
    """Whether ``line`` holds at most :data:`MAX_JSON_DEPTH` ``[`` and ``{`` bytes, which
    bounds its nesting depth (two C scans; no decode)."""
    return line.count(b"{") + line.count(b"[") <= MAX_JSON_DEPTH


def load_object(line: bytes) -> dict[str, Any] | None:
    """One JSONL line decoded into a JSON object, or ``None``: equal to
    :func:`~driftguard.adapters._common.load_record`, faster."""
    if _shallow(line):
        try:
            value = _GENERIC.decode(line)
        except msgspec.DecodeError:  # ValidationError included: refused, not judged
            return load_record(line)
        return value if type(value) is dict else None
    return load_record(line)


def _utf8(line: bytes) -> bool:
    """Whether ``line`` is UTF-8 as ``json.loads`` reads bytes (``surrogatepass``)."""
    if line.isascii():
        return True
    try:
        line.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return False
    return True


def _long_digit_run(line: bytes) -> bool:
    """Whether ``line`` holds more consecutive ASCII digits than ``int()`` converts
    (:func:`sys.get_int_max_str_digits`; 0 means no limit).

    Such a run covers at least one position that is a multiple of the limit, so only
    those positions are looked at (``len(line) / limit`` of them), and around a digit
    found there the run is measured with two C strips.
    """
    limit = sys.get_int_max_str_digits()
    if limit <= 0 or len(line) <= limit:
        return False
    for position in range(0, len(line), limit):
        if line[position] in _DIGITS:
            before = line[max(0, position - limit) : position]
            after = line[position : position + limit + 1]
            run = len(before) - len(before.rstrip(_DIGITS))
            if run + len(after) - len(after.lstrip(_DIGITS)) > limit:
                return True
    return False


def load_typed(
    line: bytes,
    decoder: msgspec.json.Decoder[T],
    from_dict: Callable[[dict[str, Any]], T],
) -> T | None:
    """One JSONL line decoded with ``decoder`` (a typed msgspec decoder of the fields an
    adapter reads), or ``None`` when it is no JSON object.

    Equal to ``from_dict(load_record(line))`` (``None`` when that is ``None``): a line the
    typed decode may misjudge or refuses — not UTF-8, a digit run beyond the integer limit,
    too many brackets, a field of another type than declared, anything msgspec refuses —
    is decoded into a dict and handed to ``from_dict``, which must build the same value
    from it.
    """
    if _utf8(line) and _shallow(line) and not _long_digit_run(line):
        try:
            return decoder.decode(line)
        except msgspec.DecodeError:
            pass
    value = load_object(line)
    return None if value is None else from_dict(value)
