"""A JSON / JSONC reader that remembers where each object member sits, and the text edits
``driftguard setup`` makes with it: add, replace or remove one member of an object,
touching no other byte of the file (docs/design.md §8; docs/host-configs.md §3.1, §3.2, §3.4).

Two dialects:

- **strict JSON** (``comments=False``): RFC 8259 as ``JSON.parse`` reads it. Claude
  Code's ``~/.claude.json`` and ``.mcp.json`` (its settings files are strict JSON too,
  docs/host-configs.md §3.1) and Cursor's ``mcp.json`` (not verified from a primary source,
  so treated as strict, §3.4).
- **JSONC** (``comments=True``): strict JSON plus ``// line`` and ``/* block */``
  comments, nothing else. Gemini CLI reads ``settings.json`` as
  ``JSON.parse(stripJsonComments(text))`` (§3.2; the ``strip-json-comments`` package
  bundled in Gemini CLI 0.61.0, read in its bundle here): comments are allowed, a
  trailing comma is not, and a parse error stops Gemini from starting. So a trailing
  comma, a single-quoted string, ``NaN`` or a byte-order mark is a syntax error here too.

Why not a regex or a rewrite: the file is the user's. The reader records the span of
every member of every object (key start, value start and end, the comma after it) and of
every comment; an edit splices new text in at those positions, so comments, key order,
indentation and line endings outside the edited member stay byte-identical. New text
copies the file's newline (``\\r\\n`` when the file uses it), its indentation unit and
whether the object is laid out one member per line.

The edits are built to undo each other: removing the member :func:`add_member` appended
gives back the original text, byte for byte (an object that held only that member comes
back as ``{}``).

The parsed value itself comes from :func:`json.loads` on the text with the comments
blanked out (positions kept), so the value is what a JSON parser reads, independently
of the span bookkeeping here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from driftguard.errors import JsonSyntaxError

__all__ = [
    "JsonDocument",
    "JsonSyntaxError",
    "Member",
    "ObjectSpan",
    "add_member",
    "parse",
    "remove_member",
    "render_document",
    "replace_member_value",
]

_WHITESPACE = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPES = frozenset('"\\/bfnrtu')
_HEX = frozenset("0123456789abcdefABCDEF")
_DEFAULT_UNIT = "  "


@dataclass(frozen=True, slots=True)
class Member:
    """One ``"key": value`` of an object, by character offsets into the text.

    ``comma`` is the offset of the ``,`` after the value (``None`` for the last member);
    ``obj`` describes the value when it is an object.
    """

    key: str
    key_start: int
    value_start: int
    value_end: int
    comma: int | None
    obj: ObjectSpan | None


@dataclass(frozen=True, slots=True)
class ObjectSpan:
    """An object: the offsets of its ``{`` and ``}`` and its members in file order."""

    open: int
    close: int
    members: tuple[Member, ...]

    def find(self, key: str) -> tuple[int, Member] | None:
        """The last member named ``key`` (the one ``JSON.parse`` keeps) and its index."""
        for index in range(len(self.members) - 1, -1, -1):
            if self.members[index].key == key:
                return index, self.members[index]
        return None

    def count(self, key: str) -> int:
        """How many members are named ``key`` (more than one is ambiguous to a reader)."""
        return sum(1 for member in self.members if member.key == key)


@dataclass(frozen=True, slots=True)
class _Comment:
    start: int
    end: int
    """Exclusive; for a line comment, the offset of the line break that ends it."""
    line: bool


@dataclass(frozen=True, slots=True)
class JsonDocument:
    """A parsed file: its text, its value, the top-level object's spans and the comments."""

    text: str
    value: Any
    root: ObjectSpan | None
    """``None`` when the top-level value is not an object."""
    comments: tuple[_Comment, ...]
    newline: str
    unit: str
    """The indentation of one nesting level (two spaces when the file does not show one)."""


