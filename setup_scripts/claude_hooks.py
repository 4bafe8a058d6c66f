"""``driftguard setup --hooks``: the status line and the hooks in Claude Code's user
settings (issue #5 item 5; mcp-and-hosts.md §4.2).

The file is ``<config dir>/settings.json`` — ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``
(:func:`driftguard.setup_scripts.claude_code.config_dir`) — strict JSON (a comment or a
trailing comma is a "Settings Error" to Claude Code, mcp-and-hosts.md §3.1). Nothing is
written when Claude Code is not installed (no config folder).

What install adds, by the absolute path of the console script (quoted for the shell when
it needs to be), with ``H(cmd, s) = {"hooks": [{"type": "command", "command": cmd,
"timeout": s}]}``::

    "hooks": {
      "SessionStart":     [H("<abs> hook session-start", 10)],
      "UserPromptSubmit": [H("<abs> hook user-prompt-submit", 10)],
      "Stop":             [H("<abs> hook stop", 60)]
    },
    "statusLine": {"type": "command", "command": "<abs> statusline", "padding": 0}

Each matcher group is appended to the event's list; the user's own groups stay where they
are. The stop hook is synchronous on purpose: ``claude -p`` sends SIGTERM to ``async``
hooks when it exits (seen with Claude Code 2.1.197 here), and the prompt hook needs the
score of the turn that just ended.

**Never the user's status line.** Claude Code has one ``statusLine``. When the file
already has one that is not driftguard's, it is left alone and the report says so, with
the command that keeps it and appends the drift: ``<abs> statusline --wrap '<theirs>'``.

**Which entries are driftguard's.** A matcher group holding exactly one command handler
whose command is ``<…/driftguard> hook <event name>``, and a ``statusLine`` whose command
is ``<…/driftguard> statusline`` with no more words (a ``--wrap`` line is the user's own
edit, and stays). Install keeps them when they are exactly as wanted, replaces them with
``--update`` (e.g. after the virtual environment moved), and otherwise leaves them and
reports them (exit code 1).

**Safety** — the same path as every setup edit (:mod:`._safe_edit`): a file that is not
UTF-8, does not parse, repeats a key, or has ``hooks`` that is not an object or an event
that is not a list is refused; the new text is spliced into the old
(:mod:`._jsonc`: other bytes, key order and indentation kept) and checked to read back as
the old content with only driftguard's entries changed; ``--dry-run`` shows the diff; the
file is backed up, written atomically with its own permission bits and re-read. What
install created — the file, the ``hooks`` object, an event's list — goes into the setup
ledger, so that ``--uninstall`` removes exactly that again (without the ledger it removes
only driftguard's groups and status line, leaving empty lists). A file without any write
permission bit is refused as read-only.

**What a plain ``driftguard setup --uninstall`` says.** It removes the server entries
only, as asked (``--uninstall`` removes exactly the entry, design §8, and install added
the hooks only with ``--hooks``); but hooks and a status line left behind would run a
missing ``driftguard`` after every turn once the package is uninstalled, so
:func:`left_behind` reports them as ``still installed``, with the command that removes
them. A status line that wraps the user's own command through
``driftguard statusline --wrap`` is the user's edit: no uninstall rewrites it, both
point at the command to set back.

Report lines are labelled ``claude_code hooks`` (:data:`LABEL`), apart from the server's
``claude_code`` line.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from driftguard import jsonc as _jsonc
from driftguard.errors import ConfigSyntaxError, HookSettingsError
from driftguard.setup_scripts._base import (
    HostName,
    HostResult,
    SetupRequest,
    Status,
    display_path,
    not_installed,
    same_value,
)
from driftguard.setup_scripts._safe_edit import (
    Inspected,
    Plan,
    ServersFormat,
    _write,
    is_read_only,
    read_ledger,
    unified_diff,
)
from driftguard.setup_scripts.claude_code import config_dir, installed

__all__ = [
    "HOOK_EVENTS",
    "LABEL",
    "HookSpec",
    "hook_group",
    "is_our_group",
    "is_our_status_line",
    "left_behind",
    "run",
    "session_start_installed",
    "settings_file",
    "status_line",
    "wrap_command",
]

HOST: HostName = "claude_code"
LABEL = "claude_code hooks"
"""How the report names these results."""
REMOVE_COMMAND = "driftguard setup --hooks --uninstall"
HOOKS = "hooks"
STATUS_LINE = "statusLine"


@dataclass(frozen=True, slots=True)
class HookSpec:
    """One hook driftguard installs: Claude Code's event, our event name, the timeout (s)."""

    event: str
    name: str
    timeout: int


