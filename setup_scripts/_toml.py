"""The edits ``driftguard setup`` makes to Codex CLI's ``config.toml``: add, replace or
remove one ``[mcp_servers.<name>]`` table, keeping every other byte (docs/design.md §8;
docs/host-configs.md §3.3).

Codex prints ``Error loading config.toml: …`` and exits on a file it cannot load, and a
table with an unknown key or with neither ``command`` nor ``url`` is such a file (§3.3).
So the table written here has only known keys of ``RawMcpServerConfig`` (the stdio keys
``command``, ``args``, ``env``, and ``required``: :mod:`~driftguard.setup_scripts.codex_cli`),
and every result is re-read with :mod:`tomllib` (the standard library's strict TOML 1.0
reader) and compared with the expected content before anyone writes it.

How the text is edited. ``tomlkit`` reads and writes TOML without losing comments, but
where it puts a new table (after the last ``[mcp_servers.*]`` table, with no blank line
before the next one) and the whitespace it leaves behind when a table is deleted are its
own choices, and they differ between its versions. The common cases are therefore
spliced as text, with the table rendered by ``tomlkit``:

- **add**: the table is appended at the end of the file after one blank line (a header
  may follow any other table in TOML, so this is valid wherever ``mcp_servers`` is an
  ordinary table or absent);
- **remove**: the ``[mcp_servers.<name>]`` table and its sub-tables are cut out, from
  their header to their last key line, with the one blank line before the header;
  comment and blank lines after the last key line stay (they usually introduce the next
  table). Removing what *add* appended gives back the original bytes when the file ended
  with a newline (a file without a final newline gets one back);
- **replace**: remove, then add;
- **update** (``--update`` over an entry the user may have extended): the keys that
  change are set in ``tomlkit``'s document model, in place, so the user's keys, their
  comments and the table's position stay; where that does not give the expected content,
  a replace.

Where a splice does not produce exactly the expected content (``mcp_servers`` written as
an inline table, the entry written with dotted keys, …), the edit is made with
``tomlkit``'s document model instead, which keeps comments; and where that does not
either, the edit is refused by the caller's verification.

A line-level scanner finds the table headers: it follows basic, literal and multi-line
strings, comments and the brackets of multi-line arrays and inline tables, so a ``[`` at
the start of a line inside a string or an array is not taken for a header. It only ever
reads text that :mod:`tomllib` has accepted.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import InlineTable, Table

from driftguard.errors import TomlSyntaxError
from driftguard.setup_scripts._base import same_value

__all__ = [
    "TomlSyntaxError",
    "add_table",
    "load",
    "remove_table",
    "render_table",
    "replace_table",
    "update_table",
]

_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def load(text: str) -> dict[str, Any]:
    """The content of ``text`` as :mod:`tomllib` reads it; :class:`TomlSyntaxError` when
    it is not TOML, or when ``tomlkit`` (used for the fallback edits) cannot read it."""
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlSyntaxError(str(exc)) from None
    try:
        tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:  # pragma: no cover - tomllib disagrees
        raise TomlSyntaxError(str(exc)) from None
    return value


# --------------------------------------------------------------------------------------
# Line scanner


@dataclass(frozen=True, slots=True)
class _Line:
    """One physical line: ``start``/``end`` offsets (``end`` past its newline) and what it
    is. ``header`` holds the dotted key of a ``[table]`` or ``[[array]]`` header line."""

    start: int
    end: int
    kind: str  # "blank" | "comment" | "header" | "key" | "continuation"
    header: tuple[str, ...] = ()


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0
        self.multiline: str | None = None  # '"""' or "'''" while inside one

    def lines(self) -> list[_Line]:
        text = self.text
        found: list[_Line] = []
        while self.pos < len(text):
            start = self.pos
            newline = text.find("\n", start)
            end = len(text) if newline < 0 else newline + 1
            if self.multiline is not None or self.depth > 0:
                self.scan_values(end)
                found.append(_Line(start, end, "continuation"))
                continue
            body = text[start:end].strip(" \t\r\n")
            header: tuple[str, ...] = ()
            if not body:
                kind = "blank"
            elif body.startswith("#"):
                kind = "comment"
            elif body.startswith("["):
                kind, header = "header", self.header(body)
            else:
                kind = "key"
                self.scan_values(end)
            found.append(_Line(start, end, kind, header))
            self.pos = end
        return found

    def scan_values(self, end: int) -> None:
        """Follow strings, comments and brackets up to ``end`` (the end of the line)."""
        text = self.text
        while self.pos < end:
            if self.multiline is not None:
                self.pos = self.close_multiline(end)
                continue
            char = text[self.pos]
            if char == "#":
                self.pos = end
            elif text.startswith('"""', self.pos) or text.startswith("'''", self.pos):
                self.multiline = text[self.pos : self.pos + 3]
                self.pos += 3
            elif char == '"':
                self.pos = self.close_basic(end)
            elif char == "'":
                closing = text.find("'", self.pos + 1, end)
                self.pos = end if closing < 0 else closing + 1
            elif char in "[{":
                self.depth += 1
                self.pos += 1
            elif char in "]}":
                self.depth -= 1
                self.pos += 1
            else:
                self.pos += 1
        self.pos = end

    def close_basic(self, end: int) -> int:
        position = self.pos + 1
        while position < end:
            if self.text[position] == "\\":
                position += 2
            elif self.text[position] == '"':
                return position + 1
            else:
                position += 1
        return end

    def close_multiline(self, end: int) -> int:
        """Inside a multi-line string: the offset after its closing quotes (the string is
        then closed), or ``end`` when it goes on past this line."""
        assert self.multiline is not None
        quote = self.multiline[0]
        position = self.pos
        while position < end:
            char = self.text[position]
            if char == "\\" and quote == '"':
                position += 2
            elif self.text.startswith(self.multiline, position):
                run = 3
                while run < 5 and self.text.startswith(quote, position + run):
                    run += 1
                self.multiline = None
                return position + run
            else:
                position += 1
        return end

    def header(self, body: str) -> tuple[str, ...]:
        """The dotted key of a header line's body (``[a."b".c]`` → ``("a", "b", "c")``)."""
        inner = body[2:] if body.startswith("[[") else body[1:]
        keys: list[str] = []
        position = 0
        while True:
            while inner[position] in " \t":
                position += 1
            char = inner[position]
            if char in "\"'":
                closing = position + 1
                while inner[closing] != char:
                    closing += 2 if (char == '"' and inner[closing] == "\\") else 1
                keys.append(tomllib.loads(f"k = {inner[position : closing + 1]}")["k"])
                position = closing + 1
            else:
                start = position
                while inner[position] in _BARE_KEY:
                    position += 1
                keys.append(inner[start:position])
            while inner[position] in " \t":
                position += 1
            if inner[position] != ".":
                return tuple(keys)
            position += 1