class _Reader:
    """A recursive-descent reader that validates the grammar and records object spans."""

    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.pos = 0
        self.allow_comments = comments
        self.comments: list[_Comment] = []

    def fail(self, message: str, position: int | None = None) -> JsonSyntaxError:
        return JsonSyntaxError(message, self.text, self.pos if position is None else position)

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in _WHITESPACE:
                self.pos += 1
            elif char == "/" and text.startswith("//", self.pos):
                if not self.allow_comments:
                    raise self.fail("comments are not allowed in this file (strict JSON)")
                end = text.find("\n", self.pos)
                end = len(text) if end < 0 else end
                if text[end - 1] == "\r":  # the comment ends before a CRLF line break
                    end -= 1
                self.comments.append(_Comment(self.pos, end, line=True))
                self.pos = end
            elif char == "/" and text.startswith("/*", self.pos):
                if not self.allow_comments:
                    raise self.fail("comments are not allowed in this file (strict JSON)")
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("a /* comment is never closed")
                self.comments.append(_Comment(self.pos, end + 2, line=False))
                self.pos = end + 2
            else:
                return

    def value(self) -> ObjectSpan | None:
        """Read one value at ``pos`` (after whitespace); its object spans if an object."""
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of the file: a value is missing")
        char = self.text[self.pos]
        if char == "{":
            return self.object()
        if char == "[":
            self.array()
        elif char == '"':
            self.string()
        elif char in "-0123456789":
            match = _NUMBER.match(self.text, self.pos)
            if match is None:
                raise self.fail("malformed number")
            self.pos = match.end()
        else:
            for literal in ("true", "false", "null"):
                if self.text.startswith(literal, self.pos):
                    self.pos += len(literal)
                    break
            else:
                raise self.fail(f"unexpected character {char!r}: a value is expected")
        return None

    def object(self) -> ObjectSpan:
        open_at = self.pos
        self.pos += 1
        members: list[Member] = []
        self.skip()
        if self.pos < len(self.text) and self.text[self.pos] == "}":
            self.pos += 1
            return ObjectSpan(open_at, self.pos - 1, ())
        while True:
            if self.pos >= len(self.text) or self.text[self.pos] != '"':
                if self.pos < len(self.text) and self.text[self.pos] == "}" and members:
                    raise self.fail("trailing comma before '}'", members[-1].comma)
                raise self.fail("a member name in double quotes is expected")
            key_start = self.pos
            key = json.loads(self.string())
            self.skip()
            if self.pos >= len(self.text) or self.text[self.pos] != ":":
                raise self.fail("':' is expected after a member name")
            self.pos += 1
            self.skip()
            value_start = self.pos
            nested = self.value()
            value_end = self.pos
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                members.append(Member(key, key_start, value_start, value_end, self.pos, nested))
                self.pos += 1
                self.skip()
                continue
            members.append(Member(key, key_start, value_start, value_end, None, nested))
            if self.pos < len(self.text) and self.text[self.pos] == "}":
                self.pos += 1
                return ObjectSpan(open_at, self.pos - 1, tuple(members))
            raise self.fail("',' or '}' is expected after a member")

    def array(self) -> None:
        self.pos += 1
        self.skip()
        if self.pos < len(self.text) and self.text[self.pos] == "]":
            self.pos += 1
            return
        while True:
            self.value()
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                comma = self.pos
                self.pos += 1
                self.skip()
                if self.pos < len(self.text) and self.text[self.pos] == "]":
                    raise self.fail("trailing comma before ']'", comma)
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "]":
                self.pos += 1
                return
            raise self.fail("',' or ']' is expected after an array element")

    def string(self) -> str:
        """Read a string literal; returns its source text (quotes included)."""
        text = self.text
        start = self.pos
        self.pos += 1
        while self.pos < len(text):
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return text[start : self.pos]
            if char == "\\":
                escape = text[self.pos + 1 : self.pos + 2]
                if not escape or escape not in _ESCAPES:
                    raise self.fail("invalid escape in a string")
                if escape == "u":
                    digits = text[self.pos + 2 : self.pos + 6]
                    if len(digits) != 4 or not set(digits) <= _HEX:
                        raise self.fail("invalid \\u escape in a string")
                    self.pos += 6
                else:
                    self.pos += 2
            elif ord(char) < 0x20:
                raise self.fail("a control character (such as a raw newline) inside a string")
            else:
                self.pos += 1
        raise self.fail("a string is never closed", start)


