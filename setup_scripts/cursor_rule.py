"""``driftguard setup --hooks --project DIR`` for Cursor: a project rule,
``DIR/.cursor/rules/driftguard.mdc``, that asks Cursor's model to check its own drift.

Cursor's hooks cannot add to the model's context before a prompt (``beforeSubmitPrompt``
has no such output), so nothing tells the model of a loop or a filling context while it
works; an ``alwaysApply`` rule is in every request of the project's chats, and it asks
the model to call driftguard's ``get_drift`` now and then and to follow what it says.
(``alwaysApply: true`` must be a YAML boolean: the string ``"true"`` is read as not
always.) The rule names no handoff file: a waiting handoff is handed over only by the
``sessionStart`` hook, which checks that this machine saved it.

The file is driftguard's whole (its first line after the front matter says so): install
writes it when absent, leaves a file that differs unless ``--update``, and uninstall
removes it only while it is driftguard's, and then the folders install made for it
(``.cursor/rules/``, ``.cursor/``: recorded in setup's ledger) once they are empty.
Written atomically; a replaced file is backed up next to it.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

from driftguard.setup_scripts._base import (
    HostResult,
    SetupRequest,
    Status,
    display_path,
    not_installed,
)
from driftguard.setup_scripts._safe_edit import (
    atomic_write,
    missing_folders,
    record_folders,
    remove_created_folders,
    unified_diff,
    write_backup,
)
from driftguard.setup_scripts.cursor import cursor_dir, installed

__all__ = ["LABEL", "MARKER", "RULE", "rule_file", "run"]

LABEL = "cursor rule"
MARKER = "<!-- written by driftguard setup --hooks; remove with --hooks --uninstall -->"
RULE = f"""---
description: driftguard checks this chat for drift (loops, a full context, a lost goal)
alwaysApply: true
---
{MARKER}
This project has the driftguard MCP server. Call its `get_drift` tool after every ten
turns or so, when a command has failed more than twice in a row, after the context was
summarised, and before starting a large new task. Follow what it says: when it reports
a loop, stop repeating the same call, say what each attempt showed, and change approach
or ask the user; when it suggests a fresh session, call `save_handoff` and tell the user.
"""


def rule_file(project: Path) -> Path:
    """``<project>/.cursor/rules/driftguard.mdc``."""
    return project / ".cursor" / "rules" / "driftguard.mdc"


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall the rule in ``request.project`` (module doc).

    Raises:
        ValueError: the request names no project.
    """
    if request.project is None:
        raise ValueError("the Cursor rule belongs to a project: --project DIR")
    if not installed():
        return replace(not_installed("cursor", cursor_dir()), label=LABEL)
    path = rule_file(request.project)
    shown = display_path(path)
    try:
        before = path.read_text(encoding="utf-8") if path.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        return _result("refused", f"cannot read {shown}: {exc}", path, ok=False)
    ours = before is not None and MARKER in before
    if request.action == "uninstall":
        if not ours:
            # folders install made that a file of the user's kept last time go once empty
            warning = None if request.dry_run else remove_created_folders(path.parent)
            return _result(
                "not present",
                f"no rule of driftguard's in {shown}",
                path,
                notes=(warning,) if warning else (),
            )
        warning = None
        if not request.dry_run:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            warning = remove_created_folders(path.parent)
        diff = unified_diff(path, before, None)
        return _result(
            "removed",
            f"removed {shown}",
            path,
            diff=diff,
            dry_run=request.dry_run,
            notes=(warning,) if warning else (),
        )
    if before == RULE:
        return _result("already present", f"rule in {shown}", path)
    if before is not None and not request.update:
        what = "an older driftguard rule" if ours else "a file of the same name"
        return _result(
            "skipped",
            f"{shown} holds {what}; left alone: --update replaces it",
            path,
            ok=False,
        )
    diff = unified_diff(path, before, RULE)
    status: Status = "added" if before is None else "updated"
    if request.dry_run:
        return _result(status, f"rule in {shown}", path, diff=diff, dry_run=True)
    backup = None
    if before is not None:
        backup = write_backup(path, before.encode("utf-8"), 0o644)
    made = missing_folders(path)
    atomic_write(path, RULE.encode("utf-8"), 0o644)
    warning = record_folders(made) if made else None
    return _result(
        status,
        f"rule in {shown}",
        path,
        diff=diff,
        backup=backup,
        notes=(warning,) if warning else (),
    )


def _result(
    status: Status,
    detail: str,
    path: Path,
    *,
    ok: bool = True,
    diff: str = "",
    dry_run: bool = False,
    backup: Path | None = None,
    notes: tuple[str, ...] = (),
) -> HostResult:
    return HostResult(
        "cursor",
        status,
        detail,
        ok=ok,
        path=path,
        diff=diff,
        dry_run=dry_run,
        backup=backup,
        notes=notes,
        label=LABEL,
    )
