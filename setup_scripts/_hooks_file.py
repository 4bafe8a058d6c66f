"""``driftguard setup --hooks``: driftguard's hooks in a host's hooks table, installed and
removed with the same care as the MCP server entries (:mod:`._safe_edit`).

Claude Code, Codex and Gemini CLI keep their hooks in one shape, a JSON object of events,
each a list of *matcher groups* ``{"matcher"?: …, "hooks": [handler, …]}``; Cursor's
list holds the handlers themselves. Each host is described by a :class:`HooksHost` (its
file, its events and their timeouts, whether comments are allowed, what a new file
starts with); :func:`run` installs or removes the driftguard handler of each event in
that file, and :func:`left_behind` reports the ones a plain ``--uninstall`` left.

**Which entries are driftguard's.** A matcher group holding exactly one command handler
(Cursor: a handler) whose command is ``<…/driftguard> hook <event name>``, followed by
``--host <host>`` for every host but Claude Code (whose hooks predate the flag, and
default to it). Install keeps them when they are exactly as wanted, replaces them with
``--update`` (after the virtual environment moved, say), and otherwise leaves them and
reports them (exit code 1). The user's own groups stay where they are: driftguard's group
is appended to the event's list.

**Safety** — the path of every setup edit (:mod:`._safe_edit`): a file that is not
UTF-8, does not parse, repeats a key, or has ``hooks`` that is not an object or an event
that is not a list is refused; the new text is spliced into the old (:mod:`driftguard.jsonc`:
other bytes, comments where the host allows them, key order and indentation kept) and
checked to read back as the old content with only driftguard's entries changed;
``--dry-run`` shows the diff; the file is backed up, written atomically with its own
permission bits and re-read. What install created — the file, the ``hooks`` object, an
event's list — goes into the setup ledger, so that ``--uninstall`` removes exactly that
again. A file without any write permission bit is refused as read-only.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
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

__all__ = [
    "HOOKS",
    "REMOVE_COMMAND",
    "Extra",
    "HookSpec",
    "HooksHost",
    "Outcome",
    "command_words",
    "hook_command",
    "hook_element",
    "installed_events",
    "is_our_element",
    "is_ours",
    "left_behind",
    "read_settings",
    "run",
    "shell_word",
]

HOOKS = "hooks"
REMOVE_COMMAND = "driftguard setup --hooks --uninstall"


@dataclass(frozen=True, slots=True)
class HookSpec:
    """One hook driftguard installs in a host.

    Attributes:
        event: the host's event name (``"SessionStart"``, ``"BeforeAgent"``,
            ``"sessionStart"``).
        name: ``driftguard hook``'s event (``"session-start"``, ``"user-prompt-submit"``,
            ``"stop"``).
        timeout: how long the host lets it run, in the host's unit (seconds, or
            milliseconds for Gemini CLI).
        matcher: the group's ``matcher`` (the sources of a session start it runs for),
            or ``None`` for every one.
    """

    event: str
    name: str
    timeout: int
    matcher: str | None = None


@dataclass(slots=True)
class Outcome:
    """What the planned edit does, for the report."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Extra:
    """A top-level member of the settings that a host's hooks come with (Claude Code's
    ``statusLine``): how install and uninstall change it, and what a plain ``--uninstall``
    says of it.

    Attributes:
        key: the member's name.
        want: ``want(wanted, request, outcome)`` sets or deletes ``wanted[key]`` as
            install or uninstall wants it, and says so in ``outcome``.
        left: ``left(value)`` is ``(ours, what)``: whether ``value`` (the member, or
            ``None``) is driftguard's, and — when it is the user's own but still runs
            driftguard — what the user should do about it (``"set its command back to:
            …"``), else ``None``.
    """

    key: str
    want: Callable[[dict[str, Any], SetupRequest, Outcome], None]
    left: Callable[[Any], tuple[bool, str | None]]


