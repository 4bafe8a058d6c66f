"""Rendering a :class:`DriftReport` as the docs/design.md §5.5 JSON object or text report.

Factor values are rounded half up to one decimal here, for display only; the score was
computed from the unrounded values. Weights are rounded to :data:`WEIGHT_DECIMALS`
decimals (a model reads ``0.3333``, not sixteen digits). The recommendation
comes first in the JSON object, as in the text: it is what a reader needs first.

Text is written for its reader (:data:`~driftguard.model.Audience`): someone at a terminal
is told to run ``driftguard`` commands, the model in a session to call the tools.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any, Final

from driftguard.compaction.budget import turns_phrase
from driftguard.format import BAR_CELLS, bar, display_round, iso_utc, plural, when_utc
from driftguard.labels import FACTOR_LABELS
from driftguard.model import (
    FACTOR_NAMES,
    Audience,
    CalibrationUse,
    GoalUse,
    Recording,
    WindowSource,
)
from driftguard.render.ledger import ledger_view
from driftguard.scoring.composite import MIN_MESSAGES, NOT_ENOUGH_MESSAGES, DriftReport
from driftguard.scoring.loops import describe_loop
from driftguard.scoring.wording import NOTABLE
from driftguard.terminal import printable

__all__ = [
    "BAR_CELLS",
    "SET_GOAL_HINT",
    "WEIGHT_DECIMALS",
    "Audience",
    "bar",
    "calibration_json",
    "calibration_text",
    "display_round",
    "handoff_line",
    "iso_utc",
    "offers_handoff",
    "outcome_json_fields",
    "plural",
    "render_compaction_lines",
    "render_goal_line",
    "render_session_line",
    "render_text",
    "room_text",
    "to_json_dict",
    "when_utc",
]

WEIGHT_DECIMALS = 4
"""Decimals of the weights in the JSON report (the scorer uses them unrounded)."""
GOAL_CHARS_SHOWN = 120
"""Characters of the goal shown in the text report (the JSON has all of it)."""


def handoff_line(audience: Audience) -> str:
    """The line that follows the score when a handoff is suggested, for its reader."""
    if audience == "cli":
        return "→ Run `driftguard handoff --write` to carry this work into a fresh session."
    return (
        "→ Call get_handoff() (or save_handoff() to save it for the next session) to carry "
        "this work into a fresh session."
    )


def offers_handoff(report: DriftReport) -> bool:
    """Whether the handoff hint (:func:`handoff_line`) follows the score: a handoff is
    suggested and the recommendation asks for a fresh start — not a step back from a loop,
    which a fresh session would only repeat."""
    return report.handoff_suggested and report.remedy != "step_back"


def _loop_json(report: DriftReport) -> dict[str, Any] | None:
    loop = report.measures.loop if report.measures is not None else None
    if loop is None:
        return None
    return {
        "kind": loop.kind,
        "count": loop.count,
        "points": display_round(loop.points),
        "description": describe_loop(loop),
    }


def to_json_dict(report: DriftReport) -> dict[str, Any]:
    """The docs/design.md §5.5 JSON object (field names are a contract other tools read), with
    the fields added since: ``scoring``, ``preset``, ``loop`` and, in ``session``,
    ``usable_window``, ``tokens_until_compaction``, ``usable_window_rule``,
    ``usable_window_overrides`` and ``context_window_source`` (with
    ``context_window_rule``: how the host chose the window when nobody named it, in
    words, else null); ``found_in`` (the folder
    above the working directory whose session it is, else null); and
    ``compactions``, the compaction ledger (:mod:`driftguard.render.ledger`
    gives its shape; ``session.compactions`` stays the count); ``session.messages_let_go``
    only when the parser let messages go (``Session.messages_let_go``). ``recommendation``
    comes first; factors have one decimal, weights :data:`WEIGHT_DECIMALS`."""
    session = report.session
    usable = report.usable
    return {
        "recommendation": report.recommendation,
        "score": report.score,
        "state": report.state,
        "factors": {
            name: (None if (value := report.factors.get(name)) is None else display_round(value))
            for name in FACTOR_NAMES
        },
        "weights": {
            name: round(report.weights.get(name, 0.0), WEIGHT_DECIMALS) for name in FACTOR_NAMES
        },
        "messages": report.messages,
        "handoff_suggested": report.handoff_suggested,
        "session": {
            "cli": session.cli,
            "path": session.path,
            "session_id": session.session_id,
            "context_tokens": session.context_tokens,
            "context_window": report.context_window,
            "tokens_estimated": session.tokens_estimated,
            "compactions": session.compactions,
            "skipped_lines": session.skipped_lines,
            "resolved_by": report.resolved_by,
            "found_in": report.found_in,
            "context_window_source": report.window_source,
            "context_window_rule": report.window_rule,
            "usable_window": report.usable_window,
            "tokens_until_compaction": report.tokens_until_compaction,
            "turns_until_compaction": report.budget.turns_left if report.budget else None,
            "context_growth_per_turn": (report.budget.growth_per_turn if report.budget else None),
            "usable_window_rule": usable.rule if usable is not None else None,
            "usable_window_overrides": list(usable.overrides) if usable is not None else [],
            "calibration": calibration_json(report.calibration),
            # only when the parser let messages go: a session within the bound, every
            # real one, keeps the shape it always had
            **({"messages_let_go": session.messages_let_go} if session.messages_let_go else {}),
        },
        "scoring": report.scoring,
        "preset": report.preset,
        "loop": _loop_json(report),
        "compactions": ledger_view(session).to_json(),
    }


def calibration_json(use: CalibrationUse) -> dict[str, Any]:
    """``session.calibration``::

        {"kind": "none"|"personal", "sessions": int|null, "needed": int|null,
         "host": str|null, "model": str|null, "file": str|null, "reason": str|null}

    ``sessions``: how many of the user's sessions set the scales (and, with ``"none"``,
    how many there are so far); ``needed``: how many it takes; ``model``: the model
    family; ``reason``: why the score is not calibrated."""
    return {
        "kind": use.kind,
        "sessions": use.sessions,
        "needed": use.needed,
        "host": use.host,
        "model": use.model,
        "file": use.file,
        "reason": use.reason,
    }


def calibration_text(use: CalibrationUse) -> str:
    """The calibration in a few words, for the session line."""
    if use.kind == "personal":
        return (
            f"calibrated on {plural(use.sessions or 0, 'session')} of yours "
            f"({use.host} · {use.model})"
        )
    return f"default scales: {use.reason}" if use.reason else "default scales"


def outcome_json_fields(goal: GoalUse | None, recording: Recording) -> dict[str, Any]:
    """The goal and recording fields of a scored report, after :func:`to_json_dict`'s::

        {"goal": str|null, "goal_source": "given"|"remembered"|null,
         "goal_set_at": str|null, "goal_kept": bool,
         "recorded": bool, "not_recorded_reason": str|null}

    ``goal_set_at`` is when the kept goal was stored (ISO 8601 UTC), null for a goal given
    for this call only; ``goal_kept``: later calls without a goal use this one.
    """
    return {
        "goal": goal.text if goal is not None else None,
        "goal_source": goal.source if goal is not None else None,
        "goal_set_at": iso_utc(goal.set_at)
        if goal is not None and goal.set_at is not None
        else None,
        "goal_kept": goal.kept if goal is not None else False,
        "recorded": recording.recorded,
        "not_recorded_reason": recording.reason,
    }


def _active_ranked(report: DriftReport) -> list[str]:
    """The active factors, highest first (design order on ties)."""
    active = [name for name in FACTOR_NAMES if report.factors.get(name) is not None]
    return sorted(active, key=lambda name: -(report.factors[name] or 0.0))


def _shown_factors(report: DriftReport) -> list[str]:
    """Active factors with ≥ 10 points plus always the two highest, ranked by value."""
    return [
        name
        for index, name in enumerate(_active_ranked(report))
        if index < 2 or (report.factors[name] or 0.0) >= NOTABLE
    ]


def _hidden_factors(report: DriftReport, names: list[str]) -> str:
    """``length collapse 9.3; uncertainty and confidence drift 0``: the factors left out
    of the bars, those above 0 with their value, the rest named together."""
    values = {name: display_round(report.factors[name] or 0.0) for name in names}
    listed = [f"{FACTOR_LABELS[name]} {value:.1f}" for name, value in values.items() if value]
    zero = [FACTOR_LABELS[name] for name, value in values.items() if not value]
    if zero:
        together = zero[0] if len(zero) == 1 else f"{', '.join(zero[:-1])} and {zero[-1]}"
        listed.append(f"{together} 0")
    return "; ".join(listed)


def render_text(report: DriftReport, *, audience: Audience = "cli") -> str:
    """The docs/design.md §5.5 text report: recommendation, factor bars (then the active factors
    left out, all below 10 points, in one line), the score line with its state, and the
    handoff hint for ``audience`` when the recommendation asks for a fresh start
    (:func:`offers_handoff`). A session of fewer than ``MIN_MESSAGES`` messages, not
    scored, gets one line saying so instead."""
    if report.recommendation == NOT_ENOUGH_MESSAGES:
        # One line: a second "Score: 0/100 (fresh)" would read as a verdict on no evidence.
        return (
            f"{report.recommendation[:-1]}: {plural(report.messages, 'message')} so far, "
            f"scoring starts at {MIN_MESSAGES} (0/100, fresh, until then)."
        )
    lines = [report.recommendation, ""]
    width = max(len(label) for label in FACTOR_LABELS.values())
    shown = _shown_factors(report)
    for name in shown:
        value = report.factors[name] or 0.0
        line = f"  {FACTOR_LABELS[name]:<{width}}  {bar(value)}  {display_round(value):5.1f}"
        if report.weights.get(name, 0.0) <= 0:
            line += "  (weight 0: not counted)"
        lines.append(line)
    hidden = [name for name in _active_ranked(report) if name not in shown]
    if hidden:
        lines.append(f"  (others below 10: {_hidden_factors(report, hidden)})")
    lines += [
        "",
        f"Score: {report.score}/100 ({report.state}) · {plural(report.messages, 'message')}",
    ]
    if offers_handoff(report):
        lines.append(handoff_line(audience))
    return "\n".join(lines)


def render_compaction_lines(report: DriftReport) -> list[str]:
    """What the latest compaction dropped, and what the earlier listed ones dropped
    (rules, files, errors), for the text report
    (:meth:`driftguard.render.ledger.LedgerView.lines`; gated and printable); none for a
    session never compacted."""
    return ledger_view(report.session).lines()


SET_GOAL_HINT = '`driftguard goal --set "…"` adds it'
"""How to give a goal where the command has no ``--goal`` (``watch``)."""


def render_goal_line(
    goal: GoalUse | None, audience: Audience, *, keepable: bool = True, how: str | None = None
) -> str:
    """One line naming the goal the score used and where it came from, or
    saying there was none and how to give one, for ``audience``. ``keepable``: the file
    can have a remembered goal (it is in a session folder); ``how``: how to give one, when
    not the command's ``--goal`` (e.g. :data:`SET_GOAL_HINT`)."""
    if goal is None:
        how = how or (
            '--goal "…" adds it (--keep-goal keeps it)'
            if audience == "cli"
            else 'pass goal="<the user\'s request>" once to add it'
        )
        return f"Goal: none, so goal distance is left out; {how}."
    shown = printable(textwrap.shorten(goal.text, GOAL_CHARS_SHOWN, placeholder="…"))
    when = when_utc(goal.set_at) if goal.set_at is not None else None
    if goal.source == "remembered":
        where = f"remembered from an earlier call ({when})" if when else "remembered"
        if audience == "cli":
            where += "; `driftguard goal --clear` forgets it"
    elif goal.kept:
        where = "given now, and kept for later calls"
    elif not keepable:
        where = "given now, for this score only: the file is not in a session folder"
    else:
        where = "given now, for this score only; --keep-goal keeps it"
    return f"Goal: “{shown}” ({where})."


