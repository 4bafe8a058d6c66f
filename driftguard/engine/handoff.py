"""The handoff: a prompt that makes the current model write ``handoff.md`` for a fresh
session, pre-filled with facts read from the transcript (docs/design.md §6 ``get_handoff``).

:func:`build_handoff` reads a parsed :class:`~driftguard.model.Session` and its
:class:`~driftguard.scoring.DriftReport` and returns a :class:`Handoff`: the facts and
the prompt. The facts, from what the model still remembers (``Session.messages``: what
follows the last compaction, docs/design.md §5.1):

- **goal** — the first user message of the remembered conversation that is not the
  compaction summary. Without a compaction that is the session's first request; after
  one the first request is gone (only the summary remains), so the prompt says the
  session was compacted and quotes a gated excerpt of the summary (≤ 600 characters)
  without Claude Code's own preamble (:data:`SUMMARY_PREAMBLE`).
- **files modified** — ``ToolCall.target_path`` of the calls whose ``kind`` is
  ``"edit"`` (the adapter that parsed the session tells each tool's kind by its name:
  Claude Code ``Write``, ``Edit`` …, Gemini CLI ``write_file``, ``replace`` …, Codex
  ``apply_patch`` — also when run through a shell tool, the target then being the
  patch's first ``*** … File:`` line —, Cursor ``edit_file`` …), deduplicated in
  first-seen order, shown relative to the session's cwd; then, from the compaction ledger
  (the remembered transcript no longer holds those calls), the files edited before the
  last compaction that it kept (``CompactionRecord.kept_files``), and those a compaction
  dropped, oldest compaction first, each marked in the draft with its compaction. The
  ledger holds at most 10 files per compaction; the prompt asks the model to complete
  the list from its memory, and without any file the placeholder says none was edited
  since the last compaction (not that none was edited).
- **commands** — ``ToolCall.command`` of the calls whose ``kind`` is ``"shell"`` (an
  ``apply_patch`` run through a shell is an edit: file contents, not a command): the last
  10 distinct ones, in the order they were last run, whitespace collapsed, ≤ 160
  characters each, without a ``bash -lc`` wrapper (Codex runs every command in one).
- **last errors** — the latest 3 distinct errors among the tool results the CLI marked
  ``is_error``, one line each (≤ 160 characters): the first line that reads like an error
  message (``…Error:``, ``error:``, ``error[…]:``, ``fatal:``, ``failed:``, ``ERR!``)
  within the first 200 lines, else the first non-blank line after the CLI's own header
  (Claude Code's ``Exit code 1``, Codex's ``Exit code: 1`` / ``Wall time:`` /
  ``Output:``), else the header. Real tool errors often open
  with log noise (a ``level=info`` line, a ``WARN`` banner, a bare file path), so the
  first line alone rarely says what failed. Each error is listed once, however often it
  recurred, and an error is left out when a later run of the same action succeeded (it
  was fixed) — the same shell command, an edit of the same file, or the same tool
  with the same arguments. A result is paired with its call by order within the response
  that made the calls (the files link them by id, which the parsed session does not keep).
  The rule is :func:`driftguard.compaction.ledger.latest_errors` and
  :func:`~driftguard.compaction.ledger.error_line`, which the compaction ledger shares.
- **what compactions dropped** — the compaction ledger (:mod:`driftguard.render.ledger`,
  built by the adapter from the messages before each compaction, which the remembered
  conversation no longer holds): the files, rules and errors the last compaction dropped,
  and those the earlier listed ones dropped (or that what they dropped is unknown), in the
  last section of the draft and in ``compaction_dropped``.
- **score, state, factors** — from the report.

Every excerpt (goal, summary, commands, error output, file paths, what a compaction
dropped, the session's cwd and path) passes :func:`driftguard.secrets.gate` *before* it
is cut to length, so a cut can never leave half a secret unrecognised (the compaction
ledger cut its rules and errors from their sources after the gate saw the whole source:
:mod:`driftguard.compaction.ledger`); excerpts the gate drops (credential-file contents) are counted
and noted in the prompt — only those of what the draft shows. Nothing else of a
tool result is ever copied: successful tool output and assistant text never reach the
prompt. Markers are never cut in half.

Pure functions, no I/O, no MCP imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from driftguard.compaction.ledger import error_line, latest_errors, one_line, relative
from driftguard.engine.drift import drift
from driftguard.errors import from_os_error
from driftguard.format import display_factors, plural
from driftguard.labels import FACTOR_LABELS
from driftguard.model import CliName, ParsedMessage, ResolvedBy, Session, State, ToolCall
from driftguard.render.ledger import (
    GATE_CHARS,
    LEDGER_SHOWN,
    LedgerView,
    gate_printable,
    ledger_view,
    numbered_records,
)
from driftguard.render.text import display_round
from driftguard.scoring.composite import DriftReport
from driftguard.scoring.features import Features
from driftguard.scoring.wording import NOTABLE, host_name
from driftguard.secrets import Redaction
from driftguard.sessions import discovery
from driftguard.store.handoff_files import (
    PLACEHOLDERS,
    SavedHandoff,
    handoff_files,
    save_handoff,
)
from driftguard.store.history import HistoryStore
from driftguard.terminal import clip

__all__ = [
    "COMMAND_LIMIT",
    "ERROR_LIMIT",
    "GOAL_CHARS",
    "HANDED_OVER_BY_HOOK",
    "LINE_CHARS",
    "READ_HANDOFF",
    "SECTIONS",
    "SUMMARY_CHARS",
    "SUMMARY_CLOSING",
    "SUMMARY_PREAMBLE",
    "Handoff",
    "HandoffOutcome",
    "HandoffTarget",
    "build_handoff",
    "checkpoint_facts",
    "handoff_target",
    "pickup",
    "pickup_any",
    "prepare_handoff",
    "write_handoff",
]

SECTIONS: tuple[str, ...] = (
    "## What we accomplished",
    "## Current state",
    "## Files modified",
    "## Open questions and next steps",
    "## Context for next session",
)
"""The five section headings of ``handoff.md``, in order (docs/design.md §6)."""

COMMAND_LIMIT = 10
"""Distinct commands listed, the most recently run ones."""
ERROR_LIMIT = 3
"""Failed tool results summarised, the latest ones."""
FILE_LIMIT = 50
"""Files listed before the rest are only counted."""
LINE_CHARS = 160
"""Characters kept of one command or error line."""
GOAL_CHARS = 500
"""Characters kept of the goal."""
SUMMARY_CHARS = 600
"""Characters kept of the compaction summary."""
SUMMARY_PREAMBLE = re.compile(
    r"\s*This session is being continued from a previous conversation that ran out of "
    r"context\.\s+(?:The conversation is summarized below:"
    r"|The summary below covers the earlier portion of the conversation\.)"
    r"\s*(?:Summary:\s*)?"
)
"""The words Claude Code opens its compaction summary with, which say nothing of the work:
2.1.197 writes "This session is being continued from a previous conversation that ran out
of context. The summary below covers the earlier portion of the conversation." then a blank
line and "Summary:" (the ``isCompactSummary`` lines 64 and 170 of the shared corpus's
``generated/claude/claude-long-26turns-compact.jsonl``); earlier versions wrote "… ran out
of context. The conversation is summarized below:" (public transcripts of Claude Code 1.x
and 2.0). The handoff's excerpt starts after it."""
SUMMARY_CLOSING = re.compile(
    r"\s*(?:If you need specific details from before compaction\b[^\n]*\n\s*)?"
    r"Continue the conversation from where it left off without asking the user any further "
    r"questions\..*\Z",
    re.DOTALL,
)
"""The words Claude Code closes its compaction summary with, instructions to the model
that say nothing of the work: 2.1.197 writes "If you need specific details from before
compaction (…), read the full transcript at: <path>" and "Continue the conversation from
where it left off without asking the user any further questions. Resume directly — …"
(the same corpus lines as :data:`SUMMARY_PREAMBLE`). The handoff's excerpt ends before it."""
_SHELL_WRAPPER = re.compile(r"^(?:/(?:usr/)?bin/)?(?:ba|z|da)?sh -l?c (?=\S)")
"""Codex runs every command as ``bash -lc <script>``: the wrapper is dropped for display."""


