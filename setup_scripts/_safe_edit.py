"""Safe edits of a host's config file: the one path by which ``driftguard setup`` changes
a file (docs/design.md §8; docs/host-configs.md §3.6).

Every edit, in order:

1. **Read and parse.** A file that is not UTF-8 or does not parse in its format, whose
   top level is not an object/table, or whose server table is not one, is *refused*:
   nothing is written, and the report says why. Nothing is ever "repaired".
2. **Decide** (:func:`~driftguard.setup_scripts._base.decide`): add, keep (already
   present), update (only with ``--update``), leave a differing entry alone, remove.
   A file that must change but has no write permission bit at all (``mode & 0o222 ==
   0``) is *refused* as read-only: the rename of step 6 would replace it regardless of
   its mode (and root passes every ``os.access`` check), so the bits are what count.
3. **Build the new text** with the format's splice (``_jsonc``, ``_toml``) and check it
   *before* writing: parsed, it must equal the old content with exactly driftguard's
   entry added, replaced or removed (type-strict deep equality), else the edit fails.
   An update replaces only driftguard's keys of the entry (``command``, ``args``,
   ``type``, its variable in ``env``) and keeps the user's
   (:func:`~driftguard.setup_scripts._base.merged_entry`), member by member where the
   format allows, so comments inside the entry stay too. A host may also name
   *defaults*: keys written with a value the user may change (Codex's ``required``);
   an entry without one differs, and an update adds it but keeps the user's value.
4. ``--dry-run`` stops here and reports the unified diff.
5. **Back up** the file next to itself as ``<name>.driftguard-backup-<UTC time>``
   (complete or absent: written to a temporary name, fsync-ed, then linked under that
   name, never replacing another backup; with the file's own permission bits:
   ``~/.claude.json`` holds OAuth state and must not become world-readable through its
   backup). Only the newest
   :data:`KEEP_BACKUPS` backups of each file are kept; older files with exactly that
   name pattern (driftguard's own) are deleted, nothing else ever is.
6. **Write atomically** (:func:`driftguard._fileio.write_atomic`, driftguard's one atomic
   writer): a temporary file in the same folder, flushed and fsync-ed, given the
   original's permission bits (new files: ``0600``), then ``os.replace``. A
   symlinked config file is followed and its target is replaced, so a dotfile link
   stays a link. Just before the rename the file is read again: if another program
   (a running Claude Code session, say) changed it meanwhile, nothing is written.
7. **Re-read and verify**; on a mismatch the original bytes are put back and the edit
   is reported as failed.

Uninstall gives back the file as it was before install: the entry comes out through the
inverse splice, and what install *created* — the file, the ``mcpServers`` object, a
project's config folder — is recorded in a small ledger (``~/.driftcli/setup-ledger.json``,
relocated by ``DRIFTGUARD_HOME``) and removed again when nothing else was put in it
since (a file is deleted only when nothing but ``{}`` or blank text would remain, so
there is nothing of the user's to back up). A folder setup created goes once it is empty
(:func:`remove_created_folders`); one that still holds something stays, recorded, and
goes with a later uninstall that finds it empty; a folder that was there before is never
removed. An uninstall forgets only the records of what
it took out, so that the next one of the same file still knows the rest (Gemini CLI's
``settings.json`` holds the server entry and the hooks, removed one after the other).
Without the ledger (lost, or another state
folder), uninstall still removes only the entry and leaves an empty ``mcpServers``.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import tomlkit.exceptions

from driftguard import jsonc as _jsonc
from driftguard import paths
from driftguard._fileio import complete_temporary, fsync_folder, link_new, write_atomic
from driftguard.errors import ConfigSyntaxError
from driftguard.setup_scripts import _toml
from driftguard.setup_scripts._base import (
    SERVER_NAME,
    Decision,
    HostName,
    HostResult,
    SetupRequest,
    Status,
    decide,
    display_path,
    merged_entry,
    missing_defaults,
    not_installed,
    same_value,
    stdio_entry,
    stdio_matches,
)

__all__ = [
    "KEEP_BACKUPS",
    "LEDGER_NAME",
    "ConfigSyntaxError",
    "Inspected",
    "JsonServers",
    "Plan",
    "ServersFormat",
    "TomlServers",
    "atomic_write",
    "describe_entry",
    "edit_servers_file",
    "edit_stdio_host",
    "inspect_config",
    "is_read_only",
    "missing_folders",
    "plan_edit",
    "prune_backups",
    "read_ledger",
    "record_folders",
    "remove_created_folders",
    "unified_diff",
    "write_backup",
]

LEDGER_NAME = "setup-ledger.json"
FOLDER = "folder"
"""The ledger's record of a folder setup created: under a config file's key, the file's
folder; under a folder's own key (:func:`record_folders`), that folder."""
NEW_FILE_MODE = 0o600
KEEP_BACKUPS = 3
"""How many of its own backups of one file driftguard keeps (the newest)."""
BACKUP_MARK = ".driftguard-backup-"