HOOK_EVENTS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "session-start", 10),
    HookSpec("UserPromptSubmit", "user-prompt-submit", 10),
    HookSpec("Stop", "stop", 60),
)
"""The hooks of ``driftguard hook``, in the order they are written."""


def settings_file() -> Path:
    """Claude Code's user settings: ``<config dir>/settings.json``."""
    return config_dir() / "settings.json"


def _shell_word(path: str) -> str:
    """``path`` as one word of a shell command line (Claude Code runs hooks in a shell)."""
    if os.name == "nt":
        return f'"{path}"' if any(c in path for c in " \t&()^;,=") else path
    return shlex.quote(path)


def hook_group(command: str, spec: HookSpec) -> dict[str, Any]:
    """The matcher group that runs ``<command> hook <spec.name>``."""
    handler = {
        "type": "command",
        "command": f"{_shell_word(command)} hook {spec.name}",
        "timeout": spec.timeout,
    }
    return {"hooks": [handler]}


def status_line(command: str) -> dict[str, Any]:
    """The ``statusLine`` that runs ``<command> statusline``."""
    return {"type": "command", "command": f"{_shell_word(command)} statusline", "padding": 0}


def wrap_command(command: str, theirs: str) -> str:
    """The status-line command that runs ``theirs`` and appends the drift segment."""
    return f"{_shell_word(command)} statusline --wrap {shlex.quote(theirs)}"


def _words(value: Any) -> list[str] | None:
    """The words of a handler's ``command`` (``None`` when it is not a command handler)."""
    if not isinstance(value, Mapping) or value.get("type", "command") != "command":
        return None
    text = value.get("command")
    if not isinstance(text, str):
        return None
    try:
        return shlex.split(text, posix=os.name != "nt")
    except ValueError:
        return None


def _ours(words: list[str], arguments: list[str]) -> bool:
    """``words`` run the driftguard console script with exactly ``arguments``."""
    if not words or words[1:] != arguments:
        return False
    return Path(words[0].strip('"')).name.lower() in ("driftguard", "driftguard.exe")


def is_our_group(group: Any, spec: HookSpec) -> bool:
    """Whether ``group`` is a matcher group driftguard installed for ``spec`` (module doc)."""
    if not isinstance(group, Mapping) or not set(group) <= {"hooks", "matcher"}:
        return False
    handlers = group.get("hooks")
    if not isinstance(handlers, list) or len(handlers) != 1:
        return False
    words = _words(handlers[0])
    return words is not None and _ours(words, ["hook", spec.name])


def is_our_status_line(value: Any) -> bool:
    """Whether ``value`` is a ``statusLine`` driftguard installed (module doc)."""
    words = _words(value)
    return words is not None and _ours(words, ["statusline"])


def _wrapped_command(value: Any) -> str | None:
    """The user's own command that a ``statusLine`` runs through ``driftguard statusline
    --wrap COMMAND`` (``""`` for any other ``driftguard statusline`` with more words);
    ``None`` for every other status line, driftguard's plain one included."""
    words = _words(value)
    if words is None or len(words) <= 2 or not _ours(words[:2], ["statusline"]):
        return None
    if len(words) == 4 and words[2] == "--wrap":
        return words[3]
    if len(words) == 3 and words[2].startswith("--wrap="):
        return words[2].removeprefix("--wrap=")
    return ""


def _wrapped_note(value: Any) -> str | None:
    theirs = _wrapped_command(value)
    if theirs is None:
        return None
    if theirs:
        return f"your statusLine still runs driftguard; set its command back to: {theirs}"
    return "your statusLine still runs driftguard statusline; change or remove it yourself"


# --- reading ---------------------------------------------------------------------------


