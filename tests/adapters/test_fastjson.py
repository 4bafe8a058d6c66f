"""The fast decoder (msgspec) reads every line exactly as the standard library path does
(``_common.load_record``: ``json.loads`` and the depth limit), the oracle here: the same
value, or no record, for the lines msgspec refuses or would misjudge.

Every line is synthetic, written here.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard.adapters._common import MAX_JSON_DEPTH, load_record
from driftguard.adapters._fastjson import load_object, load_typed
from driftguard.adapters.claude_code._parse import _DECODER, _record_from


def same(a: object, b: object) -> bool:
    """Equal values, NaN equal to NaN and types kept apart (``1`` is not ``1.0``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same, a, b))
    return a == b


def claude_record(line: bytes) -> object:
    """What the Claude adapter reads from ``line`` through the reference path."""
    value = load_record(line)
    return None if value is None else _record_from(value)


def assert_read_alike(line: bytes) -> None:
    assert same(load_object(line), load_record(line)), line
    assert repr(load_typed(line, _DECODER, _record_from)) == repr(claude_record(line)), line


# ---------------------------------------------------------------------- named lines

READ_BY_THE_STANDARD_LIBRARY_ONLY = {
    "NaN and Infinity": b'{"type":"user","n":NaN,"m":-Infinity}',
    "a number that overflows to infinity": b'{"type":"user","n":1e400}',
    "an escaped lone surrogate": b'{"type":"user","message":{"content":"a \\ud800 b"}}',
    "a UTF-8-encoded surrogate": b'{"type":"user","message":{"content":"a \xed\xa0\x80 b"}}',
    "a UTF-8 byte-order mark": b'\xef\xbb\xbf{"type":"user","uuid":"u1"}',
    "UTF-16 text": json.dumps({"type": "user", "uuid": "u1"}).encode("utf-16"),
    "a lone surrogate in a field no adapter reads": b'{"type":"user","zz":"\\udc00"}',
}


@pytest.mark.parametrize(
    "line", READ_BY_THE_STANDARD_LIBRARY_ONLY.values(), ids=list(READ_BY_THE_STANDARD_LIBRARY_ONLY)
)
def test_a_line_msgspec_refuses_but_the_standard_library_reads_is_still_read(line: bytes) -> None:
    assert load_record(line) is not None
    assert_read_alike(line)
    assert load_typed(line, _DECODER, _record_from) is not None


UNREADABLE = {
    "invalid UTF-8 in a field no adapter reads": b'{"type":"user","zz":"\xff"}',
    "invalid UTF-8 in a key no adapter reads": b'{"type":"user","z\xffz":1}',
    "a truncated UTF-8 sequence in a field no adapter reads": b'{"type":"user","zz":"\xe2\x82"}',
    "an integer beyond the digit limit in a field no adapter reads": (
        b'{"type":"user","zz":' + b"7" * (sys.get_int_max_str_digits() + 1) + b"}"
    ),
    "nesting beyond the limit in a field no adapter reads": (
        b'{"type":"user","zz":' + b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH + b"}"
    ),
    "a raw control character": b'{"type":"user","zz":"\x01"}',
    "a half-written line": b'{"type":"user","uuid":"u1","message":{"content":"hal',
    "an array": b'[{"type":"user"}]',
}


@pytest.mark.parametrize("line", UNREADABLE.values(), ids=list(UNREADABLE))
def test_a_line_the_standard_library_refuses_is_refused_even_where_msgspec_would_skip_it(
    line: bytes,
) -> None:
    assert load_record(line) is None
    assert load_object(line) is None
    assert load_typed(line, _DECODER, _record_from) is None


def test_a_digit_run_at_the_limit_is_read_and_one_past_it_is_not() -> None:
    limit = sys.get_int_max_str_digits()
    for run, readable in ((limit, True), (limit + 1, False)):
        for lead in range(3):  # the run starts at several offsets from the sampled positions
            line = b'{"type":"user","z":"' + b"x" * lead + b'","zz":' + b"9" * run + b"}"
            assert (load_typed(line, _DECODER, _record_from) is not None) is readable
            assert_read_alike(line)