@dataclass(frozen=True, slots=True)
class Handoff:
    """The facts a handoff is pre-filled with, and the prompt that asks for ``handoff.md``.

    Every text field has passed the secret gate; lengths are in characters.

    Attributes:
        prompt: the instructions for the current model: write ``handoff.md`` with the
            five :data:`SECTIONS`, starting from the pre-filled draft it contains.
        goal: the first request of the remembered conversation (≤ 500 characters,
            whitespace collapsed), or ``None`` when there is none or it was withheld.
        files_modified: files created or edited, relative to the session's cwd where
            they lie under it: those of the remembered transcript (since the last
            compaction) in first-seen order, then, from the compaction ledger, those
            edited before the last compaction that it kept, then those a compaction
            dropped, oldest compaction first.
        commands: the last distinct shell commands, oldest first (≤ 10, ≤ 160 each).
        last_errors: one-line summaries of the latest failed tool results, oldest first
            (≤ 3, ≤ 160 each).
        score: the drift score, 0–100 points.
        state: the drift state.
        factors: each factor's unrounded points by JSON name (``None`` when inactive).
        handoff_suggested: whether the report suggested a handoff.
        compactions: compaction boundaries in the session file.
        compaction_summary: the compaction summary the conversation continues from
            (≤ 600 characters), or ``None``.
        withheld_excerpts: excerpts dropped whole as credential-file contents.
        withheld_reasons: what each withheld excerpt looked like (``"a .env dump"`` …).
        redactions: the secrets replaced in the excerpts shown.
        cli: the CLI that wrote the session.
        session_path: the session file.
        draft: the pre-filled ``handoff.md`` the prompt asks the model to complete (the
            five sections with facts and ``<placeholder>`` lines); what
            ``driftguard handoff --write`` saves.
        saved_to: where the draft was saved for the next session (``None`` when it was
            not saved); the prompt then asks to complete that file in place.
        compaction_dropped: what the last compaction dropped, one phrase each (``the
            constraint “…”``, ``the edited file src/db.py``, ``the error “…”``; the
            compaction ledger, :mod:`driftguard.render.ledger`); empty without one.
        hooked: as :func:`build_handoff`'s argument (what :func:`pickup` is told).
    """

    prompt: str
    goal: str | None
    files_modified: tuple[str, ...]
    commands: tuple[str, ...]
    last_errors: tuple[str, ...]
    score: int
    state: State
    factors: Mapping[str, float | None]
    handoff_suggested: bool
    compactions: int
    compaction_summary: str | None
    withheld_excerpts: int
    withheld_reasons: tuple[str, ...]
    redactions: tuple[Redaction, ...]
    cli: CliName
    session_path: str
    draft: str = ""
    saved_to: str | None = None
    compaction_dropped: tuple[str, ...] = ()
    hooked: bool = True