def _check_shape(document: _jsonc.JsonDocument) -> None:
    """Refuse what cannot be edited safely: not an object, repeated keys, odd types."""
    root = document.root
    if root is None:
        raise HookSettingsError("the top level is not a JSON object")
    for key in (HOOKS, STATUS_LINE):
        if root.count(key) > 1:
            raise HookSettingsError(f'"{key}" appears more than once')
    found = root.find(HOOKS)
    if found is None:
        return
    hooks = found[1].obj
    if hooks is None:
        raise HookSettingsError(f'"{HOOKS}" is not an object')
    value = document.value[HOOKS]
    for spec in HOOK_EVENTS:
        if hooks.count(spec.event) > 1:
            raise HookSettingsError(f'"{HOOKS}.{spec.event}" appears more than once')
        if spec.event in value and not isinstance(value[spec.event], list):
            raise HookSettingsError(f'"{HOOKS}.{spec.event}" is not a list')


def _parse(text: str) -> _jsonc.JsonDocument:
    try:
        document = _jsonc.parse(text, comments=False)
    except _jsonc.JsonSyntaxError as exc:
        raise HookSettingsError(f"it does not parse as strict JSON: {exc}") from None
    _check_shape(document)
    return document


# --- planning --------------------------------------------------------------------------


@dataclass(slots=True)
class _Outcome:
    """What the planned edit does, for the report."""

    added: list[str]
    updated: list[str]
    removed: list[str]
    differing: list[str]
    notes: list[str]


def _want(value: Mapping[str, Any], request: SetupRequest, outcome: _Outcome) -> dict[str, Any]:
    """The settings as they should be after install or uninstall (the logical edit)."""
    wanted = copy.deepcopy(dict(value))
    hooks = wanted.get(HOOKS)
    if request.action == "install":
        hooks = wanted.setdefault(HOOKS, {}) if hooks is None else hooks
        for spec in HOOK_EVENTS:
            group = hook_group(request.command, spec)
            groups = hooks.setdefault(spec.event, [])
            ours = [g for g in groups if is_our_group(g, spec)]
            if ours == [group]:
                continue
            if not ours:
                groups.append(group)
                outcome.added.append(spec.event)
            elif request.update:
                hooks[spec.event] = [g for g in groups if not is_our_group(g, spec)] + [group]
                outcome.updated.append(spec.event)
            else:
                outcome.differing.append(spec.event)
        line = status_line(request.command)
        existing = wanted.get(STATUS_LINE)
        if existing is None:
            wanted[STATUS_LINE] = line
            outcome.added.append(STATUS_LINE)
        elif same_value(existing, line):
            pass
        elif is_our_status_line(existing):
            if request.update:
                wanted[STATUS_LINE] = line
                outcome.updated.append(STATUS_LINE)
            else:
                outcome.differing.append(STATUS_LINE)
        elif _wrapped_command(existing) is None:  # a wrap line shows the drift already
            outcome.notes.append(_their_status_line_note(existing, request.command))
        return wanted
    if isinstance(hooks, dict):
        for spec in HOOK_EVENTS:
            groups = hooks.get(spec.event)
            if isinstance(groups, list) and any(is_our_group(g, spec) for g in groups):
                hooks[spec.event] = [g for g in groups if not is_our_group(g, spec)]
                outcome.removed.append(spec.event)
    if is_our_status_line(wanted.get(STATUS_LINE)):
        del wanted[STATUS_LINE]
        outcome.removed.append(STATUS_LINE)
    note = _wrapped_note(wanted.get(STATUS_LINE))
    if note is not None:
        outcome.notes.append(note)
    return wanted


def _their_status_line_note(existing: Any, command: str) -> str:
    theirs = existing.get("command") if isinstance(existing, Mapping) else None
    if isinstance(theirs, str) and theirs.strip():
        return (
            f"kept your own statusLine ({theirs}); to show the drift after it, set its "
            f"command to: {wrap_command(command, theirs)}"
        )
    return (
        "kept your own statusLine; to show the drift instead, set it to: "
        f'{{"type": "command", "command": "{_shell_word(command)} statusline"}}'
    )


def _tidy(wanted: dict[str, Any], made: frozenset[str]) -> dict[str, Any]:
    """Uninstall: drop the lists and the ``hooks`` object that install created and that
    are empty now."""
    hooks = wanted.get(HOOKS)
    if isinstance(hooks, dict):
        for spec in HOOK_EVENTS:
            if hooks.get(spec.event) == [] and f"{HOOKS}.{spec.event}" in made:
                del hooks[spec.event]
        if hooks == {} and HOOKS in made:
            del wanted[HOOKS]
    return wanted


