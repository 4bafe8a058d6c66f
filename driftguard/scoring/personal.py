"""Calibration on the user's own sessions (``benchmarks/VALIDITY.md`` rule
v3 §7.3): what is normal *for this user, host and model*, without labels.

A :class:`Reference` holds, for one host and model family, a few numbers of each of the user's
sessions at every *depth* it passed through — depth is the tokens the conversation added
since its first request (:func:`~driftguard.scoring.calibrated.conversation_tokens`), in bins
that double: bin 0 below :data:`BIN_TOKENS`, bin k from ``BIN_TOKENS·2^(k−1)`` to
``BIN_TOKENS·2^k`` (:func:`depth_bin`). A session being scored at depth g is compared with
the samples of its own bin, merged with the nearest bins until there are at least ``n_min``
(:func:`reference_samples`):

- each linear factor scale (``overlap61``, ``slope61``, ``corrections61``, ``hedge61``)
  becomes the :data:`LINE_PERCENTILE`-th percentile of its measure over those samples, so a
  factor reaches 61 points (Drifting) where the session is further out than 9 in 10 of the
  user's sessions at that depth; a percentile of 0 keeps the default scale; context rot's
  ``g61`` becomes that percentile of the sessions' final depths (at least ``2·G0``);
- the state lines: the composite ``c`` of every sample on those scales gives Drifting at
  ``d = max(P90(c), 30)``, Polluted at ``p = min(max(P99(c), d + 1), 99.5)`` and Warming at
  ``d·30/61``; the score is ``c`` mapped piecewise linearly through (0, 0), (d·30/61, 30),
  (d, 61), (p, 81), (100, 100) (:func:`remap`).

The fill of the usable window and the action-loop rules come from the hosts' code and their
sources and are not rescaled. Pure: no I/O; :mod:`driftguard.store.calibration_file` reads
and writes references, :mod:`driftguard.engine.calibration` builds them.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from driftguard.model import Session
from driftguard.scoring import calibrated
from driftguard.scoring.calibrated import DRIFTING, G0, Calibration, Measures, linear_points
from driftguard.scoring.features import Features
from driftguard.scoring.means import combine

__all__ = [
    "BIN_TOKENS",
    "LINE_PERCENTILE",
    "MIN_SESSIONS",
    "POLLUTED_PERCENTILE",
    "Personal",
    "Reference",
    "Sample",
    "depth_bin",
    "family_of",
    "percentile",
    "personal_for",
    "reference_samples",
    "remap",
    "sample_from",
    "sample_points",
    "samples_of",
]

BIN_TOKENS = 1_000
"""Upper edge of depth bin 0, in conversation tokens; each further bin doubles (rule v3
§7.3: so a bin spans the same ratio of depth everywhere, as context rot is linear in log₂
tokens)."""
LINE_PERCENTILE = 90.0
"""The percentile of the user's sessions at which a factor, and the score, reach Drifting
("further out than about 9 in 10 of your sessions at this point")."""
POLLUTED_PERCENTILE = 99.0
"""The percentile at which the score reaches Polluted (rule v3 §7.3: 1 in 100)."""
WARMING = 30.0
"""The Warming line of the bands (docs/design.md §5.4): the personal Drifting line never lies below
it (rule v3 §7.3), so a score the default calls fresh never turns Drifting because all of a
user's sessions are calm."""
POLLUTED = 81.0
"""The Polluted line of the bands (docs/design.md §5.4), where :data:`POLLUTED_PERCENTILE` lands."""
MIN_SESSIONS = 30
"""Sessions of one host and model family a reference needs before it applies by itself.
Rule v3 §7.3 (``benchmarks/VALIDITY.md``) takes the smallest of 10, 20, 30 at which the
calibrated false alarms (mean of 20 draws of N other runs) stay ≤ 10 % on every deployment
of the labelled runs, and 30 when none does. None does: ``python benchmarks/validity.py``
printed worst 34.9 % at N = 10 (D2 GPT-4o), 25.4 % at 20 (D1 astropy) and 24.1 % at 30
(D2 GPT-4o); so N = 30, and that must is missed (docs/evidence.md)."""

_DATE_SUFFIX = re.compile(r"(?:[-@]\d{8}|[-@]\d{4}-\d{2}-\d{2}|-latest|-preview(?:-\d{2}-\d{2})?)$")
_CONTEXT_SUFFIX = re.compile(r"\[[^\]]*\]$")