@dataclass(slots=True)
class _Gate:
    """Gates excerpts and keeps count of what was redacted or withheld: only excerpts the
    handoff shows pass it, and an excerpt shown twice (a file a compaction dropped, in the
    file list and in what the compaction dropped) is counted once."""

    redactions: list[Redaction] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    seen: dict[str, str | None] = field(default_factory=dict)

    def __call__(self, text: str) -> str | None:
        """:func:`~driftguard.render.ledger.gate_printable`'s text, its verdict counted."""
        key = text[:GATE_CHARS]
        if key in self.seen:
            return self.seen[key]
        result = gate_printable(key)
        if result.text is None:
            self.withheld.append(result.dropped_reason or "credential-file contents")
        self.redactions.extend(result.redactions)
        self.seen[key] = result.text
        return result.text

    def verdicts(self, withheld: Iterable[str], redactions: Iterable[Redaction]) -> None:
        """Count what the gate withheld or redacted before (the compaction ledger gates
        each source whole before it cuts an excerpt: :mod:`driftguard.compaction.ledger`)."""
        self.withheld.extend(withheld)
        self.redactions.extend(redactions)


def build_handoff(
    session: Session, report: DriftReport, *, saved_to: str | None = None, hooked: bool = True
) -> Handoff:
    """The handoff of ``session``, scored as ``report``.

    Args:
        session: the parsed session (its remembered messages are read).
        report: the session's drift report (score, state, factors).
        saved_to: the file the draft is being saved to for the next session; the
            prompt then asks the model to complete that file in place
            instead of writing ``handoff.md`` in the project root.
        hooked: driftguard's ``SessionStart`` hook is installed in Claude Code, so its next
            session is given a saved draft by itself (:func:`pickup`).

    Returns:
        The :class:`Handoff`; every excerpt in it and in its prompt has passed the
        secret gate. Never raises on odd content: an empty session gives a prompt with
        placeholders only.
    """
    gated = _Gate()
    goal_message = _first_request(session.messages)
    goal = _excerpt(gated, goal_message.content, GOAL_CHARS) if goal_message else None
    summary_message = next((m for m in session.messages if m.is_summary), None)
    summary = (
        _excerpt(gated, _without_preamble(summary_message.content), SUMMARY_CHARS)
        if summary_message
        else None
    )
    # a response with tool calls only is a ``tool`` message holding its calls (model.py)
    calls = [call for m in session.messages for call in m.tool_calls]
    cwd = _gated_line(gated, session.cwd) if session.cwd else None
    edited = _files_modified(gated, calls, session.cwd)
    commands = _commands(gated, calls)
    errors = _last_errors(gated, session.messages, session.cwd)
    ledger = ledger_view(session, gated=gated)  # the compactions the draft lists
    for _, record in numbered_records(session)[-LEDGER_SHOWN:]:
        gated.verdicts(record.dropped_withheld, record.dropped_redactions)
    kept = _files_kept(gated, session, edited)
    dropped = _files_dropped(gated, session, (*edited, *kept))
    files = (*edited, *kept, *dropped)
    path = _gated_line(gated, session.path) or "(withheld)"
    facts = _Facts(
        goal=goal,
        summary=summary,
        files=edited,
        kept_files=kept,
        dropped_files=dropped,
        commands=commands,
        errors=errors,
        cwd=cwd,
        path=path,
        cli=session.cli,
        compactions=session.compactions,
        ledger=ledger,
        report=report,
        withheld=tuple(gated.withheld),
        redacted=len(gated.redactions),
        saved_to=_gated_line(gated, saved_to) if saved_to else None,
        hooked=hooked,
    )
    return Handoff(
        prompt=_prompt(facts),
        goal=goal,
        files_modified=files,
        commands=commands,
        last_errors=errors,
        score=report.score,
        state=report.state,
        factors=dict(report.factors),
        handoff_suggested=report.handoff_suggested,
        compactions=session.compactions,
        compaction_summary=summary,
        withheld_excerpts=len(gated.withheld),
        withheld_reasons=tuple(gated.withheld),
        redactions=tuple(gated.redactions),
        cli=session.cli,
        session_path=path,
        draft="\n".join(_draft(facts)) + "\n",
        saved_to=facts.saved_to,
        compaction_dropped=ledger.last.phrases() if ledger.last is not None else (),
        hooked=hooked,
    )