def _splice(text: str, value: Mapping[str, Any], wanted: Mapping[str, Any]) -> str:
    """``text`` with the members that differ between ``value`` and ``wanted`` (``hooks``'
    events and ``statusLine``) added, replaced or removed, one splice at a time."""
    for key in (HOOKS, STATUS_LINE):
        document = _parse(text)
        root = document.root
        assert root is not None
        found = root.find(key)
        if key not in wanted:
            if found is not None:
                text = _jsonc.remove_member(document, root, found[0])
            continue
        if found is None:
            text = _jsonc.add_member(document, root, key, wanted[key])
            continue
        if key == STATUS_LINE or found[1].obj is None:
            if not same_value(value.get(key), wanted[key]):
                text = _jsonc.replace_member_value(document, root, found[1], wanted[key])
            continue
        for spec in HOOK_EVENTS:  # edit inside the user's hooks object, event by event
            document = _parse(text)
            root = document.root
            assert root is not None
            located = root.find(HOOKS)
            assert located is not None
            assert located[1].obj is not None
            hooks = located[1].obj
            member = hooks.find(spec.event)
            before = value[HOOKS].get(spec.event)
            after = wanted[HOOKS].get(spec.event)
            if same_value(before, after):
                continue
            if after is None:
                assert member is not None
                text = _jsonc.remove_member(document, hooks, member[0])
            elif member is None:
                text = _jsonc.add_member(document, hooks, spec.event, after)
            else:
                text = _edit_list(text, spec, before, after)
    return text


# --- splices inside an event's list (strict JSON, so elements are found by decoding) ---

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\r\n"


def _event_list(text: str, event: str) -> tuple[_jsonc.JsonDocument, _jsonc.Member]:
    """The parsed ``text`` and the member ``hooks.<event>`` (which must exist)."""
    document = _parse(text)
    assert document.root is not None
    located = document.root.find(HOOKS)
    assert located is not None
    assert located[1].obj is not None
    found = located[1].obj.find(event)
    assert found is not None
    return document, found[1]


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in _WHITESPACE:
        position += 1
    return position


def _elements(text: str, member: _jsonc.Member) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of the elements of the array that is ``member``'s value."""
    spans: list[tuple[int, int]] = []
    position = _skip(text, member.value_start + 1)
    close = member.value_end - 1
    while position < close:
        _, end = _DECODER.raw_decode(text, position)
        spans.append((position, end))
        position = _skip(text, end)
        if text[position] == ",":
            position = _skip(text, position + 1)
    return spans


def _line_indent(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _rendered(value: Any, indent: str, document: _jsonc.JsonDocument) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=document.unit)
    return text.replace("\n", document.newline + indent)


def _append_element(text: str, event: str, element: Any) -> str:
    """``text`` with ``element`` after the last element of ``hooks.<event>``, laid out like
    the list (one element per line, or all on one line); undone byte for byte by
    :func:`_remove_element`."""
    document, member = _event_list(text, event)
    spans = _elements(text, member)
    if not spans:
        base = _line_indent(text, member.key_start)
        indent = base + document.unit
        inner = document.newline + indent + _rendered(element, indent, document)
        close = member.value_end - 1
        return text[: member.value_start + 1] + inner + document.newline + base + text[close:]
    anchor = spans[-1][1]
    if "\n" in text[member.value_start : spans[0][0]]:
        indent = _line_indent(text, spans[0][0])
        added = "," + document.newline + indent + _rendered(element, indent, document)
    else:
        added = ", " + json.dumps(element, ensure_ascii=False)
    return text[:anchor] + added + text[anchor:]


def _remove_element(text: str, event: str, index: int) -> str:
    """``text`` without element ``index`` of ``hooks.<event>`` and one separating comma."""
    _, member = _event_list(text, event)
    spans = _elements(text, member)
    start, end = spans[index]
    if len(spans) == 1:
        return text[: member.value_start + 1] + text[member.value_end - 1 :]
    if index == 0:
        return text[:start] + text[spans[1][0] :]
    return text[: spans[index - 1][1]] + text[end:]