def _blocks(text: str, path: tuple[str, ...]) -> list[tuple[int, int]]:
    """The spans of every table whose header starts with ``path`` (the table and its
    sub-tables), each from its header line to its last key or continuation line."""
    lines = _Scanner(text).lines()
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.kind != "header" or line.header[: len(path)] != path:
            index += 1
            continue
        last = index
        index += 1
        while index < len(lines) and lines[index].kind != "header":
            if lines[index].kind in ("key", "continuation"):
                last = index
            index += 1
        start = line.start
        if spans and spans[-1][1] == start:
            start = spans.pop()[0]
        spans.append((start, lines[last].end))
    return spans


def _cut_blocks(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without ``spans``; each also takes the blank line just before it (or,
    at the very start of the file, the blank line just after it)."""
    for start, end in reversed(spans):
        cut_start, cut_end = start, end
        if start > 0:
            previous = text.rfind("\n", 0, start - 1) + 1
            if text[previous:start].strip(" \t\r\n") == "":
                cut_start = previous
        else:
            following = text.find("\n", end)
            if following >= 0 and text[end:following].strip(" \t\r") == "":
                cut_end = following + 1
        text = text[:cut_start] + text[cut_end:]
    return text


# --------------------------------------------------------------------------------------
# Rendering and edits


def _pair(key: str, value: Any) -> str:
    """One ``key = value`` line's text (a mapping value as an inline table)."""
    if isinstance(value, Mapping):
        table = tomlkit.inline_table()
        table.update(value)
        rendered = table.as_string()
    else:
        rendered = tomlkit.item(value).as_string()
    return f"{tomlkit.key(key).as_string()} = {rendered}"


def render_table(path: tuple[str, ...], entry: Mapping[str, Any], newline: str = "\n") -> str:
    """``[a.b]`` and one ``key = value`` line per item; a mapping value is an inline table."""
    header = ".".join(tomlkit.key(part).as_string() for part in path)
    lines = [f"[{header}]", *(_pair(key, value) for key, value in entry.items())]
    return newline.join(lines) + newline


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _expected(value: dict[str, Any], path: tuple[str, str], entry: Any) -> dict[str, Any]:
    container, name = path
    expected = copy.deepcopy(value)
    servers = expected.setdefault(container, {})
    if entry is None:
        del servers[name]
        if not servers:
            del expected[container]
    else:
        servers[name] = copy.deepcopy(entry)
    return expected


def _matches(text: str, expected: dict[str, Any], path: tuple[str, str]) -> bool:
    """Whether ``text`` reads as ``expected`` (an empty ``path[0]`` table counts as absent:
    cutting the last ``[mcp_servers.x]`` also ends an implicit ``mcp_servers``)."""
    try:
        got = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    if got.get(path[0]) == {} and path[0] not in expected:
        del got[path[0]]
    return same_value(got, expected)


def _append(text: str, path: tuple[str, str], entry: Mapping[str, Any]) -> str:
    newline = _newline(text)
    if not text.strip(" \t\r\n"):
        separator = "" if not text else newline
    elif text.endswith("\n"):
        separator = newline
    else:
        separator = newline + newline
    return text + separator + render_table(path, entry, newline)


def _tomlkit_set(text: str, path: tuple[str, str], entry: Mapping[str, Any] | None) -> str:
    """The edit made in ``tomlkit``'s document model: set (or, for ``None``, delete)
    ``path``; an inline-table container gets an inline table."""
    container_key, name = path
    document = tomlkit.parse(text)
    container = document.get(container_key)
    if entry is None:
        if container is not None and name in container:
            del container[name]
        return tomlkit.dumps(document)
    if container is None:
        container = tomlkit.table(is_super_table=True)
        document[container_key] = container
    if isinstance(container, InlineTable):
        item: InlineTable | Table = tomlkit.inline_table()
    else:
        item = tomlkit.table()
    for key, value in entry.items():
        if isinstance(value, Mapping):
            nested = tomlkit.inline_table()
            nested.update(value)
            item[key] = nested
        else:
            item[key] = value
    container[name] = item
    return tomlkit.dumps(document)


def add_table(text: str, path: tuple[str, str], entry: Mapping[str, Any]) -> str:
    """``text`` with the table ``[path]`` holding ``entry`` added (the caller has checked
    that it is absent and that ``path[0]`` is a table)."""
    expected = _expected(load(text), path, entry)
    appended = _append(text, path, entry)
    if _matches(appended, expected, path):
        return appended
    return _tomlkit_set(text, path, entry)


def remove_table(text: str, path: tuple[str, str]) -> str:
    """``text`` without the table ``[path]`` (the caller has checked that it exists)."""
    expected = _expected(load(text), path, None)
    cut = _cut_blocks(text, _blocks(text, path))
    if _matches(cut, expected, path):
        return cut
    return _tomlkit_set(text, path, None)


def replace_table(text: str, path: tuple[str, str], entry: Mapping[str, Any]) -> str:
    """``text`` with the table ``[path]`` replaced by one holding only ``entry``."""
    expected = _expected(load(text), path, entry)
    cut = _cut_blocks(text, _blocks(text, path))
    spliced = _append(cut, path, entry)
    if _matches(spliced, expected, path):
        return spliced
    return _tomlkit_set(_tomlkit_set(text, path, None), path, entry)


def _insert_key(text: str, table: tuple[str, ...], key: str, value: Any) -> str | None:
    """``text`` with ``key = value`` after the last key line of the ``[table]`` block
    (before the blank and comment lines that lead to the next header), indented like
    that line; ``None`` when ``table`` has no header of its own."""
    lines = _Scanner(text).lines()
    header = next(
        (i for i, line in enumerate(lines) if line.kind == "header" and line.header == table),
        None,
    )
    if header is None:
        return None
    last = header
    for index in range(header + 1, len(lines)):
        if lines[index].kind == "header":
            break
        if lines[index].kind in ("key", "continuation"):
            last = index
    end = lines[last].end
    indent = ""
    if last != header:
        first = last
        while lines[first].kind == "continuation":  # back to the key line it continues
            first -= 1
        statement = text[lines[first].start : lines[first].end]
        indent = statement[: len(statement) - len(statement.lstrip(" \t"))]
    newline = _newline(text)
    before = "" if text[:end].endswith("\n") else newline
    return text[:end] + before + indent + _pair(key, value) + newline + text[end:]


def _patch(
    table: Any,
    where: tuple[str, ...],
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    added: list[tuple[tuple[str, ...], str, Any]],
) -> None:
    """Turn ``table`` (the ``tomlkit`` table at ``where``, reading as ``old``) into
    ``new``: changed and removed keys in place; keys new to a standard table are listed
    in ``added`` for :func:`_insert_key` (``tomlkit`` would put them after the comments
    that lead to the next table)."""
    for key in old:
        if key not in new:
            del table[key]
    for key, value in new.items():
        if key in old and same_value(old[key], value):
            continue
        current = table.get(key) if key in old else None
        if (
            isinstance(old.get(key), Mapping)
            and isinstance(value, Mapping)
            and isinstance(current, (Table, InlineTable))
        ):
            _patch(current, (*where, key), old[key], value, added)
        elif key not in old and not isinstance(table, InlineTable):
            added.append((where, key, value))
        elif isinstance(value, Mapping):
            nested = tomlkit.inline_table()
            nested.update(value)
            table[key] = nested
        else:
            table[key] = value


def _update_in_place(
    text: str, path: tuple[str, str], old: Mapping[str, Any], new: Mapping[str, Any]
) -> str | None:
    added: list[tuple[tuple[str, ...], str, Any]] = []
    try:
        document = tomlkit.parse(text)
        _patch(document[path[0]][path[1]], path, old, new, added)
        edited: str | None = tomlkit.dumps(document)
    except (tomlkit.exceptions.TOMLKitError, KeyError, TypeError, ValueError, AttributeError):
        return None
    for table, key, value in added:
        assert edited is not None
        edited = _insert_key(edited, table, key, value)
        if edited is None:
            return None
    return edited


def update_table(
    text: str, path: tuple[str, str], old: Mapping[str, Any], new: Mapping[str, Any]
) -> str:
    """``text`` with the table ``[path]``, which reads as ``old``, turned into ``new``: the
    keys that differ are set in place (the others, their comments and the table's place
    in the file stay); :func:`replace_table` where that does not read back as expected."""
    expected = _expected(load(text), path, new)
    patched = _update_in_place(text, path, old, new)
    if patched is not None and _matches(patched, expected, path):
        return patched
    return replace_table(text, path, new)