# --- facts -----------------------------------------------------------------------------


def _first_request(messages: Iterable[ParsedMessage]) -> ParsedMessage | None:
    """The first user message that is not the compaction summary and has text."""
    return next(
        (m for m in messages if m.role == "user" and not m.is_summary and m.content.strip()),
        None,
    )


def _excerpt(gated: _Gate, text: str, limit: int) -> str | None:
    """Gate ``text``, then collapse its whitespace and cut it to ``limit``."""
    passed = gated(text)
    if passed is None:
        return None
    return clip(one_line(passed), limit) or None


def _without_preamble(summary: str) -> str:
    """``summary`` without Claude Code's :data:`SUMMARY_PREAMBLE` at its start and
    :data:`SUMMARY_CLOSING` at its end (each kept when nothing else would be left)."""
    found = SUMMARY_PREAMBLE.match(summary)
    if found and found.end() < len(summary):
        summary = summary[found.end() :]
    closing = SUMMARY_CLOSING.search(summary)
    return summary[: closing.start()] if closing and closing.start() > 0 else summary


def _files_kept(gated: _Gate, session: Session, edited: tuple[str, ...]) -> dict[str, int]:
    """The files edited before the last compaction that it kept (its summary or what the
    host carried over named them, or a later prompt or call did:
    :attr:`~driftguard.model.CompactionRecord.kept_files`), as shown (gated, relative to
    the cwd) → the compaction's number, less those in ``edited``."""
    if not session.compaction_ledger:
        return {}
    number = max(session.compactions, len(session.compaction_ledger))
    kept: dict[str, int] = {}
    for path in session.compaction_ledger[-1].kept_files:
        shown = _gated_line(gated, relative(path, session.cwd))
        if shown and shown not in edited:
            kept.setdefault(shown, number)
    return kept


def _files_dropped(gated: _Gate, session: Session, edited: Iterable[str]) -> dict[str, int]:
    """The files the compactions of ``session`` (every one) dropped, as shown (gated,
    relative to the cwd, not cut: compared whole with ``edited``) → the number of the
    first compaction that dropped each, oldest first, less those in ``edited`` (edited
    again since the last compaction, or kept by it)."""
    listed = set(edited)
    dropped: dict[str, int] = {}
    for number, record in numbered_records(session):
        for path in record.dropped_files:
            shown = _gated_line(gated, relative(path, session.cwd))
            if shown and shown not in listed:
                dropped.setdefault(shown, number)
    return dropped