def family_of(model: str | None) -> str:
    """The model family a reference is kept for: the model id in lower case without a
    trailing date, ``-latest``/``-preview`` or a ``[1m]``-style window tag
    (``claude-sonnet-4-5-20250929`` → ``claude-sonnet-4-5``); ``"unknown"`` without one."""
    if not model or not model.strip():
        return "unknown"
    name = _CONTEXT_SUFFIX.sub("", model.strip().lower())
    while (stripped := _DATE_SUFFIX.sub("", name)) != name:
        name = stripped
    return name or "unknown"


def depth_bin(tokens: float) -> int:
    """The depth bin of ``tokens`` conversation tokens: 0 below :data:`BIN_TOKENS`, then
    ``floor(log₂(tokens / BIN_TOKENS)) + 1``."""
    if tokens < BIN_TOKENS:
        return 0
    return math.floor(math.log2(tokens / BIN_TOKENS)) + 1


@dataclass(frozen=True, slots=True)
class Sample:
    """One session's raw numbers at one depth (its last model response in that bin).

    Attributes:
        depth: conversation tokens added by then.
        fill: the usable-window fill points then (:func:`calibrated.fill_points`).
        loop: the action-loop points then (0 without a loop).
        overlap: word-trigram overlap of the last 10 replies, 0–1.
        slope: reply-length slope, characters per reply (negative: shrinking).
        corrections: self-corrections in the last 20 replies.
        hedge_rise: rise of the hedge rate, hedges per 100 words.
    """

    depth: int
    fill: float
    loop: float
    overlap: float
    slope: float
    corrections: int
    hedge_rise: float

    def to_list(self) -> list[float]:
        """The JSON form: ``[depth, fill, loop, overlap, slope, corrections, hedge_rise]``."""
        return [
            self.depth,
            round(self.fill, 6),
            round(self.loop, 6),
            round(self.overlap, 6),
            round(self.slope, 6),
            self.corrections,
            round(self.hedge_rise, 6),
        ]

    @classmethod
    def from_list(cls, values: Sequence[Any]) -> Sample:
        """The inverse of :meth:`to_list`.

        Raises:
            ValueError: not seven numbers.
        """
        if len(values) != 7 or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in values
        ):
            raise ValueError("a sample is seven finite numbers")
        depth, fill, loop, overlap, slope, corrections, hedge = values
        return cls(int(depth), fill, loop, overlap, slope, int(corrections), hedge)


@dataclass(frozen=True, slots=True)
class Reference:
    """What is normal for one host and model family (see the module doc).

    Attributes:
        cli: the host.
        family: the model family (:func:`family_of`).
        sessions: how many sessions it was made from.
        final_depths: each session's depth at its end, in tokens.
        samples: every session's :class:`Sample` at every bin it passed through.
    """

    cli: str
    family: str
    sessions: int
    final_depths: tuple[int, ...]
    samples: tuple[Sample, ...]