@dataclass(frozen=True, slots=True)
class HooksHost:
    """A host whose hooks file setup edits.

    Attributes:
        host: its name.
        label: how the report names these results (``"codex_cli hooks"``).
        settings_file: where its user-level hooks are (a function: the host's config
            folder follows its environment variables).
        installed: whether the host is installed (its config folder exists).
        config_dir: that folder, for the ``not installed`` line.
        specs: the hooks, in the order they are written.
        comments: the file may hold comments (JSONC); else strict JSON.
        flat: the event's list holds handlers, not matcher groups (Cursor).
        new_file: the members a file created by setup starts with (Cursor's version).
        host_flag: the command names the host (``--host``).
        handler_extra: more members of each handler (Gemini CLI's ``name``).
        extras: top-level members besides ``hooks`` (Claude Code's status line).
        notes: lines for the report after an install (what the user still has to do).
    """

    host: HostName
    label: str
    settings_file: Callable[[], Path]
    installed: Callable[[], bool]
    config_dir: Callable[[], Path]
    specs: tuple[HookSpec, ...]
    comments: bool = False
    flat: bool = False
    new_file: Mapping[str, Any] = field(default_factory=dict)
    host_flag: bool = True
    handler_extra: Callable[[HookSpec], Mapping[str, Any]] | None = None
    extras: tuple[Extra, ...] = ()
    notes: tuple[str, ...] = ()


def shell_word(path: str) -> str:
    """``path`` as one word of a shell command line (hosts run hooks in a shell)."""
    if os.name == "nt":
        return f'"{path}"' if any(c in path for c in " \t&()^;,=") else path
    return shlex.quote(path)


def hook_command(command: str, spec: HookSpec, host: HooksHost) -> str:
    """The command line that runs ``driftguard hook <name>`` (with ``--host``)."""
    flag = f" --host {host.host}" if host.host_flag else ""
    return f"{shell_word(command)} hook {spec.name}{flag}"


def _arguments(spec: HookSpec, host: HooksHost) -> list[str]:
    return ["hook", spec.name, *(["--host", host.host] if host.host_flag else [])]


def hook_element(command: str, spec: HookSpec, host: HooksHost) -> dict[str, Any]:
    """What driftguard adds to the event's list: a matcher group running the hook, or
    (Cursor) the handler itself."""
    handler: dict[str, Any] = {
        "type": "command",
        "command": hook_command(command, spec, host),
        "timeout": spec.timeout,
    }
    if host.handler_extra is not None:
        handler.update(host.handler_extra(spec))
    if host.flat:
        return handler
    return {**({"matcher": spec.matcher} if spec.matcher else {}), "hooks": [handler]}


def command_words(value: Any) -> list[str] | None:
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


def is_ours(words: list[str], arguments: list[str]) -> bool:
    """``words`` run the driftguard console script with exactly ``arguments``."""
    if not words or words[1:] != arguments:
        return False
    return Path(words[0].strip('"')).name.lower() in ("driftguard", "driftguard.exe")


def is_our_element(element: Any, spec: HookSpec, host: HooksHost) -> bool:
    """Whether ``element`` of the event's list is one driftguard installed for ``spec``
    (module doc)."""
    if host.flat:
        words = command_words(element)
        return words is not None and is_ours(words, _arguments(spec, host))
    if not isinstance(element, Mapping) or not set(element) <= {"hooks", "matcher"}:
        return False
    handlers = element.get("hooks")
    if not isinstance(handlers, list) or len(handlers) != 1:
        return False
    words = command_words(handlers[0])
    return words is not None and is_ours(words, _arguments(spec, host))


# --- reading ---------------------------------------------------------------------------


def _check_shape(document: _jsonc.JsonDocument, host: HooksHost) -> None:
    """Refuse what cannot be edited safely: not an object, repeated keys, odd types."""
    root = document.root
    if root is None:
        raise HookSettingsError("the top level is not a JSON object")
    for key in (HOOKS, *(extra.key for extra in host.extras)):
        if root.count(key) > 1:
            raise HookSettingsError(f'"{key}" appears more than once')
    found = root.find(HOOKS)
    if found is None:
        return
    hooks = found[1].obj
    if hooks is None:
        raise HookSettingsError(f'"{HOOKS}" is not an object')
    value = document.value[HOOKS]
    for spec in host.specs:
        if hooks.count(spec.event) > 1:
            raise HookSettingsError(f'"{HOOKS}.{spec.event}" appears more than once')
        if spec.event in value and not isinstance(value[spec.event], list):
            raise HookSettingsError(f'"{HOOKS}.{spec.event}" is not a list')


def _parse(text: str, host: HooksHost) -> _jsonc.JsonDocument:
    kind = "JSON with comments" if host.comments else "strict JSON"
    try:
        document = _jsonc.parse(text, comments=host.comments)
    except _jsonc.JsonSyntaxError as exc:
        raise HookSettingsError(f"it does not parse as {kind}: {exc}") from None
    _check_shape(document, host)
    return document