def _edit_list(text: str, spec: HookSpec, before: list[Any], after: list[Any]) -> str:
    """Turn the list ``before`` into ``after`` by removing driftguard's groups and then
    appending what ``after`` adds (the only two changes :func:`_want` makes)."""
    kept = [group for group in before if not is_our_group(group, spec)]
    if not same_value(after[: len(kept)], kept):
        raise HookSettingsError(f'"{HOOKS}.{spec.event}" cannot be edited in place')
    ours = [index for index, group in enumerate(before) if is_our_group(group, spec)]
    for index in reversed(ours):
        text = _remove_element(text, spec.event, index)
    for element in after[len(kept) :]:
        text = _append_element(text, spec.event, element)
    return text


def _created(value: Mapping[str, Any], exists: bool, request: SetupRequest) -> frozenset[str]:
    """What install creates (recorded in the ledger)."""
    if request.action != "install":
        return frozenset()
    made = set() if exists else {"file"}
    hooks = value.get(HOOKS)
    if not isinstance(hooks, dict):
        made.add(HOOKS)
        hooks = {}
    made.update(f"{HOOKS}.{spec.event}" for spec in HOOK_EVENTS if spec.event not in hooks)
    return frozenset(made)


def _status(outcome: _Outcome, request: SetupRequest) -> Status:
    if outcome.added:
        return "added"
    if outcome.updated:
        return "updated"
    if outcome.removed:
        return "removed"
    if outcome.differing:
        return "skipped"
    return "already present" if request.action == "install" else "not present"


def _detail(outcome: _Outcome, shown: str) -> str:
    parts = []
    for label, names in (
        ("added", outcome.added),
        ("updated", outcome.updated),
        ("removed", outcome.removed),
    ):
        if names:
            parts.append(f"{label} {', '.join(names)}")
    what = "; ".join(parts) if parts else "hooks and status line"
    detail = f"{what} in {shown}"
    if outcome.differing:
        detail += (
            f"; driftguard's {', '.join(outcome.differing)} differ from what this install "
            "would write and were left alone: --update replaces them"
        )
    return detail


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall the status line and hooks in Claude Code's user settings; the
    result is labelled :data:`LABEL`."""
    return replace(_run(request), label=LABEL)


def _read_settings() -> dict[str, Any] | None:
    """Claude Code's user settings as read (through a symlink), or ``None`` when the file is
    absent or cannot be read or parsed."""
    path = settings_file()
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        value = _parse(target.read_text(encoding="utf-8")).value
    except (OSError, UnicodeDecodeError, HookSettingsError):
        return None
    return value if isinstance(value, dict) else None


def _our_hook_events(value: Mapping[str, Any]) -> list[str]:
    """The events of :data:`HOOK_EVENTS` whose list in ``value`` holds driftguard's group."""
    hooks = value.get(HOOKS)
    if not isinstance(hooks, dict):
        return []
    return [
        spec.event
        for spec in HOOK_EVENTS
        if isinstance(groups := hooks.get(spec.event), list)
        and any(is_our_group(g, spec) for g in groups)
    ]


def session_start_installed() -> bool:
    """Whether Claude Code's user settings run driftguard's ``SessionStart`` hook, which
    hands a saved handoff to the next session; ``False`` when the file is absent or cannot
    be read (then no hook of ours runs either)."""
    value = _read_settings()
    return value is not None and "SessionStart" in _our_hook_events(value)


def left_behind() -> HostResult | None:
    """A ``still installed`` result when Claude Code's settings still run driftguard —
    its hooks or status line, or a status line wrapping the user's — for a plain
    ``--uninstall`` to report (module doc); ``None`` when they do not, or when the file
    cannot be read (nothing is known then, and nothing was touched)."""
    if not installed():
        return None
    path = settings_file()
    value = _read_settings()
    if value is None:
        return None
    ours = _our_hook_events(value)
    if is_our_status_line(value.get(STATUS_LINE)):
        ours.append(STATUS_LINE)
    shown = display_path(path)
    note = _wrapped_note(value.get(STATUS_LINE))
    notes: tuple[str, ...] = ()
    if ours:
        detail = f"{', '.join(ours)} in {shown}; remove them with: {REMOVE_COMMAND}"
        notes = () if note is None else (note,)
    elif note is not None:
        theirs = _wrapped_command(value.get(STATUS_LINE))
        what = f"set its command back to: {theirs}" if theirs else "change or remove it yourself"
        detail = f"statusLine runs driftguard in {shown}; {what}"
    else:
        return None
    return HostResult(HOST, "still installed", detail, path=path, notes=notes, label=LABEL)