def samples_of(session: Session, usable_window: int) -> list[Sample]:
    """The :class:`Sample` of ``session`` at every depth bin it passed through: at the last
    model response (an assistant reply, or a response of tool calls only) in each bin.

    The context of a prefix is the latest usage in it, else ``floor(Σ len(content) / 4)``
    of it (docs/design.md §5.3). ``usable_window``: where the session's host compacts, tokens (the
    fill points). Cost: one pass over the messages, then the measures at one prefix a bin.
    """
    messages = session.messages
    first = calibrated.first_request_tokens(session)
    ends: dict[int, tuple[int, int, bool]] = {}
    chars = 0
    latest: int | None = None
    for index, message in enumerate(messages):
        chars += len(message.content)
        if message.token_count is not None and message.token_count > 0:
            latest = message.token_count
        is_response = (message.role == "assistant" and not message.is_summary) or (
            message.role == "tool" and bool(message.tool_calls)
        )
        if not is_response:
            continue
        tokens, estimated = (latest, False) if latest is not None else (chars // 4, True)
        ends[depth_bin(max(0, tokens - first))] = (index + 1, tokens, estimated)
    out = []
    for _, (upto, tokens, estimated) in sorted(ends.items()):
        prefix = dataclasses.replace(
            session, messages=messages[:upto], context_tokens=tokens, tokens_estimated=estimated
        )
        measures = calibrated.measure(
            prefix, None, definitions=(), features=Features.of(prefix.messages)
        )
        out.append(sample_from(measures, tokens, usable_window))
    return out


def sample_from(measures: Measures, context_tokens: int, usable_window: int) -> Sample:
    """A :class:`Sample` from one moment's raw measures and context size."""
    return Sample(
        depth=measures.conversation_tokens,
        fill=calibrated.fill_points(context_tokens, usable_window),
        loop=measures.loop.points if measures.loop is not None else 0.0,
        overlap=measures.overlap,
        slope=measures.slope,
        corrections=measures.corrections,
        hedge_rise=measures.hedge_rise,
    )


def reference_samples(reference: Reference, depth: float, n_min: int) -> list[Sample]:
    """The samples of ``depth``'s bin, merged with the nearest bins (the shallower first on
    equal distance) until there are at least ``n_min`` (all of them when fewer exist)."""
    by_bin: dict[int, list[Sample]] = {}
    for sample in reference.samples:
        by_bin.setdefault(depth_bin(sample.depth), []).append(sample)
    home = depth_bin(depth)
    chosen: list[Sample] = []
    for bin_ in sorted(by_bin, key=lambda b: (abs(b - home), b)):
        if len(chosen) >= n_min:
            break
        chosen.extend(by_bin[bin_])
    return chosen


@dataclass(frozen=True, slots=True)
class Personal:
    """A personal calibration as applied to one score.

    Attributes:
        calibration: the default's constants with the personal scales in place.
        lines: the composite at the Warming, Drifting and Polluted lines (:func:`remap`).
        reference: the reference it came from.
        samples: how many samples set it.
    """

    calibration: Calibration
    lines: tuple[float, float, float]
    reference: Reference
    samples: int


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) of ``values`` with linear interpolation between the
    closest ranks (numpy's default method, without importing numpy: this module is on
    every score's path); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(float(v) for v in values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def sample_points(sample: Sample, calibration: Calibration) -> dict[str, float | None]:
    """The factors' points of a sample on ``calibration``'s scales (no goal)."""
    saturation = max(sample.fill, calibrated.rot_points(sample.depth, calibration.g61))
    if calibration.corrections61 is None:
        uncertainty = min(100.0, sample.corrections * 25.0)
    else:
        uncertainty = linear_points(sample.corrections, calibration.corrections61)
    return {
        "context_saturation": saturation,
        "repetition": max(linear_points(sample.overlap, calibration.overlap61), sample.loop),
        "length_collapse": linear_points(-sample.slope, calibration.slope61),
        "goal_distance": None,
        "uncertainty": uncertainty,
        "confidence_drift": linear_points(sample.hedge_rise, calibration.hedge61),
    }


def personal_for(
    reference: Reference,
    depth: float,
    *,
    base: Calibration,
    weights: Mapping[str, float],
    n_min: int = MIN_SESSIONS,
) -> Personal | None:
    """The personal calibration for a session at ``depth`` conversation tokens, or ``None``
    when the reference has fewer than ``n_min`` sessions.

    ``base``: the default constants (kept where a percentile is 0, and for the form and the
    handoff); ``weights``: the preset's, to combine the samples' factors as the score does.
    """
    if reference.sessions < n_min or not reference.samples:
        return None
    samples = reference_samples(reference, depth, n_min)

    def scale(values: list[float], default: float) -> float:
        found = percentile(values, LINE_PERCENTILE)
        return found if found > 0 else default

    corrections = percentile([s.corrections for s in samples], LINE_PERCENTILE)
    g61 = max(2.0 * G0, percentile(reference.final_depths, LINE_PERCENTILE))
    calibration = dataclasses.replace(
        base,
        g61=g61,
        overlap61=scale([s.overlap for s in samples], base.overlap61),
        slope61=scale([-s.slope for s in samples], base.slope61),
        corrections61=corrections if corrections > 0 else base.corrections61,
        hedge61=scale([s.hedge_rise for s in samples], base.hedge61),
    )
    composites = [
        combine(weights, sample_points(s, calibration), calibration.form, calibration.power)
        for s in samples
    ]
    drifting = max(percentile(composites, LINE_PERCENTILE), WARMING)
    polluted = min(max(percentile(composites, POLLUTED_PERCENTILE), drifting + 1.0), 99.5)
    if drifting >= polluted:  # a Drifting line at 99.5 or above leaves no room above it
        drifting = polluted - 0.5
    lines = (drifting * WARMING / DRIFTING, drifting, polluted)
    return Personal(calibration, lines, reference, len(samples))


def remap(composite: float, lines: tuple[float, float, float]) -> float:
    """``composite`` (0–100) mapped piecewise linearly through (0, 0), (w, 30), (d, 61),
    (p, 81), (100, 100), where ``lines`` is ``(w, d, p)`` with ``0 < w < d < p < 100``."""
    warming, drifting, polluted = lines
    xs = (0.0, warming, drifting, polluted, 100.0)
    ys = (0.0, WARMING, DRIFTING, POLLUTED, 100.0)
    value = min(100.0, max(0.0, composite))
    for k in range(1, len(xs)):
        if value <= xs[k]:
            span = xs[k] - xs[k - 1]
            share = (value - xs[k - 1]) / span if span > 0 else 1.0
            return ys[k - 1] + share * (ys[k] - ys[k - 1])
    return 100.0