class ServersFormat(Protocol):
    """A config format with a table of MCP servers under one top-level key."""

    @property
    def label(self) -> str:
        """The format's name in messages (``JSON``, ``JSONC``, ``TOML``)."""
        ...

    @property
    def container(self) -> str:
        """The top-level key of the server table (``mcpServers``, ``mcp_servers``)."""
        ...

    def load(self, text: str) -> dict[str, Any]:
        """The file's content; :class:`ConfigSyntaxError` when it cannot be read safely."""
        ...

    def add(self, text: str, entry: Mapping[str, Any]) -> str:
        """``text`` with driftguard's entry added (creating the server table if absent)."""
        ...

    def replace(self, text: str, entry: Mapping[str, Any]) -> str:
        """``text`` with driftguard's entry replaced by ``entry``."""
        ...

    def update(self, text: str, old: Any, new: Mapping[str, Any]) -> str:
        """``text`` with driftguard's entry ``old`` turned into ``new``, changing only the
        keys that differ where the format allows (else as :meth:`replace`)."""
        ...

    def remove(self, text: str, *, drop_container: bool) -> str:
        """``text`` without driftguard's entry; with ``drop_container``, without the then
        empty server table as well."""
        ...

    def create(self, entry: Mapping[str, Any]) -> str:
        """A new file holding only the server table with driftguard's entry."""
        ...