_WINDOW_FROM: Final[Mapping[WindowSource, str]] = {
    "flag": "from --context-window",
    "config": "from contextWindow in the config",
    "host": "the host reported",
    "file": "for the model in the file",
    "assumed": "assumed for the model in the file",
}


def room_text(report: DriftReport) -> str:
    """``127,000 tokens before the host compacts (~18 turns)``, or ``the host compacts next``
    with no room left."""
    left = report.tokens_until_compaction
    if left <= 0:
        return "the host compacts next"
    phrase = turns_phrase(report.budget.turns_left if report.budget is not None else None)
    return f"{left:,} tokens before the host compacts" + (f" ({phrase})" if phrase else "")


def render_session_line(report: DriftReport, recording: Recording | None = None) -> str:
    """One line naming the scored file: CLI, path, context tokens, an assumed window and
    why it was assumed, the room before the host compacts, compactions, skips, how the
    file was chosen when not given as a path, and — with ``recording`` — that the score
    was not recorded, and why."""
    session = report.session
    tokens = f"{session.context_tokens:,} of {report.context_window:,} tokens"
    if session.tokens_estimated:
        tokens += " (estimated)"
    parts = [session.cli, session.path, tokens]
    if session.context_tokens > report.context_window and not session.tokens_estimated:
        parts[-1] += f" — more than the window ({_WINDOW_FROM[report.window_source]}): check it"
    if report.window_source == "assumed":
        # the window a model may run with either way is a guess: say so, and on what grounds
        assumed = f"{report.context_window:,}-token window assumed"
        parts.append(f"{assumed} ({report.window_rule})" if report.window_rule else assumed)
    if report.usable is not None:
        parts.append(room_text(report))
    if session.compactions:
        parts.append(plural(session.compactions, "compaction"))
    if session.skipped_lines:
        parts.append(plural(session.skipped_lines, "line") + " skipped")
    if session.messages_let_go:
        parts.append(
            f"{plural(session.messages_let_go, 'earlier message')} let go: more text than "
            "any model's window holds"
        )
    if report.resolved_by != "path":
        parts.append(f"resolved by {report.resolved_by.replace('_', ' ')}")
    if report.found_in is not None:
        parts[-1] += f" of {report.found_in} (a folder above the working directory)"
    if report.scoring == "calibrated":
        parts.append(calibration_text(report.calibration))
    if recording is not None and not recording.recorded and recording.reason:
        parts.append(f"not recorded: {recording.reason}")
    return "Session: " + " · ".join(parts)