def test_duplicate_keys_keep_the_last_value_as_the_standard_library_does() -> None:
    line = b'{"type":"system","type":"user","message":{"content":"a"},"message":{"content":"b"}}'
    assert_read_alike(line)
    record = load_typed(line, _DECODER, _record_from)
    assert record is not None
    assert record.type == "user"


def test_a_field_of_another_type_than_declared_is_read_through_the_dict_path() -> None:
    for line in (
        b'{"type":"user","message":"just text"}',
        b'{"type":"user","message":{"content":[1,null,"bare",{"type":"text","text":"t"}]}}',
        b'{"type":"assistant","message":{"usage":[1,2],"content":{"type":"text"}}}',
        b'{"type":"assistant","message":{"usage":{"input_tokens":"12"},"content":7}}',
    ):
        assert_read_alike(line)


# ---------------------------------------------------------------------- random lines

JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["user", "assistant", "system", "text", "tool_use", "tool_result"]),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.sampled_from(
                ["type", "message", "content", "usage", "text", "uuid", "input", "zz", "id"]
            )
            | st.text(max_size=6),
            children,
            max_size=5,
        ),
    ),
    max_leaves=20,
)
SPLICES = [
    b"NaN",
    b"-Infinity",
    b"1e999",
    b'"\\ud800"',
    b'"\xed\xa0\x80"',
    b'"\xff"',
    b'"\xc3"',
    b'"\x01"',
    b"[" * 130 + b"]" * 130,
    b"1" * 4301,
    b"01",
    b'"\\u12"',
    b"tru",
    b",",
    b"}",
]


@st.composite
def jsonish_lines(draw: st.DrawFn) -> bytes:
    """A JSON object line, maybe with a hostile value spliced over one of its values."""
    value = draw(st.dictionaries(st.sampled_from(["type", "message", "uuid", "zz"]), JSON_VALUES))
    text = json.dumps(value, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    if draw(st.booleans()) and b":" in text:
        cut = draw(st.sampled_from([i for i, c in enumerate(text) if c == ord(":")]))
        end = text.find(b",", cut)
        end = len(text) - 1 if end < 0 else end
        text = text[: cut + 1] + draw(st.sampled_from(SPLICES)) + text[end:]
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.binary(max_size=3)) + text[cut:]
    return text


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=jsonish_lines())
def test_every_random_line_is_read_exactly_as_the_standard_library_reads_it(line: bytes) -> None:
    assert_read_alike(line)


def _claude_message() -> st.SearchStrategy[dict[str, Any]]:
    block = st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking"])},
        optional={
            "text": JSON_LEAVES,
            "name": JSON_LEAVES,
            "input": JSON_VALUES,
            "content": JSON_VALUES,
            "is_error": JSON_LEAVES,
            "zz": JSON_VALUES,
        },
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "id": JSON_LEAVES,
            "model": JSON_LEAVES,
            "content": st.one_of(st.text(), st.lists(st.one_of(block, JSON_LEAVES), max_size=4)),
            "usage": st.one_of(JSON_LEAVES, st.dictionaries(st.text(max_size=30), JSON_VALUES)),
            "zz": JSON_VALUES,
        },
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    record=st.fixed_dictionaries(
        {"type": st.sampled_from(["user", "assistant", "system"])},
        optional={
            "message": st.one_of(_claude_message(), JSON_LEAVES),
            "uuid": JSON_LEAVES,
            "isSidechain": JSON_LEAVES,
            "compactMetadata": JSON_VALUES,
            "toolUseResult": JSON_VALUES,
        },
    )
)
def test_random_claude_records_decode_to_what_the_dict_path_makes_of_them(
    record: dict[str, Any],
) -> None:
    assert_read_alike(json.dumps(record).encode("utf-8", "surrogatepass"))
