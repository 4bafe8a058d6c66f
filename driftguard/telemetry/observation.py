"""What one recorded score tells OpenTelemetry, read from its report: numbers, a state, the
kind of loop going on, and attributes that join the host's own telemetry — never a
transcript's text, a goal, a file path or (unless ``otelIncludeProject``) a project name.

Every text that leaves (the session id, the model, the project folder's name, the
explanation) passes the secret gate (:func:`driftguard.secrets.gate`); one the gate
withholds whole is left out.

**Attributes** (names from the semantic conventions where one exists):

=========================  ==========================================================
``session.id``             the host's own session id (Claude Code and Gemini CLI tag
                           their metrics with it; Codex calls it ``conversation.id``)
``gen_ai.conversation.id`` the same id, under the GenAI conventions' name
``driftguard.host``        ``claude_code``, ``gemini_cli``, ``codex_cli`` or ``cursor``
``driftguard.project``     the project folder's name, only with ``otelIncludeProject``
``driftguard.state``       ``fresh``, ``warming``, ``drifting`` or ``polluted``
``gen_ai.request.model``   the model of the session's latest request
=========================  ==========================================================

Sources:

- https://opentelemetry.io/docs/specs/semconv/registry/attributes/session/ (``session.id``)
- https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/
  (``gen_ai.conversation.id``, ``gen_ai.request.model``)
- https://code.claude.com/docs/en/monitoring-usage (Claude Code's ``session.id``)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from driftguard.model import LoopKind, ParsedMessage

if TYPE_CHECKING:
    from driftguard.scoring.composite import DriftReport
    from driftguard.scoring.loops import ActionLoop

__all__ = ["Observation", "observe", "session_key"]


@dataclass(frozen=True, slots=True)
class Observation:
    """One recorded score, as telemetry sends it.

    Attributes:
        key: the name of the session's counting state (:mod:`driftguard.telemetry.counted`):
            the CLI and a digest of its session id (or of its path, without an id).
        recorded_at: when the score was recorded, seconds since the epoch.
        started_at: the earliest time the remembered messages carry (seconds since the
            epoch), or ``None``; where a session's counters start.
        score: 0–100 points.
        state: the state the score falls in.
        context_tokens: tokens in the context window now.
        tokens_left: tokens left before the host compacts (0 when already there).
        compactions: compactions the session file shows in all.
        handoff_suggested: the report suggests a handoff.
        loop_kind: the kind of the action loop going on, or ``None``.
        loop_id: what tells this loop from another (the prompt it follows and its calls,
            hashed), or ``None``; a loop that grows keeps its id.
        explanation: the recommendation without the loop's command or target, gated; or
            ``None`` when the gate withholds it.
        identity: the attributes that name the session (``session.id``,
            ``gen_ai.conversation.id``, ``driftguard.host``, ``driftguard.project``).
        model: the model of the latest request, gated, or ``None``.
    """

    key: str
    recorded_at: float
    started_at: float | None
    score: int
    state: str
    context_tokens: int
    tokens_left: int
    compactions: int
    handoff_suggested: bool
    loop_kind: LoopKind | None
    loop_id: str | None
    explanation: str | None
    identity: Mapping[str, str]
    model: str | None


def session_key(cli: str, session_id: str | None, path: str) -> str:
    """``<cli>-<32 hex digits>``: the sha256 of the session id, or of the file's path when
    the file names no id. A plain file name whatever the id holds."""
    named = f"id\0{session_id}" if session_id else f"path\0{path}"
    return f"{cli}-{hashlib.sha256(named.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}"


def observe(report: DriftReport, *, include_project: bool, recorded_at: float) -> Observation:
    """What ``report``, recorded at ``recorded_at`` (seconds since the epoch), tells
    telemetry (class docstring). ``include_project``: name the folder of the session's
    working directory (its last part only)."""
    session = report.session
    identity: dict[str, str] = {}
    session_id = _gated(session.session_id)
    if session_id is not None:
        identity["session.id"] = session_id
        identity["gen_ai.conversation.id"] = session_id
    identity["driftguard.host"] = session.cli
    project = _project(session.cwd) if include_project else None
    if project is not None:
        identity["driftguard.project"] = project
    loop = report.measures.loop if report.measures is not None else None
    return Observation(
        key=session_key(session.cli, session.session_id, session.path),
        recorded_at=recorded_at,
        started_at=_earliest(session.messages),
        score=report.score,
        state=report.state,
        context_tokens=session.context_tokens,
        tokens_left=report.tokens_until_compaction,
        compactions=session.compactions,
        handoff_suggested=report.handoff_suggested,
        loop_kind=loop.kind if loop is not None else None,
        loop_id=_loop_id(loop, session.messages) if loop is not None else None,
        explanation=explanation(report),
        identity=identity,
        model=_gated(session.model),
    )


def explanation(report: DriftReport, *, forbidden: tuple[str, ...] = ()) -> str | None:
    """The report's recommendation as ``gen_ai.evaluation.explanation``: its description
    of a loop (which quotes the command line, or names the tool and the file it targets)
    replaced by one that says only the loop's kind and length, then gated. When that
    description cannot be found in it, or any of the session's working directory, the
    loop's commands and targets, or ``forbidden`` still shows in it, only the action that
    leads it (``"Start fresh soon."``) is kept."""
    text = report.recommendation
    loop = report.measures.loop if report.measures is not None else None
    leaks: list[str] = [item for item in forbidden if item]
    if report.session.cwd:
        leaks.append(report.session.cwd)
    if loop is not None:
        from driftguard.scoring.loops import describe_loop

        described = describe_loop(loop)
        text = text.replace(described, _loop_words(loop)) if described in text else ""
        for call in (*loop.calls, *loop.other):
            leaks.extend(part for part in (call.command, call.target_path) if part)
    if not text or any(leak in text for leak in leaks):
        text = _action(report.recommendation)
    return _gated(text)


def _loop_words(loop: ActionLoop) -> str:
    """The loop in words that quote nothing from the transcript."""
    times = f"{'at least ' if loop.capped else ''}{loop.count} times"
    if loop.kind == "failing":
        return f"a tool call failed {times} in a row"
    if loop.kind == "retried":
        return f"a failing tool call was retried {times} in {loop.span} steps"
    if loop.kind == "same_result":
        return f"a tool call ran {times} in a row with the same result"
    if loop.kind == "same_call":
        return f"a tool call ran {times} in a row"
    return f"two tool calls alternated for {times[:-6]} steps"


def _action(recommendation: str) -> str:
    """The action a recommendation leads with (``"Start fresh soon."``)."""
    head = recommendation.split(":", 1)[0].strip().rstrip(".")
    return f"{head}." if head else ""


def _loop_id(loop: ActionLoop, messages: tuple[ParsedMessage, ...]) -> str:
    """The loop's calls (both of an alternation, in either order) and the prompt the loop
    follows — a loop belongs to one request (:mod:`driftguard.scoring.loops`), so the same
    calls looping again after a new prompt are another loop — hashed."""
    calls = sorted({f"{c.name}\0{c.args_digest}" for c in (*loop.calls, *loop.other)})
    prompt = next((m for m in reversed(messages) if m.role == "user" and not m.is_summary), None)
    anchor = f"{prompt.timestamp}\0{prompt.content}" if prompt is not None else ""
    text = "\n".join([anchor, *calls])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _earliest(messages: tuple[ParsedMessage, ...]) -> float | None:
    stamps = [m.timestamp for m in messages if m.timestamp is not None]
    return min(stamps) if stamps else None


def _project(cwd: str | None) -> str | None:
    """The last part of the working directory (a POSIX or a Windows path), gated."""
    if not cwd:
        return None
    name = PurePath(cwd.replace("\\", "/").rstrip("/")).name
    return _gated(name)


def _gated(text: str | None) -> str | None:
    """``text`` after the secret gate, stripped; ``None`` when empty or withheld whole."""
    if text is None or not text.strip():
        return None
    from driftguard.secrets import gate  # loaded only when something is sent

    gated = gate(text).text
    return gated.strip() if gated is not None and gated.strip() else None
