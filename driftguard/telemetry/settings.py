"""When and how driftguard sends a recorded score to OpenTelemetry: the config's ``otel``
and ``otelIncludeProject`` and the standard ``OTEL_*`` variables, resolved without
importing OpenTelemetry (a session that does not send anything pays a few environment
look-ups).

**On or off**, first match wins:

1. ``otel: false`` in the config: off, whatever the environment says.
2. ``OTEL_SDK_DISABLED=true``: off (the specification's switch for every SDK).
3. ``otel: true``: on, both signals (to ``http://localhost:4318`` when no endpoint is set,
   the OTLP default).
4. ``OTEL_EXPORTER_OTLP_ENDPOINT`` set: on, both signals; else
   ``OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT``: on, the
   signals that have an endpoint.
5. Otherwise off.

Then ``OTEL_METRICS_EXPORTER`` / ``OTEL_LOGS_EXPORTER`` turn a signal off unless they are
unset or list ``otlp`` (``none``, or ``console`` and ``prometheus``, which driftguard does
not speak), and a signal whose ``OTEL_EXPORTER_OTLP[_<SIGNAL>]_PROTOCOL`` is not
``http/protobuf`` is off with a problem line (the only protocol of the ``[otel]`` extra's
exporter). The endpoint, headers, compression, certificates, ``OTEL_SERVICE_NAME`` and
``OTEL_RESOURCE_ATTRIBUTES`` are read by the OpenTelemetry SDK itself when it sends.

Sources:

- https://opentelemetry.io/docs/specs/otel/protocol/exporter/ (endpoint, per-signal
  endpoint, protocol, timeout in milliseconds, the ``http://localhost:4318`` default)
- https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
  (``OTEL_SDK_DISABLED``, ``OTEL_METRICS_EXPORTER``, ``OTEL_LOGS_EXPORTER``)
- https://opentelemetry.io/docs/specs/otel/metrics/sdk_exporters/otlp/
  (``OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE``: ``cumulative`` by default,
  ``delta``, ``lowmemory`` — which makes counters delta)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from driftguard.config import Config

__all__ = [
    "BUDGET_SECONDS",
    "ENDPOINT_VARIABLES",
    "TelemetrySettings",
    "Temporality",
    "resolve",
]

BUDGET_SECONDS = 1.0
"""The most one recorded score's export may take, from the moment it is recorded to the
last byte sent, in seconds: a hook runs after every turn and must not hold its host."""

ENDPOINT_VARIABLES = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
)
"""The variables whose presence turns the export on (rule 4 of the module docstring)."""

Temporality = Literal["cumulative", "delta"]
"""How the counters are sent: each session's running total (``cumulative``, the
specification's default) or what was added since the session's previous score (``delta``)."""

_PROTOCOL = "http/protobuf"
_SIGNALS = {"metrics": "METRICS", "logs": "LOGS"}


@dataclass(frozen=True, slots=True)
class TelemetrySettings:
    """What to send, decided from the config and the environment (module docstring).

    Attributes:
        enabled: at least one signal is sent.
        reason: why it is on or off, one line (``"OTEL_EXPORTER_OTLP_ENDPOINT is set"``).
        metrics: the metrics are sent.
        logs: the ``gen_ai.evaluation.result`` event is sent.
        temporality: how the counters are sent.
        include_project: the project's folder name is an attribute (``otelIncludeProject``).
        timeout: the most the export may wait for the collector, seconds (at most
            :data:`BUDGET_SECONDS`; less when ``OTEL_EXPORTER_OTLP_TIMEOUT`` says so).
        problems: what was asked for but cannot be done (an unsupported protocol), one line
            each; the caller says them once on stderr.
    """

    enabled: bool
    reason: str
    metrics: bool = False
    logs: bool = False
    temporality: Temporality = "cumulative"
    include_project: bool = False
    timeout: float = BUDGET_SECONDS
    problems: tuple[str, ...] = ()


def resolve(config: Config, environ: Mapping[str, str]) -> TelemetrySettings:
    """The telemetry settings of ``config`` (``otel``, ``otelIncludeProject``) in the
    environment ``environ`` (``os.environ``), by the rules of the module docstring. Never
    raises: a variable it cannot read counts as unset."""

    def env(name: str) -> str:
        return environ.get(name, "").strip()

    if config.otel is False:
        return TelemetrySettings(False, "otel is false in the config")
    if env("OTEL_SDK_DISABLED").lower() == "true":
        return TelemetrySettings(False, "OTEL_SDK_DISABLED is true")
    if config.otel:
        wanted = {"metrics": True, "logs": True}
        reason = "otel is true in the config"
    else:
        general = bool(env("OTEL_EXPORTER_OTLP_ENDPOINT"))
        wanted = {
            signal: general or bool(env(f"OTEL_EXPORTER_OTLP_{upper}_ENDPOINT"))
            for signal, upper in _SIGNALS.items()
        }
        named = [name for name in ENDPOINT_VARIABLES if env(name)]
        if not named:
            return TelemetrySettings(False, "no OTLP endpoint is set")
        reason = f"{named[0]} is set"
    problems: list[str] = []
    for signal, upper in _SIGNALS.items():
        if not wanted[signal]:
            continue
        if not _exports_otlp(env(f"OTEL_{upper}_EXPORTER")):
            wanted[signal] = False
            continue
        variable = f"OTEL_EXPORTER_OTLP_{upper}_PROTOCOL"
        if not env(variable):
            variable = "OTEL_EXPORTER_OTLP_PROTOCOL"
        protocol = env(variable) or _PROTOCOL
        if protocol != _PROTOCOL:
            wanted[signal] = False
            problems.append(
                f"{variable}={protocol}: driftguard sends OTLP over {_PROTOCOL} only, so its "
                f"{signal} are not sent (docs/telemetry.md)"
            )
    preference = env("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE").lower()
    return TelemetrySettings(
        enabled=wanted["metrics"] or wanted["logs"],
        reason=reason,
        metrics=wanted["metrics"],
        logs=wanted["logs"],
        temporality="delta" if preference in ("delta", "lowmemory") else "cumulative",
        include_project=config.otel_include_project,
        timeout=_timeout(env("OTEL_EXPORTER_OTLP_TIMEOUT")),
        problems=tuple(problems),
    )


def _exports_otlp(value: str) -> bool:
    """Whether an ``OTEL_*_EXPORTER`` value asks for OTLP: unset (the default, ``otlp``)
    or a comma-separated list that names it."""
    return not value or "otlp" in (item.strip().lower() for item in value.split(","))


def _timeout(value: str) -> float:
    """``OTEL_EXPORTER_OTLP_TIMEOUT`` (milliseconds) in seconds, capped at the budget."""
    try:
        millis = float(value)
    except ValueError:
        return BUDGET_SECONDS
    if not millis > 0:  # also NaN
        return BUDGET_SECONDS
    return min(BUDGET_SECONDS, millis / 1000)