def _gated_line(gated: _Gate, text: str) -> str | None:
    passed = gated(text)
    return one_line(passed) if passed is not None else None


def _files_modified(gated: _Gate, calls: list[ToolCall], cwd: str | None) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    raw_seen: set[str] = set()
    for call in calls:
        target = call.target_path
        if not target or target in raw_seen:
            continue
        if call.kind == "edit":
            raw_seen.add(target)
            shown = _gated_line(gated, relative(target, cwd))
            if shown:
                seen.setdefault(shown)
    return tuple(seen)


def _commands(gated: _Gate, calls: list[ToolCall]) -> tuple[str, ...]:
    """The last :data:`COMMAND_LIMIT` distinct commands, in the order last run."""
    picked: dict[str, None] = {}
    raw_seen: set[str] = set()
    for call in reversed(calls):
        if len(picked) >= COMMAND_LIMIT:
            break
        command = call.command
        if call.kind != "shell" or not command:
            continue
        if command in raw_seen:
            continue
        raw_seen.add(command)
        shown = _excerpt(gated, command, LINE_CHARS)
        shown = _SHELL_WRAPPER.sub("", shown) if shown else None
        if shown:
            picked.setdefault(shown)
    return tuple(reversed(picked))


def _last_errors(
    gated: _Gate, messages: tuple[ParsedMessage, ...], cwd: str | None
) -> tuple[str, ...]:
    """The latest :data:`ERROR_LIMIT` distinct error lines, oldest first, leaving out each
    error a later run of the same action fixed (module doc): each result gated first,
    then its line cut to :data:`LINE_CHARS`."""

    def describe(text: str) -> str | None:
        passed = gated(text)
        return clip(error_line(passed, cwd), LINE_CHARS) if passed is not None else None

    return latest_errors(messages, describe, ERROR_LIMIT)


# --- prompt ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Facts:
    goal: str | None
    summary: str | None
    files: tuple[str, ...]
    """Edited since the last compaction."""
    kept_files: Mapping[str, int]
    """Edited before the last compaction, which kept them → its number (:func:`_files_kept`)."""
    dropped_files: Mapping[str, int]
    """Edited before a compaction that dropped them → its number (:func:`_files_dropped`)."""
    commands: tuple[str, ...]
    errors: tuple[str, ...]
    cwd: str | None
    path: str
    cli: CliName
    compactions: int
    ledger: LedgerView
    report: DriftReport
    withheld: tuple[str, ...]
    redacted: int
    saved_to: str | None = None
    hooked: bool = True