def read_settings(host: HooksHost) -> dict[str, Any] | None:
    """The host's hooks file as read (through a symlink), or ``None`` when it is absent or
    cannot be read or parsed."""
    path = host.settings_file()
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        value = _parse(target.read_text(encoding="utf-8"), host).value
    except (OSError, UnicodeDecodeError, HookSettingsError):
        return None
    return value if isinstance(value, dict) else None


def installed_events(host: HooksHost, value: Mapping[str, Any]) -> list[str]:
    """The events of ``host.specs`` whose list in ``value`` holds driftguard's entry."""
    hooks = value.get(HOOKS)
    if not isinstance(hooks, dict):
        return []
    return [
        spec.event
        for spec in host.specs
        if isinstance(elements := hooks.get(spec.event), list)
        and any(is_our_element(e, spec, host) for e in elements)
    ]


# --- planning --------------------------------------------------------------------------


def _want(
    value: Mapping[str, Any], request: SetupRequest, outcome: Outcome, host: HooksHost
) -> dict[str, Any]:
    """The settings as they should be after install or uninstall (the logical edit)."""
    wanted = copy.deepcopy(dict(value))
    hooks = wanted.get(HOOKS)
    if request.action == "install":
        if not value:
            wanted.update(copy.deepcopy(dict(host.new_file)))
        hooks = wanted.setdefault(HOOKS, {}) if hooks is None else hooks
        for spec in host.specs:
            element = hook_element(request.command, spec, host)
            elements = hooks.setdefault(spec.event, [])
            ours = [e for e in elements if is_our_element(e, spec, host)]
            if ours == [element]:
                continue
            if not ours:
                elements.append(element)
                outcome.added.append(spec.event)
            elif request.update:
                kept = [e for e in elements if not is_our_element(e, spec, host)]
                hooks[spec.event] = [*kept, element]
                outcome.updated.append(spec.event)
            else:
                outcome.differing.append(spec.event)
    elif isinstance(hooks, dict):
        for spec in host.specs:
            elements = hooks.get(spec.event)
            if isinstance(elements, list) and any(is_our_element(e, spec, host) for e in elements):
                hooks[spec.event] = [e for e in elements if not is_our_element(e, spec, host)]
                outcome.removed.append(spec.event)
    for extra in host.extras:
        extra.want(wanted, request, outcome)
    return wanted


def _tidy(wanted: dict[str, Any], made: frozenset[str], host: HooksHost) -> dict[str, Any]:
    """Uninstall: drop the lists and the ``hooks`` object that install created and that
    are empty now."""
    hooks = wanted.get(HOOKS)
    if isinstance(hooks, dict):
        for spec in host.specs:
            if hooks.get(spec.event) == [] and f"{HOOKS}.{spec.event}" in made:
                del hooks[spec.event]
        if hooks == {} and HOOKS in made:
            del wanted[HOOKS]
    return wanted


def _splice(text: str, value: Mapping[str, Any], wanted: Mapping[str, Any], host: HooksHost) -> str:
    """``text`` with the members that differ between ``value`` and ``wanted`` (``hooks``'
    events, and the host's extras) added, replaced or removed, one splice at a time."""
    for key in (*host.new_file, HOOKS, *(extra.key for extra in host.extras)):
        document = _parse(text, host)
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
        if key != HOOKS or found[1].obj is None:
            if not same_value(value.get(key), wanted[key]):
                text = _jsonc.replace_member_value(document, root, found[1], wanted[key])
            continue
        for spec in host.specs:  # edit inside the user's hooks object, event by event
            document = _parse(text, host)
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
                text = _edit_list(text, spec, before, after, host)
    return text


# --- splices inside an event's list (elements are found by decoding each one) -----------

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\r\n"


def _event_list(
    text: str, event: str, host: HooksHost
) -> tuple[_jsonc.JsonDocument, _jsonc.Member]:
    """The parsed ``text`` and the member ``hooks.<event>`` (which must exist)."""
    document = _parse(text, host)
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


