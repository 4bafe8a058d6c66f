"""The plain-English parts of a report: factor labels and the recommendation (§5.5).

The recommendation leads with the action and names the one or two factors behind it,
each of at least :data:`NOTABLE` points. The action fits the trouble (:func:`advise`):

- a full context (near or past where the host compacts) or a polluted session: start
  fresh, and a handoff carries the work over — a loop going on is to be stopped first, so
  that the next session does not repeat it;
- otherwise an action loop going on (a call repeated, a failing one retried): step back —
  stop repeating, say what each attempt showed, change approach or ask the user. A fresh
  session would hit the same wall (the same missing file, the same failing test), so no
  handoff is offered for a loop alone;
- otherwise the band: drifting (or a fired handoff trigger) → start fresh soon; warming →
  carry on, but plan a fresh start; fresh → carry on.

The seed scoring keeps its first wording (the band alone). The wording is ours to
improve; the field names, the bands and ``handoff_suggested`` are the contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from driftguard.compaction.window import UsableWindow
from driftguard.labels import HOST_IN_TEXT
from driftguard.model import FACTOR_NAMES, Session
from driftguard.scoring.calibrated import (
    DRIFTING,
    Calibration,
    Measures,
    fill_points,
    linear_points,
    rot_points,
)
from driftguard.scoring.loops import ActionLoop, describe_loop

__all__ = [
    "NOTABLE",
    "Advice",
    "Remedy",
    "Trouble",
    "advise",
    "calibrated_reasons",
    "calibrated_trouble",
    "recommend",
    "seed_reasons",
    "top_factors",
]

NOTABLE = 10.0
"""Factor points from which a factor is worth naming or drawing (docs/design.md §5.5)."""


def top_factors(
    values: Mapping[str, float | None], weights: Mapping[str, float], limit: int = 2
) -> list[str]:
    """The factors behind the score: the ``limit`` active factors of positive weight with at
    least 10 points that contribute most (weight × points), largest first; ties keep the
    design's order. A factor of weight 0 never moves the score, so it is never named."""
    ranked = sorted(
        (
            name
            for name in FACTOR_NAMES
            if (values.get(name) or 0.0) >= NOTABLE and weights.get(name, 0.0) > 0
        ),
        key=lambda name: -(values.get(name) or 0.0) * weights.get(name, 0.0),
    )
    return ranked[:limit]


def seed_reasons(context_tokens: int, context_window: int) -> dict[str, str]:
    """What each factor's name stands for in a recommendation, for the seed scoring."""
    percent = min(100, round(100 * context_tokens / context_window)) if context_window else 0
    return {
        "context_saturation": f"the context window is {percent}% full",
        "repetition": "replies repeat earlier ones",
        "length_collapse": "replies keep getting shorter",
        "goal_distance": "the work has wandered from the goal",
        "uncertainty": "the model keeps correcting itself",
        "confidence_drift": "the model hedges more than it did early on",
    }


def host_name(cli: str) -> str:
    """How the text names the host that wrote a session (``"the host"`` for another)."""
    return HOST_IN_TEXT.get(cli, "the host")


def _thousands(tokens: float) -> str:
    """``310k`` for 310,000 tokens; ``8.5k`` below 10,000; the number itself below 1,000."""
    if tokens >= 10_000:
        return f"{round(tokens / 1000):,}k"
    if tokens >= 1_000:
        return f"{tokens / 1000:.1f}k".replace(".0k", "k")
    return f"{round(tokens)}"


def calibrated_reasons(
    measures: Measures, session: Session, usable: UsableWindow, calibration: Calibration
) -> dict[str, str]:
    """The evidence behind each factor, in words a user can act on and check, for the
    calibrated scoring: "the context holds 161k tokens, 5.7k before Claude Code compacts
    it", "the conversation has added 46k tokens of context, past the 35k that 95% of
    successful agent runs stayed under", "`npm test` failed 3 times in a row"."""
    added = measures.conversation_tokens
    g61 = calibration.g61
    left = max(0, usable.tokens - session.context_tokens)
    fill = fill_points(session.context_tokens, usable.tokens)
    rot = rot_points(added, g61)
    host = host_name(session.cli)
    if fill >= DRIFTING or (fill >= rot and fill > 0):
        context = (
            f"the context holds {_thousands(session.context_tokens)} tokens, "
            f"{_thousands(left)} before {host} compacts it"
        )
    else:
        where = "well past" if added >= 2 * g61 else ("past" if added >= g61 else "nearing")
        context = (
            f"the conversation has added {_thousands(added)} tokens of context, {where} the "
            f"{_thousands(g61)} that 95% of successful agent runs stayed under"
        )
    loop = measures.loop
    text_points = linear_points(measures.overlap, calibration.overlap61)
    shared = f"the last replies share {measures.overlap:.0%} of their phrases"
    # Repetition is the larger of the replies' shared phrases and the loop; either half is
    # named only at NOTABLE points of its own, as a whole factor is.
    if loop is None or loop.points < NOTABLE:
        repetition = shared
    elif loop.points >= text_points:
        repetition = describe_loop(loop) + (f"; {shared}" if text_points >= NOTABLE else "")
    else:
        repetition = f"{shared}; {describe_loop(loop)}"
    shrink = -measures.slope
    corrections = measures.corrections
    return {
        "context_saturation": context,
        "repetition": repetition,
        "length_collapse": f"replies are getting shorter, by about {shrink:,.0f} characters each",
        "goal_distance": "the latest replies have moved away from the goal",
        "uncertainty": (
            f"the model corrected itself {corrections} time{'s' * (corrections != 1)} "
            "in its last 20 replies"
        ),
        "confidence_drift": (
            f"the model hedges more than early on (+{measures.hedge_rise:.1f} per 100 words)"
        ),
    }


