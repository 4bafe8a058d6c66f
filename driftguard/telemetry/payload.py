"""The metric points and the evaluation event of one recorded score, as plain data (the
OpenTelemetry SDK's types are built from them only when something is sent,
:mod:`driftguard.telemetry._otlp`).

**Metrics** (instrumentation scope ``driftguard``):

=====================================  ========  ===============  ==========================
name                                   kind      unit             value
=====================================  ========  ===============  ==========================
``driftguard.session.drift``           gauge     ``{score}``      the score, 0–100
``driftguard.session.context.tokens``  gauge     ``{token}``      tokens in the context now
``driftguard.session.compaction.       gauge     ``{token}``      tokens left before the
tokens_left``                                                     host compacts
``driftguard.session.compactions``     counter   ``{compaction}`` compactions (each once)
``driftguard.loops``                   counter   ``{loop}``       action loops (each once),
                                                                  by ``driftguard.loop.kind``
=====================================  ========  ===============  ==========================

The gauges carry every attribute of :mod:`driftguard.telemetry.observation` (the session's,
``driftguard.state`` and ``gen_ai.request.model``). The counters carry only the session's
(``session.id``, ``gen_ai.conversation.id``, ``driftguard.host``, ``driftguard.project``)
and, on ``driftguard.loops``, ``driftguard.loop.kind`` (``failing``, ``retried``,
``same_result``, ``same_call``, ``alternating``): a counter's attributes must stay the same
for the whole session, or a backend would start a new series (and count again) each time
the state or the model changed. Each session is its own series: cumulative counters send
its running total from its first score (``start_time``) on, delta counters what this score
added since the previous one (nothing when it added nothing).

**Event** ``gen_ai.evaluation.result`` (a log record with that event name, severity INFO,
at the time the score was recorded): ``gen_ai.evaluation.name`` = ``driftguard.drift``,
``gen_ai.evaluation.score.value`` (the score, a double), ``gen_ai.evaluation.score.label``
(the state), ``gen_ai.evaluation.explanation`` (the recommendation, without what a loop
quotes, gated), the session's attributes, ``gen_ai.request.model``, and
``driftguard.handoff_suggested``, ``driftguard.context.tokens``,
``driftguard.engine.window.tokens_left``, ``driftguard.loop.kind`` (while a loop goes on).

Sources:

- https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-events/ and
  https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/gen-ai-events.md
  (``gen_ai.evaluation.result`` and its attributes)
- https://opentelemetry.io/docs/specs/otel/logs/data-model/#field-eventname (an event is
  a log record with an event name)
- https://opentelemetry.io/docs/specs/semconv/general/metrics/ (units in braces are
  annotations of a count: ``{token}``)
- https://opentelemetry.io/docs/specs/otel/metrics/data-model/#sums (cumulative and delta
  sums, ``start_time_unix_nano``)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from driftguard.telemetry.counted import Counts
from driftguard.telemetry.observation import Observation
from driftguard.telemetry.settings import Temporality

__all__ = [
    "EVALUATION_NAME",
    "EVENT_NAME",
    "METRICS",
    "SCOPE",
    "Event",
    "MetricSpec",
    "Point",
    "evaluation_event",
    "metric_points",
]

SCOPE = "driftguard"
"""The instrumentation scope of every metric and event."""
EVENT_NAME = "gen_ai.evaluation.result"
EVALUATION_NAME = "driftguard.drift"
"""``gen_ai.evaluation.name`` of the event: the drift score."""

AttributeValue = str | bool | int | float


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric: its name, unit, kind and description."""

    name: str
    unit: str
    kind: Literal["gauge", "counter"]
    description: str


