"""What the MCP tools return: the typed results (their JSON Schema is the tools' output
schema) and how a result is built from a report, a trend or a handoff.

pydantic models at the MCP edge only; the engine's reports are frozen dataclasses.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from driftguard.model import (
    CliName,
    CompactionTrigger,
    GoalSource,
    LoopKind,
    ProjectSource,
    ResolvedBy,
    Scoring,
    State,
    Trajectory,
    WindowSource,
)

if TYPE_CHECKING:
    from driftguard.engine.handoff import Handoff
    from driftguard.scoring import DriftReport
    from driftguard.scoring.trend import Trend
    from driftguard.store.handoff_files import SavedHandoff

__all__ = [
    "NOTES_DESCRIPTION",
    "ActionLoopInfo",
    "CalibrationInfo",
    "CompactionEntry",
    "CompactionsInfo",
    "DriftResult",
    "DroppedInfo",
    "Factors",
    "HandoffResult",
    "SessionInfo",
    "SetAsideKind",
    "TrendResult",
    "handoff_result",
    "session_info",
    "tool_result",
    "trend_result",
    "with_notes",
]


NOTES_DESCRIPTION = (
    "What did not go as asked, in one line each: a handoff that was not saved (and why), "
    "history or stored state that could not be read or written."
)


class CalibrationInfo(BaseModel):
    """Which calibration the score used."""

    kind: Literal["none", "personal"] = Field(
        description="personal: the user's own sessions set the factor scales and state lines; "
        "none: the default scales."
    )
    sessions: int | None = Field(
        description="How many of the user's sessions of this host and model family there are."
    )
    needed: int | None = Field(description="How many it takes before the calibration applies.")
    host: str | None = Field(description="The host the calibration is for.")
    model: str | None = Field(description="The model family the calibration is for.")
    file: str | None = Field(description="The calibration file read, if any.")
    reason: str | None = Field(description="Why the score is not calibrated; null when it is.")


class SessionInfo(BaseModel):
    """Which session file was read, and how it was chosen."""

    cli: CliName
    path: str = Field(description="The session file that was read.")
    session_id: str | None
    context_tokens: int = Field(description="Tokens in the context window at the latest request.")
    context_window: int = Field(description="The model's context window, in tokens.")
    tokens_estimated: bool = Field(
        description="True when context_tokens is estimated from characters (about 4 per token)."
    )
    compactions: int = Field(description="Compactions in the session file.")
    skipped_lines: int = Field(description="Malformed or unknown lines skipped while reading.")
    resolved_by: ResolvedBy
    found_in: str | None = Field(
        description="The command line's: the folder above its working directory whose "
        "session this is (the server never looks above its project: always null here)."
    )
    context_window_source: WindowSource = Field(
        description="Where context_window came from: the session file and model name "
        "(file), an assumption for a model that may run with either of two windows when "
        "nothing tells which (assumed: the host's own choice for the environment seen), the "
        "host's status line, a config file's contextWindow, or --context-window."
    )
    context_window_rule: str | None = Field(
        description="How the host chose context_window when nobody named it, in words "
        "(always given for an assumed window); null for a window named by the host, a "
        "config or a flag."
    )
    usable_window: int = Field(description="Tokens at which the host compacts the context.")
    tokens_until_compaction: int = Field(
        description="Tokens left before the host compacts the context."
    )
    turns_until_compaction: int | None = Field(
        description="Turns left before the host compacts, at the recent turns' growth; "
        "null before a turn has grown the context."
    )
    context_growth_per_turn: int | None = Field(
        description="Median tokens the recent turns added to the context."
    )
    usable_window_rule: str | None = Field(description="How usable_window was derived.")
    usable_window_overrides: list[str] = Field(
        description="Environment variables or settings that moved the compaction point."
    )
    calibration: CalibrationInfo = Field(
        description="Which calibration the score used: none, or personal."
    )
    project: str = Field(description="The project whose sessions were looked for.")
    project_source: ProjectSource = Field(
        description="Where the project came from: DRIFTGUARD_PROJECT_DIR or "
        "CLAUDE_PROJECT_DIR (set by the host), the client's MCP roots, or the server's "
        "working directory (cwd).",
    )


class Factors(BaseModel):
    """Each factor in 0-100 points, rounded half up to one decimal."""

    context_saturation: float = Field(
        description="How close the context is to compaction, or how much it has grown past "
        "where models lose accuracy, 0-100."
    )
    repetition: float = Field(
        description="Word-trigram overlap of the last 10 replies, or a loop of tool calls, 0-100."
    )
    length_collapse: float = Field(description="How fast replies are getting shorter, 0-100.")
    goal_distance: float | None = Field(
        description="How far the last 5 replies are from the goal, 0-100; null without a goal."
    )
    uncertainty: float = Field(description="Self-corrections in the last 20 replies, 0-100.")
    confidence_drift: float = Field(description="Rise in hedging over the session, 0-100.")


class ActionLoopInfo(BaseModel):
    """The strongest loop of tool calls going on at the latest call."""

    kind: LoopKind
    count: int = Field(description="Steps in the loop.")
    points: float = Field(description="Repetition points the loop alone gives, 0-100.")
    description: str = Field(description="The loop in words, e.g. `npm test` failed 3 times.")


class DroppedInfo(BaseModel):
    """What a compaction dropped: named neither in its summary, nor in what the host kept
    verbatim, nor in a later prompt (secrets redacted)."""

    files: list[str] = Field(
        description="Files edited before it, relative to the session's working directory."
    )
    constraints: list[str] = Field(
        description="The user's explicit rules (always…, never…, don't…, must…), as typed."
    )
    errors: list[str] = Field(description="Error lines of failed tool calls not fixed before it.")
    withheld: int = Field(description="Excerpts the secret gate withheld whole.")


class CompactionEntry(BaseModel):
    """One compaction of the session and what it dropped."""

    number: int = Field(description="Its place among the session's compactions, from 1.")
    at: str | None = Field(description="When it happened (ISO 8601 UTC).")
    trigger: CompactionTrigger | None = Field(
        description="auto: the host compacted on its own; manual: /compact; null: not said."
    )
    tokens_before: int | None = Field(description="Tokens in context when it compacted.")
    dropped: DroppedInfo
    dropped_unknown: str | None = Field(
        description="Why what it dropped cannot be told (the file no longer holds it)."
    )


class CompactionsInfo(BaseModel):
    """The compaction ledger: how many compactions, the last one, and what it dropped."""

    count: int = Field(description="Compactions in the session file.")
    last_at: str | None = Field(description="When the last one happened (ISO 8601 UTC).")
    dropped: DroppedInfo = Field(description="What the last compaction dropped.")
    dropped_unknown: str | None = Field(
        description="Why what the last compaction dropped cannot be told, else null."
    )
    ledger: list[CompactionEntry] = Field(
        description="The latest compactions (at most 5), oldest first."
    )


class DriftResult(BaseModel):
    """The drift report of docs/design.md §5.5 — the same object as ``driftguard score --json``,
    recommendation first — plus ``text`` and ``notes``."""

    recommendation: str = Field(
        description="What to do now (carry on, start fresh soon, start fresh now) and why."
    )
    score: int = Field(ge=0, le=100, description="Drift score, 0-100 points.")
    state: State
    factors: Factors
    weights: dict[str, float] = Field(
        description="Weights applied, normalised over active factors (4 decimals)."
    )
    messages: int = Field(description="User + assistant messages the model still remembers.")
    handoff_suggested: bool
    session: SessionInfo
    scoring: Scoring = Field(description="The scoring that made the score.")
    preset: str | None = Field(description="The preset whose weights were used.")
    loop: ActionLoopInfo | None = Field(description="The strongest tool-call loop, if any.")
    compactions: CompactionsInfo = Field(
        description="The compaction ledger: what the session's compactions dropped."
    )
    goal: str | None = Field(description="The goal used for goal distance (given or remembered).")
    goal_source: GoalSource | None = Field(
        description="Where the goal came from: given in this call, or remembered from an "
        "earlier one; null without a goal."
    )
    goal_set_at: str | None = Field(
        description="When the remembered goal was given (ISO 8601 UTC); null without one."
    )
    goal_kept: bool = Field(description="Later calls without a goal use this goal.")
    recorded: bool = Field(description="The score was recorded for get_trend.")
    not_recorded_reason: str | None = Field(description="Why the score was not recorded.")
    text: str = Field(
        description="The report as readable text: recommendation, factor bars, score, goal, file."
    )
    notes: list[str] = Field(default_factory=list, description=NOTES_DESCRIPTION)


class SetAsideKind(BaseModel):
    """Snapshots left out of a trend, by what they were made with."""

    made_with: str = Field(
        description="e.g. 'the seed scoring of driftguard 0.1', 'preset research', 'no goal'."
    )
    snapshots: int


class TrendResult(BaseModel):
    """How the session's drift score moved over the snapshots get_drift recorded — the
    same object as ``driftguard trend --json``, plus ``text`` and ``notes``."""

    snapshots: int = Field(description="How many snapshots the trend is drawn from.")
    scores: list[int] = Field(description="The score of each snapshot, oldest first, 0-100.")
    sparkline: str | None = Field(description="One ▁▂▃▄▅▆▇█ cell per score, from 3 snapshots.")
    peak: int | None = Field(description="The highest score, 0-100.")
    average: float | None = Field(description="The mean score, 0-100.")
    latest_score: int | None
    latest_state: State | None
    trajectory: Trajectory | None = Field(
        description="Over the last 5 snapshots: a rise of ≥ 10 points climbs, a fall of ≥ 10 "
        "falls; null below 2 snapshots."
    )
    trajectory_delta: int = Field(description="Last minus first score of those snapshots.")
    handoff_suggested: bool = Field(description="The latest score reached the warn threshold.")
    warn_threshold: int = Field(description="The score from which a handoff is suggested.")
    set_aside: int = Field(
        description="Recorded snapshots made with another scoring, preset or goal, left out."
    )
    set_aside_kinds: list[SetAsideKind] = Field(
        description="What the snapshots left out were made with, most first."
    )
    not_recorded_reason: str | None = Field(
        description="Why this session file has no history at all, else null."
    )
    session: SessionInfo
    text: str = Field(description="The trend as readable text.")
    notes: list[str] = Field(default_factory=list, description=NOTES_DESCRIPTION)


class HandoffResult(BaseModel):
    """The handoff prompt and the facts it was pre-filled with (secrets redacted)."""

    prompt: str = Field(description="Instructions for writing handoff.md for the next session.")
    goal: str | None = Field(description="The first request of the remembered conversation.")
    files_modified: list[str]
    commands: list[str]
    last_errors: list[str]
    compaction_dropped: list[str] = Field(
        default_factory=list,
        description="What the last compaction dropped, one phrase each (the constraint “…”, "
        "the edited file …, the error “…”); empty without a compaction.",
    )
    withheld_excerpts: int = Field(description="Excerpts dropped as credential-file contents.")
    score: int = Field(ge=0, le=100)
    state: State
    session: SessionInfo
    saved_to: str | None = Field(
        default=None,
        description="save_handoff: the handoff.md saved for the next session, to be "
        "completed in place; else null.",
    )
    checkpoint: str | None = Field(
        default=None, description="save_handoff: the JSON checkpoint saved with it."
    )
    kept: str | None = Field(
        default=None,
        description="save_handoff: where the handoff.md that someone had edited or completed "
        "was kept before the new draft replaced it; else null.",
    )
    notes: list[str] = Field(default_factory=list, description=NOTES_DESCRIPTION)


def session_info(report: DriftReport, served: tuple[Path, ProjectSource]) -> SessionInfo:
    from driftguard.render.text import to_json_dict

    project, source = served
    return SessionInfo.model_validate(
        {**to_json_dict(report)["session"], "project": str(project), "project_source": source}
    )


def with_notes(text: str, notes: list[str]) -> str:
    """``text`` followed by one ``Note: …`` line per note."""
    return "\n".join([text, *(f"Note: {note}." for note in notes)]) if notes else text


def tool_result(text: str, model: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )


def trend_result(
    trend: Trend, report: DriftReport, served: tuple[Path, ProjectSource], notes: list[str]
) -> TrendResult:
    from driftguard.render.text import render_session_line
    from driftguard.render.trend import render_trend_text, trend_json

    text = f"{render_trend_text(trend, 'mcp')}\n{render_session_line(report)}"
    return TrendResult.model_validate(
        {
            **trend_json(trend),
            "session": session_info(report, served),
            "text": with_notes(text, notes),
            "notes": notes,
        }
    )


def handoff_result(
    handoff: Handoff,
    report: DriftReport,
    saved: SavedHandoff | None,
    served: tuple[Path, ProjectSource],
    notes: list[str],
) -> HandoffResult:
    return HandoffResult(
        prompt=handoff.prompt,
        goal=handoff.goal,
        files_modified=list(handoff.files_modified),
        commands=list(handoff.commands),
        last_errors=list(handoff.last_errors),
        compaction_dropped=list(handoff.compaction_dropped),
        withheld_excerpts=handoff.withheld_excerpts,
        score=report.score,
        state=report.state,
        session=session_info(report, served),
        saved_to=str(saved.handoff) if saved is not None else None,
        checkpoint=str(saved.checkpoint) if saved is not None else None,
        kept=str(saved.kept) if saved is not None and saved.kept is not None else None,
        notes=notes,
    )