def parse(text: str, *, comments: bool) -> JsonDocument:
    """Parse ``text`` as strict JSON, or as JSONC when ``comments`` is true.

    Raises :class:`JsonSyntaxError` (one line, with line and column) on anything
    ``JSON.parse`` would reject after comment stripping: trailing commas, single quotes,
    ``NaN``, a byte-order mark, an empty file, text after the value.
    """
    reader = _Reader(text, comments)
    if text.startswith("\ufeff"):
        raise reader.fail("the file starts with a byte-order mark, which JSON.parse rejects")
    try:
        reader.skip()
        root = reader.value()
        reader.skip()
    except RecursionError:
        raise reader.fail("values are nested too deeply") from None
    if reader.pos != len(text):
        raise reader.fail("unexpected text after the end of the JSON value")
    stripped = _blank_comments(text, reader.comments)
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError) as exc:  # the grammar above already accepted it
        raise JsonSyntaxError(str(exc), text, 0) from None
    newline = "\r\n" if "\r\n" in text else "\n"
    return JsonDocument(
        text=text,
        value=value,
        root=root,
        comments=tuple(reader.comments),
        newline=newline,
        unit=_indent_unit(text, root),
    )


def _blank_comments(text: str, comments: list[_Comment]) -> str:
    """``text`` with every comment replaced by spaces (newlines kept), as
    ``strip-json-comments`` does by default."""
    if not comments:
        return text
    pieces: list[str] = []
    cursor = 0
    for comment in comments:
        pieces.append(text[cursor : comment.start])
        pieces.append(re.sub(r"[^\r\n]", " ", text[comment.start : comment.end]))
        cursor = comment.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _line_indent(text: str, position: int) -> str:
    """The leading whitespace of the line holding ``position``."""
    line_start = text.rfind("\n", 0, position) + 1
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line_start:end]


def _starts_line(text: str, position: int) -> bool:
    """Whether only spaces and tabs precede ``position`` on its line."""
    line_start = text.rfind("\n", 0, position) + 1
    return text[line_start:position].strip(" \t") == ""


def _indent_unit(text: str, root: ObjectSpan | None) -> str:
    """One level of indentation: the top-level object's member indent, else two spaces."""
    if root is None or not root.members:
        return _DEFAULT_UNIT
    first = root.members[0].key_start
    if not _starts_line(text, first):
        return _DEFAULT_UNIT
    outer = _line_indent(text, root.open)
    inner = _line_indent(text, first)
    if inner.startswith(outer) and len(inner) > len(outer):
        return inner[len(outer) :]
    return _DEFAULT_UNIT


def _multiline(doc: JsonDocument, obj: ObjectSpan) -> bool:
    """Whether members of ``obj`` go on lines of their own.

    An object with members says so itself (a newline before its first member); an empty
    one follows the top-level object, and an empty top-level object is laid out
    multi-line.
    """
    if obj.members:
        return "\n" in doc.text[obj.open : obj.members[0].key_start]
    root = doc.root
    if root is None or root is obj or not root.members:
        return True
    return "\n" in doc.text[root.open : root.members[0].key_start]


def _significant_end(doc: JsonDocument, start: int, end: int) -> tuple[int, bool]:
    """The end of the last comment inside ``[start, end)`` (and whether it is a line
    comment), or ``start`` when there is none: where new text goes so that no comment
    changes which member it follows."""
    best = start
    line = False
    for comment in doc.comments:
        if comment.start >= start and comment.end <= end and comment.end >= best:
            best, line = comment.end, comment.line
    return best, line