METRICS: Mapping[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "driftguard.session.drift",
            "{score}",
            "gauge",
            "The session's drift score after its latest turn, 0 (fresh) to 100 (polluted)",
        ),
        MetricSpec(
            "driftguard.session.context.tokens",
            "{token}",
            "gauge",
            "Tokens in the session's context window after its latest turn",
        ),
        MetricSpec(
            "driftguard.session.compaction.tokens_left",
            "{token}",
            "gauge",
            "Tokens left before the host compacts the session's context",
        ),
        MetricSpec(
            "driftguard.session.compactions",
            "{compaction}",
            "counter",
            "Compactions of the session's context, each counted once",
        ),
        MetricSpec(
            "driftguard.loops",
            "{loop}",
            "counter",
            "Action loops (a tool call repeated or retried), each counted once",
        ),
    )
}
"""Every metric driftguard sends, by name."""


@dataclass(frozen=True, slots=True)
class Point:
    """One data point of one metric.

    Attributes:
        metric: the metric (:data:`METRICS`).
        value: its value (points, tokens or a count).
        attributes: its attributes.
        start_ns: nanoseconds since the epoch where a counter's sum starts (0 for a gauge).
        time_ns: nanoseconds since the epoch of the score.
        temporality: how a counter's value is meant (``None`` for a gauge).
    """

    metric: MetricSpec
    value: int
    attributes: Mapping[str, AttributeValue]
    start_ns: int
    time_ns: int
    temporality: Temporality | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One event: a log record named ``name`` at ``time_ns`` (nanoseconds since the epoch)
    with ``attributes`` and no body."""

    name: str
    time_ns: int
    attributes: Mapping[str, AttributeValue]


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


def metric_points(
    observation: Observation, counts: Counts | None, temporality: Temporality
) -> list[Point]:
    """The points of one recorded score: the three gauges, then the counters when
    ``counts`` are known (module docstring)."""
    now = _ns(observation.recorded_at)
    gauge_attributes: dict[str, AttributeValue] = {
        **observation.identity,
        "driftguard.state": observation.state,
    }
    if observation.model is not None:
        gauge_attributes["gen_ai.request.model"] = observation.model
    points = [
        Point(METRICS[name], value, gauge_attributes, 0, now)
        for name, value in (
            ("driftguard.session.drift", observation.score),
            ("driftguard.session.context.tokens", observation.context_tokens),
            ("driftguard.session.compaction.tokens_left", observation.tokens_left),
        )
    ]
    if counts is None:
        return points
    delta = temporality == "delta"
    start = _ns(counts.previous if delta else counts.first)
    counter_attributes = dict(observation.identity)
    compactions = counts.new_compactions if delta else counts.compactions
    if compactions or not delta:
        points.append(
            Point(
                METRICS["driftguard.session.compactions"],
                compactions,
                counter_attributes,
                start,
                now,
                temporality,
            )
        )
    loops = counts.new_loops if delta else counts.loops
    for kind in sorted(loops):
        points.append(
            Point(
                METRICS["driftguard.loops"],
                loops[kind],
                {**counter_attributes, "driftguard.loop.kind": kind},
                start,
                now,
                temporality,
            )
        )
    return points


def evaluation_event(observation: Observation) -> Event:
    """The ``gen_ai.evaluation.result`` event of one recorded score (module docstring)."""
    attributes: dict[str, AttributeValue] = {
        "gen_ai.evaluation.name": EVALUATION_NAME,
        "gen_ai.evaluation.score.value": float(observation.score),
        "gen_ai.evaluation.score.label": observation.state,
        **observation.identity,
        "driftguard.handoff_suggested": observation.handoff_suggested,
        "driftguard.context.tokens": observation.context_tokens,
        "driftguard.engine.window.tokens_left": observation.tokens_left,
    }
    if observation.explanation is not None:
        attributes["gen_ai.evaluation.explanation"] = observation.explanation
    if observation.model is not None:
        attributes["gen_ai.request.model"] = observation.model
    if observation.loop_kind is not None:
        attributes["driftguard.loop.kind"] = observation.loop_kind
    return Event(EVENT_NAME, _ns(observation.recorded_at), attributes)