@dataclass(frozen=True, slots=True)
class JsonServers:
    """``mcpServers`` in a strict JSON file, or in a JSONC file when ``comments``."""

    comments: bool
    container: str = "mcpServers"

    @property
    def label(self) -> str:
        return "JSON with comments" if self.comments else "JSON"

    def _document(self, text: str) -> tuple[_jsonc.JsonDocument, _jsonc.ObjectSpan]:
        try:
            document = _jsonc.parse(text, comments=self.comments)
        except _jsonc.JsonSyntaxError as exc:
            raise ConfigSyntaxError(str(exc)) from None
        root = document.root
        if root is None:
            raise ConfigSyntaxError("the top level is not a JSON object")
        if root.count(self.container) > 1:
            raise ConfigSyntaxError(f'"{self.container}" appears more than once')
        found = root.find(self.container)
        servers = None if found is None else found[1].obj
        if servers is not None and servers.count(SERVER_NAME) > 1:
            raise ConfigSyntaxError(f'"{SERVER_NAME}" appears more than once')
        return document, root

    def _servers(self, text: str) -> tuple[_jsonc.JsonDocument, _jsonc.ObjectSpan, _jsonc.Member]:
        document, root = self._document(text)
        found = root.find(self.container)
        if found is None or found[1].obj is None:
            raise ConfigSyntaxError(f'"{self.container}" is not an object')
        return document, root, found[1]

    def load(self, text: str) -> dict[str, Any]:
        value: dict[str, Any] = self._document(text)[0].value
        return value

    def add(self, text: str, entry: Mapping[str, Any]) -> str:
        document, root = self._document(text)
        found = root.find(self.container)
        if found is None:
            return _jsonc.add_member(document, root, self.container, {SERVER_NAME: entry})
        servers = found[1].obj
        if servers is None:
            raise ConfigSyntaxError(f'"{self.container}" is not an object')
        return _jsonc.add_member(document, servers, SERVER_NAME, entry)

    def replace(self, text: str, entry: Mapping[str, Any]) -> str:
        document, _, container = self._servers(text)
        assert container.obj is not None
        found = container.obj.find(SERVER_NAME)
        assert found is not None
        return _jsonc.replace_member_value(document, container.obj, found[1], entry)

    def update(self, text: str, old: Any, new: Mapping[str, Any]) -> str:
        # Member by member, so the user's members of the entry keep their bytes and their
        # comments; the whole entry is replaced when that cannot be done in place (a
        # repeated key inside it, say), and the caller checks the result either way.
        if isinstance(old, Mapping):
            try:
                patched = self._patch(text, (), old, new)
                servers = self.load(patched).get(self.container)
            except ConfigSyntaxError:
                servers = None
            if isinstance(servers, dict) and same_value(servers.get(SERVER_NAME), dict(new)):
                return patched
        return self.replace(text, new)

    def _object_at(
        self, text: str, path: tuple[str, ...]
    ) -> tuple[_jsonc.JsonDocument, _jsonc.ObjectSpan]:
        """The object at ``mcpServers.driftguard.<path>``; :class:`ConfigSyntaxError` when
        a key on the way is repeated or not an object."""
        document, _, container = self._servers(text)
        obj = container.obj
        for key in (SERVER_NAME, *path):
            assert obj is not None
            found = obj.find(key)
            if found is None or found[1].obj is None or obj.count(key) > 1:
                raise ConfigSyntaxError(f'"{key}" cannot be edited in place')
            obj = found[1].obj
        assert obj is not None
        return document, obj

    def _patch(
        self, text: str, path: tuple[str, ...], old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> str:
        for key in old:
            if key not in new:
                document, obj = self._object_at(text, path)
                located = obj.find(key)
                assert located is not None
                text = _jsonc.remove_member(document, obj, located[0])
        for key, value in new.items():
            if key in old and same_value(old[key], value):
                continue
            if key in old and isinstance(old[key], Mapping) and isinstance(value, Mapping):
                text = self._patch(text, (*path, key), old[key], value)
                continue
            document, obj = self._object_at(text, path)
            if obj.count(key) > 1:
                raise ConfigSyntaxError(f'"{key}" appears more than once')
            found = obj.find(key)
            if found is None:
                text = _jsonc.add_member(document, obj, key, value)
            else:
                text = _jsonc.replace_member_value(document, obj, found[1], value)
        return text

    def remove(self, text: str, *, drop_container: bool) -> str:
        document, root, container = self._servers(text)
        assert container.obj is not None
        found = container.obj.find(SERVER_NAME)
        assert found is not None
        if drop_container and len(container.obj.members) == 1:
            located = root.find(self.container)
            assert located is not None
            return _jsonc.remove_member(document, root, located[0])
        return _jsonc.remove_member(document, container.obj, found[0])

    def create(self, entry: Mapping[str, Any]) -> str:
        return _jsonc.render_document({self.container: {SERVER_NAME: dict(entry)}})


@contextlib.contextmanager
def _tomlkit_errors() -> Iterator[None]:
    """Turn an error of a ``tomlkit`` fallback edit into :class:`ConfigSyntaxError`."""
    try:
        yield
    except (tomlkit.exceptions.TOMLKitError, _toml.TomlSyntaxError, ValueError, KeyError) as exc:
        raise ConfigSyntaxError(f"tomlkit could not make the edit: {exc}") from None


@dataclass(frozen=True, slots=True)
class TomlServers:
    """``[mcp_servers.<name>]`` tables in a TOML file (Codex CLI)."""

    container: str = "mcp_servers"

    @property
    def label(self) -> str:
        return "TOML"

    @property
    def _path(self) -> tuple[str, str]:
        return (self.container, SERVER_NAME)

    def load(self, text: str) -> dict[str, Any]:
        try:
            return _toml.load(text)
        except _toml.TomlSyntaxError as exc:
            raise ConfigSyntaxError(str(exc)) from None

    def add(self, text: str, entry: Mapping[str, Any]) -> str:
        with _tomlkit_errors():
            return _toml.add_table(text, self._path, entry)

    def replace(self, text: str, entry: Mapping[str, Any]) -> str:
        with _tomlkit_errors():
            return _toml.replace_table(text, self._path, entry)

    def update(self, text: str, old: Any, new: Mapping[str, Any]) -> str:
        with _tomlkit_errors():
            if isinstance(old, Mapping):
                return _toml.update_table(text, self._path, old, new)
            return _toml.replace_table(text, self._path, new)

    def remove(self, text: str, *, drop_container: bool) -> str:
        # A table created by install is implicit in its [mcp_servers.driftguard] header
        # and goes with it; an explicit [mcp_servers] is the user's and stays.
        with _tomlkit_errors():
            return _toml.remove_table(text, self._path)

    def create(self, entry: Mapping[str, Any]) -> str:
        return _toml.render_table(self._path, entry)


# --------------------------------------------------------------------------------------
# File primitives


def _lines(text: str | None) -> list[str]:
    """``text`` cut after each ``\n`` (not at the other breaks ``str.splitlines`` knows,
    such as U+0085 or U+2028, which may sit inside a string value)."""
    return [] if text is None else re.findall(r"[^\n]*\n|[^\n]+$", text)


def unified_diff(path: Path, before: str | None, after: str | None) -> str:
    """The change as a unified diff (``/dev/null`` for a created or deleted file)."""
    shown = display_path(path)
    diff = difflib.unified_diff(
        _lines(before),
        _lines(after),
        fromfile="/dev/null" if before is None else shown,
        tofile="/dev/null" if after is None else shown,
    )
    marker = "\n\\ No newline at end of file\n"
    lines = [line if line.endswith("\n") else line + marker for line in diff]
    return "".join(lines)


def atomic_write(path: Path, data: bytes, mode: int) -> None:
    """Replace ``path`` with ``data`` (:func:`driftguard._fileio.write_atomic`): a
    temporary file in the same folder, fsync-ed, given exactly the permission bits
    ``mode``, renamed over ``path``, the rename made durable. Raises :class:`OSError`."""
    write_atomic(path, data, mode=mode, exact_mode=True, sync_folder=True)


def write_backup(path: Path, data: bytes, mode: int) -> Path:
    """Write ``data`` to ``<path>.driftguard-backup-<UTC time>`` (``-2``, ``-3`` … when
    that name is taken) with permission bits ``mode``; returns the backup's path.

    Complete or absent: the bytes go to a temporary file in the same
    folder first (:func:`driftguard._fileio.complete_temporary`), which is flushed and
    fsync-ed and only then linked under the backup's name
    (:func:`driftguard._fileio.link_new`: never replaces an existing backup). A full disk,
    a file-size limit or a crash therefore leave no file named like a backup that is
    shorter than the original: at most a ``.<name>.*.tmp`` file, which is deleted when
    the write fails.

    Raises:
        OSError: the folder cannot be written (nothing named like a backup is left).
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    temporary = complete_temporary(path, data, mode=mode, exact_mode=True)
    try:
        # After the last-but-one: a suffix freed by pruning is never reused, so the order of
        # the names stays the order of the writes (prune_backups keeps the newest by name).
        attempt = _last_suffix(path, stamp) + 1
        while True:
            suffix = "" if attempt == 1 else f"-{attempt}"
            backup = path.with_name(f"{path.name}{BACKUP_MARK}{stamp}{suffix}")
            if link_new(temporary, backup):
                break
            attempt += 1
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    fsync_folder(path.parent)
    prune_backups(path, KEEP_BACKUPS)
    return backup


def _last_suffix(path: Path, stamp: str) -> int:
    """The highest ``n`` of the backups of ``path`` named with ``stamp`` (1 for the name
    without a suffix), or 0 when there is none."""
    pattern = re.compile(re.escape(f"{path.name}{BACKUP_MARK}{stamp}") + r"(?:-(\d+))?")
    try:
        names = [entry.name for entry in path.parent.iterdir()]
    except OSError:
        return 0
    return max(
        (int(match[1] or 1) for name in names if (match := pattern.fullmatch(name))), default=0
    )


def prune_backups(path: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` backups :func:`write_backup` made of ``path``;
    returns the deleted paths.

    Only regular files named exactly ``<name>.driftguard-backup-<YYYYmmddTHHMMSSZ>``
    (optionally ``-<n>``, n ≥ 2) count; anything else in the folder — a backup the user
    renamed, another tool's ``.bak``, a symlink — is never touched. Newest is by the
    UTC time in the name, then ``n``. A backup that cannot be deleted is left.
    """
    pattern = re.compile(
        re.escape(path.name + BACKUP_MARK) + r"(\d{8}T\d{6}Z)(?:-([2-9]|[1-9]\d+))?"
    )
    found: list[tuple[tuple[str, int], Path]] = []
    try:
        candidates = list(path.parent.iterdir())
    except OSError:
        return []
    for candidate in candidates:
        match = pattern.fullmatch(candidate.name)
        if match is None or candidate.is_symlink() or not candidate.is_file():
            continue
        found.append(((match[1], int(match[2] or 1)), candidate))
    found.sort()
    deleted = []
    for _, old in found[: max(len(found) - keep, 0)]:
        try:
            old.unlink()
        except OSError:
            continue
        deleted.append(old)
    return deleted


def is_read_only(path: Path) -> bool:
    """Whether ``path`` has no write permission bit at all (``mode & 0o222 == 0``).

    The bits, not :func:`os.access`: root may write anything, and the atomic rename
    would replace a read-only file anyway; a file the user made read-only is theirs to
    open up. ``False`` when it cannot be looked at (the edit then fails and says why).
    """
    try:
        return path.stat().st_mode & 0o222 == 0
    except OSError:
        return False


def _real_target(path: Path) -> Path:
    """The file a (possibly symlinked) config path really names."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


# --------------------------------------------------------------------------------------
# Ledger of what install created


def _ledger_path() -> Path:
    return paths.state_dir() / LEDGER_NAME


def read_ledger() -> dict[str, frozenset[str]]:
    """What install created, per config file (real path): ``file``, ``container``,
    ``folder`` (its folder), the hooks' ``hooks`` and ``hooks.<event>``; and per folder
    setup created (:func:`record_folders`): ``folder``. An unreadable ledger reads as
    empty (uninstall then keeps containers and folders)."""
    try:
        raw = json.loads(_ledger_path().read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    created = raw.get("created") if isinstance(raw, dict) else None
    if not isinstance(created, dict):
        return {}
    return {
        key: frozenset(item for item in value if isinstance(item, str))
        for key, value in created.items()
        if isinstance(key, str) and isinstance(value, list)
    }


def _update_ledger(
    config: Path, created: frozenset[str] | None, forgotten: frozenset[str] | None = None
) -> str | None:
    """Add ``created`` to what install created in ``config``; with ``created`` ``None``
    (after uninstall) forget the records ``forgotten`` (``None``: all of them, the file is
    gone). Returns a warning when the ledger cannot be written (the edit itself is done)."""
    ledger = read_ledger()
    key = str(config)
    if created is None:
        if key not in ledger:
            return None
        kept = frozenset() if forgotten is None else ledger[key] - forgotten
        if kept == ledger[key]:
            return None
        if kept:
            ledger[key] = kept
        else:
            del ledger[key]
    else:
        if created <= ledger.get(key, frozenset()):
            return None
        ledger[key] = ledger.get(key, frozenset()) | created
    return _save_ledger(ledger)


def _save_ledger(ledger: Mapping[str, frozenset[str]]) -> str | None:
    """Write ``ledger``; a warning when it cannot be written."""
    target = _ledger_path()
    payload = {"version": 1, "created": {k: sorted(v) for k, v in sorted(ledger.items())}}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, (json.dumps(payload, indent=2) + "\n").encode("utf-8"), 0o600)
    except OSError as exc:
        return f"could not record this in {display_path(target)}: {exc.strerror or exc}"
    return None


def missing_folders(path: Path) -> list[Path]:
    """The folders above ``path`` that do not exist yet, nearest first: what writing
    ``path`` creates."""
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def record_folders(folders: Iterable[Path]) -> str | None:
    """Record in the ledger that setup created each of ``folders`` (key: the folder's real
    path, record ``folder``), for :func:`remove_created_folders`; a warning when the
    ledger cannot be written."""
    ledger = read_ledger()
    keys = [str(Path(os.path.realpath(folder))) for folder in folders]
    if all(FOLDER in ledger.get(key, frozenset()) for key in keys):
        return None
    for key in keys:
        ledger[key] = ledger.get(key, frozenset()) | {FOLDER}
    return _save_ledger(ledger)


def remove_created_folders(folder: Path, *, created: bool = False) -> str | None:
    """Once a file setup wrote in ``folder`` is gone: remove ``folder``, and each folder
    above it, while setup created it (:func:`record_folders`; ``created``: the caller knows
    it made ``folder``) and it is empty. One that still holds something stays, recorded,
    so that a later uninstall removes it once it is empty (the Cursor project rule's
    ``rules/`` inside the ``.cursor/`` that the server entry's file made). Returns a
    warning when the ledger cannot be written."""
    ledger = dict(read_ledger())
    changed = False
    while True:
        key = str(Path(os.path.realpath(folder)))
        recorded = FOLDER in ledger.get(key, frozenset())
        if not (created or recorded):
            break
        try:
            folder.rmdir()
        except FileNotFoundError:
            pass  # gone already: forget it and look further up
        except OSError:  # not empty (or not a plain folder): left, to go when empty
            if not recorded and folder.is_dir():
                ledger[key] = ledger.get(key, frozenset()) | {FOLDER}
                changed = True
            break
        if recorded:
            kept = ledger[key] - {FOLDER}
            if kept:
                ledger[key] = kept
            else:
                del ledger[key]
            changed = True
        folder, created = folder.parent, False
    return _save_ledger(ledger) if changed else None


# --------------------------------------------------------------------------------------
# The edit


def describe_entry(entry: Any) -> str:
    """A short description of an existing entry: its command line, or its JSON."""
    if isinstance(entry, Mapping) and isinstance(entry.get("command"), str):
        args = entry.get("args")
        words = [entry["command"]]
        if isinstance(args, list):
            words += [str(arg) for arg in args]
        return " ".join(words)
    return json.dumps(entry, ensure_ascii=False, default=str)[:200]


def _without_empty(value: Mapping[str, Any], container: str) -> dict[str, Any]:
    """``value`` with an empty server table dropped (an empty table and none are the same
    to every host)."""
    result = dict(value)
    if result.get(container) == {}:
        del result[container]
    return result


def _expected(
    value: Mapping[str, Any], container: str, entry: Mapping[str, Any] | None
) -> dict[str, Any]:
    expected = copy.deepcopy(dict(value))
    if entry is None:
        servers = expected.get(container)
        if isinstance(servers, dict):
            servers.pop(SERVER_NAME, None)
    else:
        expected.setdefault(container, {})[SERVER_NAME] = copy.deepcopy(dict(entry))
    return _without_empty(expected, container)


@dataclass(frozen=True, slots=True)
class Inspected:
    """A config file read and parsed, and what to do with driftguard's entry in it."""

    path: Path
    target: Path
    """``path``, or the file it links to."""
    original: bytes | None
    """The file's bytes (``None``: it does not exist)."""
    text: str | None
    value: dict[str, Any]
    existing: Any
    """driftguard's entry as it is (``None`` when absent)."""
    decision: Decision


@dataclass(frozen=True, slots=True)
class Plan:
    """An edit ready to write."""

    status: Status
    text: str | None
    """The new text, or ``None`` when the file is to be deleted."""
    expected: dict[str, Any]
    """What the new text reads as (an empty server table dropped)."""
    created: frozenset[str] | None
    """Install: what it creates (added to the ledger); uninstall: ``None``."""
    diff: str
    remove_folder: bool = False
    forgotten: frozenset[str] = frozenset()
    """Uninstall: the ledger's records of what this edit took out (or found gone); the
    others stay, for the next edit of the same file — Gemini CLI's ``settings.json`` holds
    both the server entry and the hooks. Deleting the file forgets them all."""


def _plan(
    found: Inspected,
    fmt: ServersFormat,
    entry: Mapping[str, Any],
    defaults: Mapping[str, Any],
) -> Plan:
    """The new text for ``found.decision`` and the content it must read back as."""
    value, text = found.value, found.text
    servers = value.get(fmt.container)
    ledger_key = str(Path(os.path.realpath(found.target)))
    if found.decision == "add":
        entry = {**entry, **defaults}
        expected = _expected(value, fmt.container, entry)
        if text is None:
            created = {"file", "container"}
            if not found.target.parent.exists():
                created.add(FOLDER)
            new = fmt.create(entry)
            return Plan(
                "added", new, expected, frozenset(created), unified_diff(found.path, None, new)
            )
        made = frozenset({"container"}) if servers is None else frozenset()
        new = fmt.add(text, entry)
        return Plan("added", new, expected, made, unified_diff(found.path, text, new))
    assert text is not None
    if found.decision == "update":
        merged = merged_entry(found.existing, entry, defaults)
        expected = _expected(value, fmt.container, merged)
        new = fmt.update(text, found.existing, merged)
        return Plan("updated", new, expected, frozenset(), unified_diff(found.path, text, new))
    assert isinstance(servers, dict)
    made = read_ledger().get(ledger_key, frozenset())
    drop = "container" in made and set(servers) == {SERVER_NAME}
    expected = _expected(value, fmt.container, None)
    removed: str | None = fmt.remove(text, drop_container=drop)
    if "file" in made and removed is not None and removed.strip(" \t\r\n") in ("", "{}"):
        removed = None  # install created the file and nothing else was put in it since
    diff = unified_diff(found.path, text, removed)
    return Plan(
        "removed",
        removed,
        expected,
        None,
        diff,
        remove_folder=FOLDER in made,
        forgotten=frozenset({"container"}),
    )


def inspect_config(
    host: HostName,
    path: Path,
    fmt: ServersFormat,
    request: SetupRequest,
    matches: Callable[[Any], bool],
    defaults: Mapping[str, Any] | None = None,
) -> Inspected | HostResult:
    """Read and parse ``path`` and decide what to do; a :class:`HostResult` instead when
    there is nothing to write: the file is refused, or the entry is already as wanted
    (``already present``, ``not present``), or differs without ``--update`` (``skipped``;
    the detail names the ``defaults`` keys the entry lacks)."""
    shown = display_path(path)
    target = _real_target(path)

    def stop(status: Status, detail: str, ok: bool) -> HostResult:
        return HostResult(host, status, detail, ok=ok, path=path, dry_run=request.dry_run)

    try:
        original = _read(target)
    except OSError as exc:
        return stop("refused", f"cannot read {shown}: {exc.strerror or exc}", False)
    text: str | None = None
    value: dict[str, Any] = {}
    if original is not None:
        try:
            text = original.decode("utf-8")
            value = fmt.load(text)
        except UnicodeDecodeError:
            return stop("refused", f"{shown} is not UTF-8 text; nothing changed", False)
        except ConfigSyntaxError as exc:
            detail = f"cannot parse {shown} as {fmt.label}: {exc}; nothing changed"
            return stop("refused", detail, False)
    servers = value.get(fmt.container)
    if servers is not None and not isinstance(servers, dict):
        detail = f'"{fmt.container}" in {shown} is not a table of servers; nothing changed'
        return stop("refused", detail, False)
    present = isinstance(servers, dict) and SERVER_NAME in servers
    existing = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    decision = decide(request, present, existing, matches)
    if decision == "keep":
        return stop("already present", shown, True)
    if decision == "absent":
        return stop("not present", shown, True)
    if decision == "differs":
        lacking = missing_defaults(existing, defaults or {})
        without = f", without {' or '.join(lacking)}" if lacking else ""
        detail = (
            f"{shown} already has a different {SERVER_NAME} entry "
            f"({describe_entry(existing)}{without}); --update replaces it"
        )
        return stop("skipped", detail, False)
    if original is not None and is_read_only(target):
        return stop("refused", f"{shown} is read-only; nothing changed", False)
    return Inspected(path, target, original, text, value, existing, decision)


def edit_servers_file(
    host: HostName,
    path: Path,
    fmt: ServersFormat,
    request: SetupRequest,
    entry: Mapping[str, Any],
    *,
    matches: Callable[[Any], bool],
    notes: tuple[str, ...] = (),
    defaults: Mapping[str, Any] | None = None,
) -> HostResult:
    """Add, keep, update or remove driftguard's entry in ``path`` safely (module doc).

    ``path`` need not exist: install creates it (and its folder, when the folder's parent
    exists: a project's ``.gemini/``); uninstall then has nothing to do. ``notes`` are
    shown when the file is (or, in a dry run, would be) changed. ``defaults`` are keys
    added with ``entry`` whose value is then the user's (``matches`` must require them:
    :func:`~driftguard.setup_scripts._base.stdio_matches`).
    """
    found = inspect_config(host, path, fmt, request, matches, defaults)
    if isinstance(found, HostResult):
        return found
    planned = plan_edit(host, found, fmt, entry, request, defaults)
    if isinstance(planned, HostResult):
        return planned
    shown = display_path(path)
    if request.dry_run:
        return HostResult(
            host, planned.status, shown, path=path, diff=planned.diff, notes=notes, dry_run=True
        )
    return _write(host, found, fmt, planned, notes)


def edit_stdio_host(
    host: HostName,
    root: Path,
    path: Path,
    fmt: ServersFormat,
    request: SetupRequest,
    *,
    notes: tuple[str, ...] = (),
    defaults: Mapping[str, Any] | None = None,
) -> HostResult:
    """The whole setup of a host that keeps a servers file of its own (Gemini CLI, Codex
    CLI, Cursor): skipped when its folder ``root`` does not exist, else driftguard's stdio
    entry (``<command> serve`` with the host hint, :func:`stdio_entry`, plus the host's
    ``defaults``) edited into ``path`` by :func:`edit_servers_file`."""
    if not root.is_dir():
        return not_installed(host, root)
    entry = stdio_entry(host, request.command)
    return edit_servers_file(
        host,
        path,
        fmt,
        request,
        entry,
        matches=lambda existing: stdio_matches(existing, entry, defaults),
        notes=notes,
        defaults=defaults,
    )


def plan_edit(
    host: HostName,
    found: Inspected,
    fmt: ServersFormat,
    entry: Mapping[str, Any],
    request: SetupRequest,
    defaults: Mapping[str, Any] | None = None,
) -> Plan | HostResult:
    """The new text for ``found.decision`` (``add``, ``update`` or ``remove``), checked to
    read back as the old content with only driftguard's entry changed; a ``failed``
    :class:`HostResult` when it does not."""
    shown = display_path(found.path)

    def failed(detail: str) -> HostResult:
        return HostResult(
            host, "failed", detail, ok=False, path=found.path, dry_run=request.dry_run
        )

    try:
        plan = _plan(found, fmt, entry, defaults or {})
    except ConfigSyntaxError as exc:
        return failed(f"cannot edit {shown}: {exc}; nothing changed")
    if plan.text is not None:
        try:
            produced = _without_empty(fmt.load(plan.text), fmt.container)
        except ConfigSyntaxError as exc:
            return failed(f"the edit of {shown} would not parse ({exc}); nothing changed")
        if not same_value(produced, plan.expected):
            return failed(f"the edit of {shown} would change more than the entry; nothing changed")
    return plan


def _write(
    host: HostName, found: Inspected, fmt: ServersFormat, plan: Plan, notes: tuple[str, ...]
) -> HostResult:
    """Back up, write atomically, re-read and verify (steps 5–7 of the module doc)."""
    path, target, original = found.path, found.target, found.original
    shown = display_path(path)
    mode = NEW_FILE_MODE
    backup: Path | None = None

    def failed(detail: str) -> HostResult:
        return HostResult(host, "failed", detail, ok=False, path=path, backup=backup)

    try:
        if original is not None:
            mode = target.stat().st_mode & 0o7777
        if original is not None and plan.text is not None:
            backup = write_backup(target, original, mode)
        elif not target.parent.exists():
            target.parent.mkdir()
        if _read(target) != original:
            return failed(f"{shown} was changed by another program meanwhile; rerun")
        if plan.text is None:
            os.unlink(target)
        else:
            atomic_write(target, plan.text.encode("utf-8"), mode)
    except OSError as exc:
        return failed(f"cannot write {shown}: {exc.strerror or exc}; it is unchanged")

    written = _read(target)
    if plan.text is None:
        verified = written is None
    else:
        try:
            verified = written is not None and same_value(
                _without_empty(fmt.load(written.decode("utf-8")), fmt.container), plan.expected
            )
        except (UnicodeDecodeError, ConfigSyntaxError):
            verified = False
    if not verified:
        with contextlib.suppress(OSError):
            if original is None:
                os.unlink(target)
            else:
                atomic_write(target, original, mode)
        return failed(f"{shown} did not read back as written; the original was put back")

    extra = list(notes)
    forgotten = None if plan.text is None else plan.forgotten
    warnings = [_update_ledger(Path(os.path.realpath(target)), plan.created, forgotten)]
    if plan.text is None:
        warnings.append(remove_created_folders(target.parent, created=plan.remove_folder))
    extra += [warning for warning in dict.fromkeys(warnings) if warning]
    return HostResult(
        host, plan.status, shown, path=path, diff=plan.diff, backup=backup, notes=tuple(extra)
    )