Remedy = Literal["carry_on", "plan_fresh_start", "step_back", "fresh_start"]
"""What a recommendation asks for: carry on; carry on but plan a fresh start; step back
from a loop (no fresh session: it would repeat the loop); start fresh (with a handoff)."""


@dataclass(frozen=True, slots=True)
class Trouble:
    """What the calibrated measures say is wrong, beyond the band, for choosing the
    remedy (:func:`calibrated_trouble`).

    Attributes:
        loop: the action loop going on at the latest step, when it scores at least
            :data:`NOTABLE` points and repetition counts (weight > 0); else ``None``.
        full: the context is near or past where the host compacts: its fill of the
            usable window scores at least :data:`~driftguard.scoring.calibrated.DRIFTING`
            points (the context holds ≥ 83.75 % of the usable window), and context
            saturation counts.
    """

    loop: ActionLoop | None = None
    full: bool = False


@dataclass(frozen=True, slots=True)
class Advice:
    """A recommendation and the remedy it asks for.

    Attributes:
        text: one to three sentences, the action first.
        remedy: what it asks for; only ``"fresh_start"`` is followed by a handoff hint.
    """

    text: str
    remedy: Remedy


def calibrated_trouble(
    measures: Measures, session: Session, usable: UsableWindow, weights: Mapping[str, float]
) -> Trouble:
    """The loop and the full context of a calibrated score (:class:`Trouble`);
    ``weights`` are the normalised weights applied."""
    loop = measures.loop
    counted = loop is not None and loop.points >= NOTABLE and weights.get("repetition", 0.0) > 0
    full = (
        weights.get("context_saturation", 0.0) > 0
        and fill_points(session.context_tokens, usable.tokens) >= DRIFTING
    )
    return Trouble(loop=loop if counted else None, full=full)


_HANDOFF = " A handoff carries the work over to a clean context."
_STOP = "Stop repeating: say what each attempt showed, then change approach or ask the user"


def recommend(
    state: str,
    handoff: bool,
    values: Mapping[str, float | None],
    weights: Mapping[str, float],
    reasons: Mapping[str, str],
    trouble: Trouble | None = None,
) -> str:
    """:func:`advise`'s text."""
    return advise(state, handoff, values, weights, reasons, trouble).text


def advise(
    state: str,
    handoff: bool,
    values: Mapping[str, float | None],
    weights: Mapping[str, float],
    reasons: Mapping[str, str],
    trouble: Trouble | None = None,
) -> Advice:
    """The recommendation: the action first, then the one or two factors behind it (see
    :func:`top_factors`; ``weights`` are the normalised weights applied), each named by its
    entry in ``reasons``; the action fits the trouble (module docstring).

    ``trouble`` (the calibrated scoring's; ``None`` for the seed's) decides between a
    fresh start and a step back: ``state`` ``polluted`` or a full context → start fresh
    (now when polluted, else soon), with a loop going on to be stopped first; a loop going
    on → step back (``drifting`` or a fired handoff trigger), or carry on but watch for a
    loop (``warming``). Without either, and always without ``trouble``: ``polluted``
    → start fresh now; ``drifting`` or a fired handoff trigger → start fresh soon;
    ``warming`` → carry on, but plan a fresh start; ``fresh`` → carry on.
    """
    named = top_factors(values, weights)
    because = "; ".join(reasons[name] for name in named)
    loop = trouble.loop if trouble is not None else None
    if trouble is not None and (state == "polluted" or trouble.full):
        action = "Start fresh now" if state == "polluted" else "Start fresh soon"
        text = f"{action}: {because}." if because else f"{action}."
        if loop is not None:
            # said before the handoff, so that the next session does not retry it; the
            # loop's own words appear once (the reasons name it when repetition leads)
            which = "" if "repetition" in named else f" ({describe_loop(loop)})"
            text += (
                f" Stop the loop first{which}: note what each attempt showed, so that the "
                "fresh session does not repeat it."
            )
        return Advice(text + _HANDOFF, "fresh_start")
    if loop is not None and (state != "fresh" or handoff):
        # the loop leads: it is the trouble a fresh session would meet again (repetition
        # holds the loop's points, so it is notable whenever the loop is)
        lead = ["repetition"] if (values.get("repetition") or 0.0) >= NOTABLE else []
        others = [name for name in named if name != "repetition"]
        because = "; ".join(reasons[name] for name in [*lead, *others][:2])
        if state == "drifting" or handoff:
            return Advice(
                f"Step back: {because}. {_STOP} — a fresh session would hit the same wall.",
                "step_back",
            )
        return Advice(
            f"Carry on, but watch for a loop: {because}. Before another attempt, say what "
            "each one showed, and change approach or ask the user if nothing new turned up.",
            "step_back",
        )
    if state == "polluted":
        action = "Start fresh now"
    elif state == "drifting" or handoff:
        action = "Start fresh soon"
    elif state == "warming":
        action = "Carry on, but plan a fresh start"
    else:
        return Advice(
            f"Carry on: the session is healthy, though {because}."
            if because
            else "Carry on: the session is healthy.",
            "carry_on",
        )
    if action == "Carry on, but plan a fresh start":
        return Advice(f"{action}: {because}." if because else f"{action}.", "plan_fresh_start")
    if not because:
        return Advice(f"{action}.", "fresh_start")
    return Advice(f"{action}: {because}.{_HANDOFF}", "fresh_start")