def _run(request: SetupRequest) -> HostResult:
    if not installed():
        return not_installed(HOST, config_dir())
    path = settings_file()
    shown = display_path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path

    def stop(status: Status, detail: str, ok: bool) -> HostResult:
        return HostResult(HOST, status, detail, ok=ok, path=path, dry_run=request.dry_run)

    try:
        original = target.read_bytes() if target.exists() else None
    except OSError as exc:
        return stop("refused", f"cannot read {shown}: {exc.strerror or exc}", False)
    text: str | None = None
    value: dict[str, Any] = {}
    try:
        if original is not None:
            text = original.decode("utf-8")
            value = _parse(text).value
    except UnicodeDecodeError:
        return stop("refused", f"{shown} is not UTF-8 text; nothing changed", False)
    except HookSettingsError as exc:
        return stop("refused", f"cannot edit {shown}: {exc}; nothing changed", False)

    outcome = _Outcome([], [], [], [], [])
    ledger_key = str(Path(os.path.realpath(target)))
    wanted = _want(value, request, outcome)
    if request.action == "uninstall":
        wanted = _tidy(wanted, read_ledger().get(ledger_key, frozenset()))
    status = _status(outcome, request)
    notes = tuple(outcome.notes)
    ok = not outcome.differing
    detail = _detail(outcome, shown)
    if status in ("already present", "not present", "skipped"):
        return HostResult(
            HOST, status, detail, ok=ok, path=path, notes=notes, dry_run=request.dry_run
        )

    if original is not None and is_read_only(target):
        return stop("refused", f"{shown} is read-only; nothing changed", False)
    made = read_ledger().get(ledger_key, frozenset())
    if text is None:
        new: str | None = _jsonc.render_document(wanted)
    elif request.action == "uninstall" and "file" in made and not wanted:
        new = None
    else:
        try:
            new = _splice(text, value, wanted)
        except HookSettingsError as exc:
            return stop("failed", f"cannot edit {shown}: {exc}; nothing changed", False)
    if new is not None:
        try:
            produced = _parse(new).value
        except HookSettingsError as exc:
            return stop("failed", f"the edit of {shown} would not parse ({exc})", False)
        if not same_value(produced, wanted):
            detail = f"the edit of {shown} would change more than driftguard's entries"
            return stop("failed", f"{detail}; nothing changed", False)
    created = _created(value, original is not None, request)
    plan = Plan(
        status=status,
        text=new,
        # read back as _write reads it: an empty "hooks" object is the same as none
        expected={k: v for k, v in wanted.items() if not (k == HOOKS and v == {})},
        created=None if request.action == "uninstall" else created,
        diff=unified_diff(path, text, new),
    )
    if request.dry_run:
        return HostResult(
            HOST,
            status,
            detail,
            ok=ok,
            path=path,
            diff=plan.diff,
            notes=notes,
            dry_run=True,
        )
    found = Inspected(path, target, original, text, value, None, "add")
    written = _write(HOST, found, _SETTINGS_READER, plan, notes)
    if written.status != status:  # failed: _write says why
        return written
    return HostResult(
        HOST,
        status,
        detail,
        ok=ok,
        path=path,
        diff=written.diff,
        backup=written.backup,
        notes=written.notes,
    )


@dataclass(frozen=True, slots=True)
class _SettingsReader:
    """How :func:`._safe_edit._write` reads the written settings back to verify them: it
    uses only ``load`` and ``container`` of a :class:`._safe_edit.ServersFormat` (the
    splices here are :func:`_splice`, not a server-table format's)."""

    label: str = "JSON"
    container: str = HOOKS

    def load(self, text: str) -> dict[str, Any]:
        try:
            value: dict[str, Any] = _parse(text).value
        except HookSettingsError as exc:
            raise ConfigSyntaxError(str(exc)) from None
        return value


_SETTINGS_READER = cast(ServersFormat, _SettingsReader())