def _elements(text: str, member: _jsonc.Member, event: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of the elements of the array that is ``member``'s value.

    Raises:
        HookSettingsError: the array holds something a strict JSON decoder cannot read
            between or inside its elements (a comment): it is not edited in place.
    """
    spans: list[tuple[int, int]] = []
    position = _skip(text, member.value_start + 1)
    close = member.value_end - 1
    try:
        while position < close:
            _, end = _DECODER.raw_decode(text, position)
            spans.append((position, end))
            position = _skip(text, end)
            if text[position] == ",":
                position = _skip(text, position + 1)
            elif position < close:
                raise ValueError("no comma between elements")
    except ValueError:
        raise HookSettingsError(
            f'"{HOOKS}.{event}" holds comments or odd text: it cannot be edited in place'
        ) from None
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


def _append_element(text: str, event: str, element: Any, host: HooksHost) -> str:
    """``text`` with ``element`` after the last element of ``hooks.<event>``, laid out like
    the list (one element per line, or all on one line); undone byte for byte by
    :func:`_remove_element`."""
    document, member = _event_list(text, event, host)
    spans = _elements(text, member, event)
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


def _remove_element(text: str, event: str, index: int, host: HooksHost) -> str:
    """``text`` without element ``index`` of ``hooks.<event>`` and one separating comma."""
    _, member = _event_list(text, event, host)
    spans = _elements(text, member, event)
    start, end = spans[index]
    if len(spans) == 1:
        return text[: member.value_start + 1] + text[member.value_end - 1 :]
    if index == 0:
        return text[:start] + text[spans[1][0] :]
    return text[: spans[index - 1][1]] + text[end:]


def _edit_list(
    text: str, spec: HookSpec, before: list[Any], after: list[Any], host: HooksHost
) -> str:
    """Turn the list ``before`` into ``after`` by removing driftguard's entries and then
    appending what ``after`` adds (the only two changes :func:`_want` makes)."""
    kept = [element for element in before if not is_our_element(element, spec, host)]
    if not same_value(after[: len(kept)], kept):
        raise HookSettingsError(f'"{HOOKS}.{spec.event}" cannot be edited in place')
    ours = [index for index, e in enumerate(before) if is_our_element(e, spec, host)]
    for index in reversed(ours):
        text = _remove_element(text, spec.event, index, host)
    for element in after[len(kept) :]:
        text = _append_element(text, spec.event, element, host)
    return text


def _created(
    value: Mapping[str, Any], exists: bool, request: SetupRequest, host: HooksHost
) -> frozenset[str]:
    """What install creates (recorded in the ledger)."""
    if request.action != "install":
        return frozenset()
    made = set() if exists else {"file"}
    hooks = value.get(HOOKS)
    if not isinstance(hooks, dict):
        made.add(HOOKS)
        hooks = {}
    made.update(f"{HOOKS}.{spec.event}" for spec in host.specs if spec.event not in hooks)
    return frozenset(made)


def _status(outcome: Outcome, request: SetupRequest) -> Status:
    if outcome.added:
        return "added"
    if outcome.updated:
        return "updated"
    if outcome.removed:
        return "removed"
    if outcome.differing:
        return "skipped"
    return "already present" if request.action == "install" else "not present"


def _detail(outcome: Outcome, shown: str) -> str:
    parts = []
    for label, names in (
        ("added", outcome.added),
        ("updated", outcome.updated),
        ("removed", outcome.removed),
    ):
        if names:
            parts.append(f"{label} {', '.join(names)}")
    what = "; ".join(parts) if parts else "hooks"
    detail = f"{what} in {shown}"
    if outcome.differing:
        detail += (
            f"; driftguard's {', '.join(outcome.differing)} differ from what this install "
            "would write and were left alone: --update replaces them"
        )
    return detail


def run(host: HooksHost, request: SetupRequest) -> HostResult:
    """Install or uninstall driftguard's hooks (and the host's extras) in the host's hooks
    file; the result is labelled ``host.label``."""
    return replace(_run(host, request), label=host.label)


def left_behind(host: HooksHost) -> HostResult | None:
    """A ``still installed`` result when the host's hooks file still runs driftguard, for a
    plain ``--uninstall`` to report: once the package is gone they would run a missing
    ``driftguard`` after every turn. ``None`` when it does not, or when the file cannot be
    read (nothing is known then, and nothing was touched)."""
    if not host.installed():
        return None
    path = host.settings_file()
    value = read_settings(host)
    if value is None:
        return None
    ours = installed_events(host, value)
    shown = display_path(path)
    theirs: list[tuple[str, str]] = []
    for extra in host.extras:
        is_ours_now, what = extra.left(value.get(extra.key))
        if is_ours_now:
            ours.append(extra.key)
        elif what is not None:
            theirs.append((extra.key, what))
    notes = [f"your {key} still runs driftguard; {what}" for key, what in theirs]
    if ours:
        detail = f"{', '.join(ours)} in {shown}; remove them with: {REMOVE_COMMAND}"
    elif theirs:
        key, what = theirs[0]
        detail, notes = f"{key} runs driftguard in {shown}; {what}", notes[1:]
    else:
        return None
    return HostResult(
        host.host, "still installed", detail, path=path, notes=tuple(notes), label=host.label
    )


def _run(host: HooksHost, request: SetupRequest) -> HostResult:
    name = host.host
    if not host.installed():
        return not_installed(name, host.config_dir())
    path = host.settings_file()
    shown = display_path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path

    def stop(status: Status, detail: str, ok: bool) -> HostResult:
        return HostResult(name, status, detail, ok=ok, path=path, dry_run=request.dry_run)

    try:
        original = target.read_bytes() if target.exists() else None
    except OSError as exc:
        return stop("refused", f"cannot read {shown}: {exc.strerror or exc}", False)
    text: str | None = None
    value: dict[str, Any] = {}
    try:
        if original is not None:
            text = original.decode("utf-8")
            value = _parse(text, host).value
    except UnicodeDecodeError:
        return stop("refused", f"{shown} is not UTF-8 text; nothing changed", False)
    except HookSettingsError as exc:
        return stop("refused", f"cannot edit {shown}: {exc}; nothing changed", False)

    outcome = Outcome()
    ledger_key = str(Path(os.path.realpath(target)))
    wanted = _want(value, request, outcome, host)
    if request.action == "uninstall":
        wanted = _tidy(wanted, read_ledger().get(ledger_key, frozenset()), host)
    status = _status(outcome, request)
    install_notes = host.notes if request.action == "install" else ()
    notes = (*outcome.notes, *install_notes)
    ok = not outcome.differing
    detail = _detail(outcome, shown)
    if status in ("already present", "not present", "skipped"):
        return HostResult(
            name, status, detail, ok=ok, path=path, notes=notes, dry_run=request.dry_run
        )

    if original is not None and is_read_only(target):
        return stop("refused", f"{shown} is read-only; nothing changed", False)
    made = read_ledger().get(ledger_key, frozenset())
    bare = {k: v for k, v in wanted.items() if k not in host.new_file}
    if text is None:
        new: str | None = _jsonc.render_document(wanted)
    elif request.action == "uninstall" and "file" in made and not bare:
        new = None
    else:
        try:
            new = _splice(text, value, wanted, host)
        except HookSettingsError as exc:
            return stop("failed", f"cannot edit {shown}: {exc}; nothing changed", False)
    if new is not None:
        try:
            produced = _parse(new, host).value
        except HookSettingsError as exc:
            return stop("failed", f"the edit of {shown} would not parse ({exc})", False)
        if not same_value(produced, wanted):
            detail = f"the edit of {shown} would change more than driftguard's entries"
            return stop("failed", f"{detail}; nothing changed", False)
    plan = Plan(
        status=status,
        text=new,
        # read back as _write reads it: an empty "hooks" object is the same as none
        expected={k: v for k, v in wanted.items() if not (k == HOOKS and v == {})},
        created=None
        if request.action == "uninstall"
        else _created(value, original is not None, request, host),
        diff=unified_diff(path, text, new),
        forgotten=frozenset({HOOKS, *(f"{HOOKS}.{spec.event}" for spec in host.specs)}),
    )
    if request.dry_run:
        return HostResult(
            name, status, detail, ok=ok, path=path, diff=plan.diff, notes=notes, dry_run=True
        )
    found = Inspected(path, target, original, text, value, None, "add")
    written = _write(name, found, _reader(host), plan, notes)
    if written.status != status:  # failed: _write says why
        return written
    return HostResult(
        name,
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
    """How :func:`._safe_edit._write` reads the written file back to verify it: it uses
    only ``load`` and ``container`` of a :class:`._safe_edit.ServersFormat` (the splices
    here are :func:`_splice`, not a server-table format's)."""

    host: HooksHost
    label: str = "JSON"
    container: str = HOOKS

    def load(self, text: str) -> dict[str, Any]:
        try:
            value: dict[str, Any] = _parse(text, self.host).value
        except HookSettingsError as exc:
            raise ConfigSyntaxError(str(exc)) from None
        return value


def _reader(host: HooksHost) -> ServersFormat:
    return cast(ServersFormat, _SettingsReader(host))


def specs_by_name(specs: Sequence[HookSpec]) -> Mapping[str, HookSpec]:
    """The specs keyed by driftguard's event name."""
    return {spec.name: spec for spec in specs}
