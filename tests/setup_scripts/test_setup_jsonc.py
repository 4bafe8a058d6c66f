"""The JSON / JSONC reader and splices of ``driftguard/jsonc.py``: what it refuses (as
``JSON.parse(stripJsonComments(text))`` would, docs/host-configs.md §3.2), and edits that
touch only the member they add, replace or remove."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from driftguard.jsonc import (
    JsonSyntaxError,
    add_member,
    parse,
    remove_member,
    replace_member_value,
)

ENTRY = {"command": "/opt/dg/bin/driftguard", "args": ["serve"]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1,}', "line 1, column 8: trailing comma before '}'"),
        ('{"a": [1, 2,]}', "line 1, column 12: trailing comma before ']'"),
        ("{'a': 1}", "a member name in double quotes is expected"),
        ('{"a": NaN}', "unexpected character 'N'"),
        ('{"a": 01}', "',' or '}' is expected after a member"),
        ('{"a": "line\nbreak"}', "a control character"),
        ('{"a": "\\x41"}', "invalid escape"),
        ('{"a": 1', "',' or '}' is expected after a member"),
        ('{"a": 1} {}', "unexpected text after the end of the JSON value"),
        ("", "a value is missing"),
        ("  \n", "a value is missing"),
        ('\ufeff{"a": 1}', "byte-order mark"),
        ('{"a": 1 /* open', "a /* comment is never closed"),
        ('{"a": "open}', "a string is never closed"),
    ],
)
def test_text_json_parse_rejects_is_a_syntax_error_with_its_position(
    text: str, message: str
) -> None:
    with pytest.raises(JsonSyntaxError, match=re.escape(message)):
        parse(text, comments=True)


def test_comments_are_a_syntax_error_in_strict_json() -> None:
    with pytest.raises(JsonSyntaxError, match="line 2, column 3: comments are not allowed"):
        parse('{\n  // note\n  "a": 1\n}', comments=False)
    with pytest.raises(JsonSyntaxError, match="comments are not allowed"):
        parse('{"a": 1 /* note */}', comments=False)


def test_jsonc_value_is_what_json_reads_with_the_comments_blanked() -> None:
    text = (
        '// head\n{\n  "a": "// not a comment", /* b */ "b": [1, /* two */ 2],\n  "c": {} // end\n}'
    )
    document = parse(text, comments=True)
    assert document.value == {"a": "// not a comment", "b": [1, 2], "c": {}}
    assert [text[c.start : c.end] for c in document.comments] == [
        "// head",
        "/* b */",
        "/* two */",
        "// end",
    ]


def test_members_record_their_key_value_and_comma_offsets() -> None:
    text = '{"a": 1, "b": {"c": true}}'
    root = parse(text, comments=False).root
    assert root is not None
    first, second = root.members
    assert (first.key, text[first.value_start : first.value_end], text[first.comma or 0]) == (
        "a",
        "1",
        ",",
    )
    assert second.comma is None
    assert second.obj is not None
    assert [member.key for member in second.obj.members] == ["c"]
    assert root.find("b") == (1, second)
    assert root.find("z") is None


def _round_trip(text: str, key: str = "driftguard", *, comments: bool = True) -> str:
    """Add ``key`` to the top-level object, check the value, remove it again."""
    document = parse(text, comments=comments)
    assert document.root is not None
    added = add_member(document, document.root, key, ENTRY)
    after = parse(added, comments=comments)
    assert after.value == {**document.value, key: ENTRY}
    assert after.root is not None
    index, _ = after.root.find(key) or (-1, None)
    return remove_member(after, after.root, index)


LAYOUTS = {
    "two-space": '{\n  "a": 1,\n  "b": [true, null]\n}\n',
    "four-space": '{\n    "a": {\n        "x": 1\n    }\n}\n',
    "tabs": '{\n\t"a": 1\n}\n',
    "crlf": '{\r\n  "a": 1 // note\r\n}\r\n',
    "compact": '{"a": 1, "b": {"c": 2}}',
    "no-final-newline": '{\n  "a": 1\n}',
    "line-comment-after-last": '{\n  "a": 1 // keep with a\n}\n',
    "block-comment-after-last": '{\n  "a": 1 /* keep */\n}\n',
    "comment-before-first": '{\n  // settings\n  "a": 1\n}\n',
    "comment-only-object": "{ // nothing yet\n}\n",
    "empty-object": "{}\n",
    "empty-compact": "{}",
    "unicode": '{\n  "ключ": "значение ✓"\n}\n',
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_removing_the_member_add_appended_gives_back_the_original_text(name: str) -> None:
    text = LAYOUTS[name]
    assert _round_trip(text) == text


def test_an_object_with_only_whitespace_inside_comes_back_as_empty_braces() -> None:
    # add cannot tell "{}" from "{\n}" afterwards; JSON writers produce "{}".
    assert _round_trip("{\n  }\n") == "{}\n"


def test_add_follows_the_files_indentation_and_newlines() -> None:
    document = parse('{\r\n\t"a": 1\r\n}\r\n', comments=False)
    assert document.root is not None
    added = add_member(document, document.root, "d", {"x": [1]})
    assert added == '{\r\n\t"a": 1,\r\n\t"d": {\r\n\t\t"x": [\r\n\t\t\t1\r\n\t\t]\r\n\t}\r\n}\r\n'


def test_add_keeps_a_compact_object_on_one_line() -> None:
    document = parse('{"a": 1}', comments=False)
    assert document.root is not None
    assert add_member(document, document.root, "d", {"x": 1}) == '{"a": 1, "d": {"x": 1}}'


def test_add_goes_after_a_trailing_comment_so_the_comment_stays_with_its_member() -> None:
    text = '{\n  "a": 1 // about a\n}'
    document = parse(text, comments=True)
    assert document.root is not None
    assert add_member(document, document.root, "d", 2) == '{\n  "a": 1, // about a\n  "d": 2\n}'


def test_add_after_a_line_comment_in_a_compact_object_starts_a_new_line() -> None:
    text = '{"a": 1 // about a\n}'
    document = parse(text, comments=True)
    assert document.root is not None
    added = add_member(document, document.root, "d", 2)
    assert parse(added, comments=True).value == {"a": 1, "d": 2}


def _remove(text: str, key: str) -> str:
    document = parse(text, comments=True)
    assert document.root is not None
    found = document.root.find(key)
    assert found is not None
    return remove_member(document, document.root, found[0])


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ('{\n  "d": 1,\n  "b": 2\n}', "d", '{\n  "b": 2\n}'),
        ('{\n  "a": 1,\n  "d": 1,\n  "b": 2\n}', "d", '{\n  "a": 1,\n  "b": 2\n}'),
        ('{\n  "a": 1,\n  "d": 1\n}', "d", '{\n  "a": 1\n}'),
        ('{"d": 1, "b": 2}', "d", '{"b": 2}'),
        ('{"a": 1, "d": 1, "b": 2}', "d", '{"a": 1, "b": 2}'),
        ('{\n  "a": 1, // about a\n  "d": 1\n}', "d", '{\n  "a": 1 // about a\n}'),
        ('{\n  // about d\n  "d": 1\n}', "d", "{\n  // about d\n}"),
        ('{\n  "d": {"x": [1, {"y": 2}]}\n}', "d", "{}"),
    ],
)
def test_remove_takes_the_member_one_comma_and_its_leading_whitespace(
    text: str, key: str, expected: str
) -> None:
    assert _remove(text, key) == expected


def test_replace_changes_only_the_member_value() -> None:
    text = '{\n  "a": 1, // keep\n  "d": {"command": "old"},\n  "b": 2\n}\n'
    document = parse(text, comments=True)
    assert document.root is not None
    _, member = document.root.find("d") or (0, None)
    assert member is not None
    replaced = replace_member_value(document, document.root, member, {"command": "new"})
    assert replaced == '{\n  "a": 1, // keep\n  "d": {\n    "command": "new"\n  },\n  "b": 2\n}\n'


def test_nested_edits_use_the_nested_objects_indentation() -> None:
    text = '{\n  "mcpServers": {\n    "a": {"command": "x"}\n  }\n}\n'
    document = parse(text, comments=False)
    root = document.root
    assert root is not None
    servers = root.members[0].obj
    assert servers is not None
    added = add_member(document, servers, "d", {"k": 1})
    assert added == (
        '{\n  "mcpServers": {\n    "a": {"command": "x"},\n'
        '    "d": {\n      "k": 1\n    }\n  }\n}\n'
    )


def _values(text: str) -> Any:
    return json.loads(text)


def test_the_reader_accepts_everything_a_json_writer_produces() -> None:
    value = {"s": 'q"\\/\b\f\n\r\t\u0001é𝄞', "n": [-0.5e-3, 0, 1e10, True, False, None], "o": {}}
    for indent in (None, 0, 2, "\t"):
        text = json.dumps(value, indent=indent, ensure_ascii=indent is None)
        assert parse(text, comments=False).value == _values(text)