def _code(text: str) -> str:
    """``text`` as a Markdown code span (CommonMark §6.1: a fence of backticks longer
    than any run inside, padded when the text starts or ends with one)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _factor_summary(report: DriftReport) -> str:
    notable = [
        f"{FACTOR_LABELS[name]} {display_round(value):.1f}"
        for name, value in report.factors.items()
        if value is not None and value >= NOTABLE
    ]
    return ", ".join(notable) if notable else "no factor at 10 points or more"


def _withheld_note(reasons: tuple[str, ...]) -> str:
    kinds = ", ".join(dict.fromkeys(reasons))
    count = plural(len(reasons), "excerpt", "excerpts")
    verb = "it" if len(reasons) == 1 else "they"
    return f"{count} withheld: {verb} looked like credential-file contents ({kinds})."


def _draft(facts: _Facts) -> list[str]:
    report = facts.report
    compacted = facts.compactions > 0
    lines = [SECTIONS[0]]
    if facts.goal is None:
        lines.append(f"- Goal: {PLACEHOLDERS[0]}")
    elif compacted:
        lines.append(f"- First request after the last compaction: “{facts.goal}”")
        lines.append(f"- Overall goal: {PLACEHOLDERS[1]}")
    else:
        lines.append(f"- Goal (the session's first request): “{facts.goal}”")
    lines.append(f"- {PLACEHOLDERS[2]}")

    lines += ["", SECTIONS[1]]
    lines.append(
        f"- Drift of the previous session: {report.score}/100 ({report.state}); "
        f"{_factor_summary(report)}."
    )
    if facts.errors:
        lines.append("- Last errors it hit (say whether each is resolved):")
        lines += [f"  - {_code(error)}" for error in facts.errors]
    else:
        lines.append("- No failed tool calls in the remembered transcript.")
    lines.append(f"- {PLACEHOLDERS[3]}")

    lines += ["", SECTIONS[2]]
    listed = [
        *(f"- {_code(path)} — {PLACEHOLDERS[4]}" for path in facts.files),
        *(
            f"- {_code(path)} (edited before compaction {number}, which kept it) — "
            f"{PLACEHOLDERS[4]}"
            for path, number in facts.kept_files.items()
        ),
        *(
            f"- {_code(path)} (edited before compaction {number}, which dropped it) — "
            f"{PLACEHOLDERS[4]}"
            for path, number in facts.dropped_files.items()
        ),
    ]
    lines += listed[:FILE_LIMIT]
    if len(listed) > FILE_LIMIT:
        lines.append(f"- … and {len(listed) - FILE_LIMIT} more")
    if not listed:
        lines.append(f"- {PLACEHOLDERS[9] if compacted else PLACEHOLDERS[5]}")

    lines += ["", SECTIONS[3]]
    lines.append(f"- {PLACEHOLDERS[6]}")
    lines.append(f"- {PLACEHOLDERS[7]}")

    lines += ["", SECTIONS[4]]
    if facts.commands:
        lines.append("- Commands run, most recent last:")
        lines += [f"  - {_code(command)}" for command in facts.commands]
    where = f" in {_code(facts.cwd)}" if facts.cwd else ""
    lines.append(f"- Previous session: {facts.cli} transcript {_code(facts.path)}{where}.")
    if compacted:
        times = plural(facts.compactions, "time", "times")
        lines.append(f"- That session was compacted {times}; earlier work is in its summary.")
        lines += _ledger_lines(facts.ledger)
    if facts.summary:
        lines.append(f"- Compaction summary (excerpt): “{facts.summary}”")
    lines.append(f"- {PLACEHOLDERS[8]}")
    return lines


def _ledger_lines(ledger: LedgerView) -> list[str]:
    """What the last compaction dropped and what the earlier listed ones dropped (rules,
    files, errors), as draft lines: the model that writes the handoff
    says which still hold."""
    sentences = (ledger.sentence(code=_code), ledger.earlier_sentence(code=_code))
    return [f"- {sentence}" for sentence in sentences if sentence]


HANDED_OVER_BY_HOOK: frozenset[CliName] = frozenset(
    {"claude_code", "codex_cli", "gemini_cli", "cursor"}
)
"""The hosts whose next session is given a saved handoff without being asked, once
driftguard's hooks are installed (``driftguard setup --hooks``): Claude Code, Codex and
Cursor at session start, Gemini CLI with the first prompt."""

READ_HANDOFF = "Read .driftguard/handoff.md and continue from it."
"""What to begin a session with in a host that is not given the handoff by itself."""


def pickup(cli: CliName, where: str = "this project", *, hooked: bool = True) -> str:
    """One sentence on how the next session gets a handoff saved in ``where`` from a
    ``cli`` session: by itself when ``hooked`` (the host runs driftguard's hooks,
    :data:`HANDED_OVER_BY_HOOK`), else by being asked."""
    host = host_name(cli)
    if cli in HANDED_OVER_BY_HOOK and hooked:
        return (
            f"The next {host} session started in {where} begins with it "
            "(driftguard's hooks, from `driftguard setup --hooks`)."
        )
    if cli in HANDED_OVER_BY_HOOK:
        return (
            f"driftguard's hooks, which hand it to the next {host} session, are not "
            "installed (`driftguard setup --hooks` installs them): begin the next session "
            f"in {where} with “{READ_HANDOFF}”"
        )
    return (
        f"{host} does not start a session with it by itself: begin the next session with "
        f"“{READ_HANDOFF}”"
    )


def pickup_any(hooked: Sequence[CliName], where: str = "this project") -> str:
    """How the next session started in ``where`` gets a waiting handoff, whichever host it
    is started in (``driftguard handoff --status``): by itself in the hosts of ``hooked``
    (those that run driftguard's hand-over hook), by being asked in any other; says how to
    install the hooks when some host lacks them."""
    named = [host_name(cli) for cli in hooked if cli in HANDED_OVER_BY_HOOK]
    install = "`driftguard setup --hooks` installs them"
    if not named:
        return (
            f"Nothing hands it to the next session: driftguard's hooks are installed in no "
            f"host ({install}). Until then, begin the next session in {where} with "
            f"“{READ_HANDOFF}”"
        )
    hosts = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
    sentence = f"The next {hosts} session started in {where} gets it (driftguard's hooks)."
    if len(named) == len(HANDED_OVER_BY_HOOK):
        return sentence
    return (
        f"{sentence} In another host, driftguard's hooks are not installed ({install}): "
        f"begin that session with “{READ_HANDOFF}”"
    )


def _prompt(facts: _Facts) -> str:
    target = f" in {_code(facts.cwd)}" if facts.cwd else " in the project's root directory"
    if facts.saved_to:
        task = (
            f"driftguard saved the draft below as {_code(facts.saved_to)}. "
            f"{pickup(facts.cli, hooked=facts.hooked)} Complete it in place (edit that "
            "file, do not create another handoff.md) so that a fresh session can take over "
            "this work without this session's history."
        )
    else:
        task = (
            f"Write a file named `handoff.md`{target} so that a fresh session can take over "
            "this work without this session's history."
        )
    intro = [
        task,
        "",
        "Start from the draft below. driftguard pre-filled it with facts read from this "
        "session's transcript; they are incomplete and may be out of date. Verify and "
        "complete them from your own memory of this session: correct what is wrong, "
        "replace every <placeholder>, and delete lines that do not apply. Keep exactly "
        "the five `##` sections of the draft, with the same headings, in the same order, "
        "and no others. Keep it short: bullet points, one page at most.",
        "",
        "Do NOT copy secrets into handoff.md: no API keys, tokens, passwords, private "
        "keys, credentials, connection strings with passwords, or .env contents. Say "
        "where a secret lives instead (for example “the key in .env”). Text shown as "
        "[REDACTED:…] was removed by driftguard's secret gate: leave it out.",
    ]
    if facts.compactions > 0:
        intro += [
            "",
            "This session was compacted "
            f"{plural(facts.compactions, 'time', 'times')}: its first request and the "
            "work before the last compaction are no longer in the transcript's remembered "
            "part; they are summarised in the compaction summary (excerpt in the last "
            "section). Use that summary and your memory for “What we accomplished”.",
        ]
    notes: list[str] = []
    if facts.redacted:
        notes.append(
            f"{plural(facts.redacted, 'secret was', 'secrets were')} redacted from the facts."
        )
    if facts.withheld:
        notes.append(_withheld_note(facts.withheld))
    if notes:
        intro += ["", "Note: " + " ".join(notes)]
    draft = _draft(facts)
    return "\n".join([*intro, "", "Draft of handoff.md:", "", "~~~markdown", *draft, "~~~", ""])


@dataclass(frozen=True, slots=True)
class HandoffTarget:
    """Where a session's handoff may be saved: ``project``, or nowhere (``None``) with the
    ``reason`` shown to the user."""

    project: Path | None
    reason: str | None = None


def handoff_target(
    session: Session, projects: Sequence[Path], *, found_for_project: bool
) -> HandoffTarget:
    """The project among ``projects`` that ``session``'s handoff may be saved in.

    Args:
        session: the parsed session (its recorded ``cwd`` and its file's place decide).
        projects: the projects the command, server or hook was started for, most likely
            first (the working directory, ``$CLAUDE_PROJECT_DIR``, ``--project``, the MCP
            client's roots); never a folder taken from a session file.
        found_for_project: the session was found for ``projects[0]`` (a hook's pointer,
            ``CLAUDE_CODE_SESSION_ID``, the newest of the project), not named by the caller.

    The rule: a session that recorded a working directory belongs to the
    deepest project that is that folder or contains it; one that recorded none belongs to
    ``projects[0]`` when it was found for it, else to the project whose own session folder
    holds the file (:func:`driftguard.sessions.discovery.in_project_session_folder`). Otherwise it
    is saved nowhere, and ``reason`` says why.
    """
    if not projects:
        return HandoffTarget(None, "no project to save it in")
    if session.cwd:
        containing = [p for p in projects if discovery.project_contains(p, session.cwd)]
        if containing:
            return HandoffTarget(max(containing, key=lambda p: len(p.absolute().parts)))
        return HandoffTarget(
            None,
            f"the handoff was not saved: this session ran in {session.cwd}, outside the "
            f"project ({projects[0]}), and a handoff is saved only in the project its "
            "session ran in; it is given here instead",
        )
    if found_for_project:
        return HandoffTarget(projects[0])
    session_file = Path(session.path)
    for project in projects:
        if discovery.in_project_session_folder(project, session_file):
            return HandoffTarget(project)
    return HandoffTarget(
        None,
        "the handoff was not saved: this session file records no working directory and "
        f"is not one of the project's own ({projects[0]}), and a handoff is saved only in "
        "the project its session ran in; it is given here instead",
    )


def checkpoint_facts(made: Handoff, report: DriftReport) -> dict[str, Any]:
    """What the checkpoint beside a saved ``handoff.md`` records of the session and its
    score (:func:`driftguard.store.handoff_files.save_handoff` adds its own fields)."""
    return {
        "session_id": report.session.session_id,
        "cli": made.cli,
        "transcript": made.session_path,
        "score": report.score,
        "state": report.state,
        "factors": display_factors(report.factors),
        "handoff_suggested": report.handoff_suggested,
        "files_touched": list(made.files_modified),
    }


def prepare_handoff(
    session: Session,
    *,
    project: Path | None,
    store: HistoryStore,
    resolved_by: ResolvedBy = "path",
    saved_to: str | None = None,
    hooked: bool = True,
    features: Features | None = None,
    found_in: Path | None = None,
) -> tuple[Handoff, DriftReport]:
    """The handoff prompt of the session, with its current (unrecorded) report.

    ``saved_to`` names the file the draft is being saved to (``handoff --write``,
    the ``save_handoff`` tool); the prompt then asks to complete that file in place, and
    says how the next session gets it: by itself where the host runs driftguard's
    session-start hook (``hooked``: the shell asks the setup tool, which knows the hosts'
    configs), else by being told to read it. ``features`` and ``found_in``: as
    :func:`~driftguard.engine.drift.drift`.
    """
    outcome = drift(
        session,
        project=project,
        store=store,
        resolved_by=resolved_by,
        record=False,
        features=features,
        found_in=found_in,
    )
    made = build_handoff(session, outcome.report, saved_to=saved_to, hooked=hooked)
    return made, outcome.report


@dataclass(frozen=True, slots=True)
class HandoffOutcome:
    """A handoff saved for the next session (or why it was not), with its report.

    Attributes:
        handoff: the handoff prompt and its facts.
        report: the session's current (unrecorded) drift report.
        saved: what was written in the project's ``.driftguard/`` folder, or ``None``.
        project: the project it was saved in, or ``None``.
        not_saved: why it was not saved (the session belongs to no project it may be
            saved in), one line; ``None`` when it was.
    """

    handoff: Handoff
    report: DriftReport
    saved: SavedHandoff | None
    project: Path | None = None
    not_saved: str | None = None


def write_handoff(
    session: Session,
    *,
    project: Path | None,
    store: HistoryStore,
    projects: Sequence[Path],
    found_for_project: bool,
    replace: bool = False,
    resolved_by: ResolvedBy = "path",
    hooked: bool = True,
    features: Features | None = None,
    found_in: Path | None = None,
) -> HandoffOutcome:
    """The handoff of the session, saved as ``.driftguard/handoff.md`` (with its
    checkpoint) in the project it belongs to: ``driftguard handoff --write`` and the
    ``save_handoff`` tool.

    Args:
        session: the parsed session.
        project: the project whose config applies (as :func:`drift`).
        store: the history store (read for the remembered goal).
        projects: the projects the command or server was started for, most likely first;
            the handoff is saved only in one of them
            (:func:`handoff_target`).
        found_for_project: the session was found for ``projects[0]`` (not named by the
            caller).
        replace: replace a completed ``handoff.md`` that still waits for the next session
            (it is kept under another name either way).
        resolved_by: how the session was chosen, for the report.
        hooked: as :func:`prepare_handoff`.
        features: as :func:`~driftguard.engine.drift.drift`.
        found_in: as :func:`~driftguard.engine.drift.drift`.

    Raises:
        DriftguardError: the handoff files cannot be written (names the project), or a
            completed handoff waits and ``replace`` is not given.
        ConfigError: as :func:`~driftguard.engine.drift.drift`.
    """
    chosen = handoff_target(session, projects, found_for_project=found_for_project)
    target = chosen.project
    made, report = prepare_handoff(
        session,
        project=project,
        store=store,
        resolved_by=resolved_by,
        saved_to=str(handoff_files(target).handoff) if target is not None else None,
        hooked=hooked,
        features=features,
        found_in=found_in,
    )
    saved = None
    if target is not None:
        try:
            saved = save_handoff(
                target, made.draft, checkpoint_facts(made, report), replace=replace
            )
        except OSError as exc:
            raise from_os_error(exc, f"cannot write the handoff in {target}") from exc
    return HandoffOutcome(made, report, saved, target, chosen.reason)