def _render(value: Any, *, base: str, unit: str, newline: str, multiline: bool) -> str:
    """``value`` as JSON text; multi-line values indent by ``unit`` below ``base``."""
    if not multiline:
        return json.dumps(value, ensure_ascii=False)
    lines = json.dumps(value, ensure_ascii=False, indent=unit)
    return lines.replace("\n", newline + base)


def _member_indent(doc: JsonDocument, obj: ObjectSpan) -> str:
    """The indentation of ``obj``'s members: that of its first member, when it starts a
    line; else the ``{`` line's indentation plus one unit."""
    if obj.members and _starts_line(doc.text, obj.members[0].key_start):
        return _line_indent(doc.text, obj.members[0].key_start)
    return _line_indent(doc.text, obj.open) + doc.unit


def add_member(doc: JsonDocument, obj: ObjectSpan, key: str, value: Any) -> str:
    """The text with ``"key": value`` appended as the last member of ``obj``.

    Existing bytes are kept; the new member goes after the last member's value and any
    comment that follows it (so a trailing ``// comment`` stays with its member), and
    the separating comma right after that value.
    """
    text = doc.text
    multiline = _multiline(doc, obj)
    indent = _member_indent(doc, obj)
    if obj.members:
        last = obj.members[-1]
        anchor, after_line_comment = _significant_end(doc, last.value_end, obj.close)
    else:
        anchor, after_line_comment = _significant_end(doc, obj.open + 1, obj.close)
    pretty = multiline or after_line_comment
    rendered = _render(value, base=indent, unit=doc.unit, newline=doc.newline, multiline=pretty)
    member = f"{json.dumps(key, ensure_ascii=False)}: {rendered}"
    if pretty:
        member = doc.newline + indent + member
    elif obj.members:
        member = " " + member
    if not obj.members and pretty and anchor == obj.open + 1 == obj.close:
        member += doc.newline + _line_indent(text, obj.open)
    edited = text[:anchor] + member + text[anchor:]
    if obj.members:
        comma_at = obj.members[-1].value_end
        edited = edited[:comma_at] + "," + edited[comma_at:]
    return edited


def replace_member_value(doc: JsonDocument, obj: ObjectSpan, member: Member, value: Any) -> str:
    """The text with ``member``'s value replaced by ``value`` (laid out like its object)."""
    rendered = _render(
        value,
        base=_line_indent(doc.text, member.key_start),
        unit=doc.unit,
        newline=doc.newline,
        multiline=_multiline(doc, obj),
    )
    return doc.text[: member.value_start] + rendered + doc.text[member.value_end :]


def _whitespace_before(text: str, position: int) -> int:
    while position > 0 and text[position - 1] in _WHITESPACE:
        position -= 1
    return position


def _whitespace_after(text: str, position: int) -> int:
    while position < len(text) and text[position] in _WHITESPACE:
        position += 1
    return position


def remove_member(doc: JsonDocument, obj: ObjectSpan, index: int) -> str:
    """The text without member ``index`` of ``obj``: its key and value, one separating
    comma and the whitespace that introduced it. Comments stay. An object left with
    only whitespace inside becomes ``{}``."""
    text = doc.text
    members = obj.members
    member = members[index]
    if len(members) == 1:
        start = _whitespace_before(text, member.key_start)
        edited = text[:start] + text[member.value_end :]
        close = obj.close - (member.value_end - start)
        if edited[obj.open + 1 : close].strip(_WHITESPACE) == "":
            edited = edited[: obj.open + 1] + edited[close:]
        return edited
    if index == 0:
        assert member.comma is not None
        end = _whitespace_after(text, member.comma + 1)
        return text[: member.key_start] + text[end:]
    start = _whitespace_before(text, member.key_start)
    if member.comma is not None:
        return text[:start] + text[member.comma + 1 :]
    previous = members[index - 1]
    assert previous.comma is not None
    edited = text[:start] + text[member.value_end :]
    return edited[: previous.comma] + edited[previous.comma + 1 :]


def render_document(value: Mapping[str, Any]) -> str:
    """A new file holding ``value``: two-space indentation and a final newline."""
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"
