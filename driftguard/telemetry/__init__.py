"""Sends each recorded score to OpenTelemetry: a sink beside the history store
(docs/telemetry.md).

The engine calls :func:`emit_recorded` right after a score went into a session's history.
When the export is off (the default: no ``OTEL_EXPORTER_OTLP_*ENDPOINT`` and no
``otel: true``, or ``otel: false``; :mod:`driftguard.telemetry.settings`) it returns after
a few environment look-ups and imports nothing. When it is on, it hands the score to a
background thread and returns; that thread reads the report
(:mod:`~driftguard.telemetry.observation`), counts each compaction and loop once per
session (:mod:`~driftguard.telemetry.counted`), and sends three gauges, two counters and a
``gen_ai.evaluation.result`` event (:mod:`~driftguard.telemetry.payload`) over OTLP/HTTP
with the ``[otel]`` extra's SDK (:mod:`driftguard.telemetry._otlp`), all within
:data:`~driftguard.telemetry.settings.BUDGET_SECONDS` of the call; a process that exits
waits for it at most that long. A missing extra, an unsupported protocol, a collector that
is down or slow each cost one warning line on stderr per process, never an exception and
never the score.

Imports only driftguard's ground modules (model, secrets, _fileio), its config and the
scoring report types: never the shells, the adapters or the engine.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.telemetry._sender import Job, Sender
from driftguard.telemetry.settings import BUDGET_SECONDS, TelemetrySettings, resolve

if TYPE_CHECKING:
    from driftguard.config import Config
    from driftguard.scoring.composite import DriftReport

__all__ = ["BUDGET_SECONDS", "EXTRA_MISSING", "emit_recorded", "flush"]

EXTRA_MISSING = (
    "it is turned on ({reason}) but the OpenTelemetry extra is not installed: "
    "pip install 'driftguard-mcp[otel]' (scores are not affected)"
)
"""The warning when the export is on and the ``[otel]`` extra is missing."""
_NEEDED = ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http")

_sender = Sender()


def emit_recorded(
    report: DriftReport,
    *,
    config: Config,
    recorded_at: float,
    state_dir: Path,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Send one recorded score to OpenTelemetry, if the export is on (module docstring).

    Call it right after the score's snapshot was appended to the session's history: only
    recorded scores are sent, so a score the history skipped (unchanged since the last,
    a try-out, a file outside the session folders) is not sent either.

    Args:
        report: the recorded report.
        config: the settings the score was made with (``otel``, ``otelIncludeProject``,
            ``history.retentionDays``, which also bounds the counting state's life).
        recorded_at: the snapshot's time, seconds since the epoch.
        state_dir: driftguard's state folder (:func:`driftguard.paths.state_dir`); the
            counting state goes in its ``telemetry/``.
        environ: the environment to read the ``OTEL_*`` variables from (``os.environ``).

    Returns at once: off, after a few look-ups; on, after queueing the score. Never raises.
    """
    try:
        settings = resolve(config, os.environ if environ is None else environ)
        if settings.problems:
            _sender.warn("; ".join(settings.problems))
        if not settings.enabled:
            return
        if not _extra_installed():
            _sender.warn(EXTRA_MISSING.format(reason=settings.reason))
            return
        deadline = time.monotonic() + min(BUDGET_SECONDS, settings.timeout)
        retention = config.history_retention_days

        def work(until: float) -> list[str]:
            return _send(report, settings, recorded_at, state_dir, retention, until)

        _sender.submit(Job(work, deadline))
    except Exception as exc:  # noqa: BLE001 - a score must never fail for its telemetry
        _sender.warn(f"not sent ({type(exc).__name__}); scores are not affected")


def flush(timeout: float | None = None) -> bool:
    """Wait for the scores handed over so far to be sent, at most ``timeout`` seconds
    (``None``: until the last one's deadline). Returns whether all were done. A process
    need not call it: it waits the same way when it exits."""
    return _sender.flush(timeout)


def _extra_installed() -> bool:
    """Whether the ``[otel]`` extra's packages can be imported (found, not imported)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in _NEEDED)
    except (ImportError, ValueError):
        return False


def _send(
    report: DriftReport,
    settings: TelemetrySettings,
    recorded_at: float,
    state_dir: Path,
    retention_days: int,
    deadline: float,
) -> list[str]:
    """Observe, count, and send one recorded score before ``deadline`` (the background
    thread's work); returns the problems to say."""
    from driftguard.telemetry import payload
    from driftguard.telemetry.counted import count_once, state_folder
    from driftguard.telemetry.observation import observe

    observation = observe(report, include_project=settings.include_project, recorded_at=recorded_at)
    counts = None
    if settings.metrics:
        counts = count_once(state_folder(state_dir), observation, retention_days=retention_days)
    points = (
        payload.metric_points(observation, counts, settings.temporality) if settings.metrics else []
    )
    event = payload.evaluation_event(observation) if settings.logs else None
    left = deadline - time.monotonic()
    if left <= 0:
        return ["no time was left to send this score (scores are not affected)"]
    try:
        from driftguard.telemetry import _otlp
    except ImportError:
        return [EXTRA_MISSING.format(reason=settings.reason)]
    try:
        failed = _otlp.send(points, event, timeout=left)
    except ImportError:
        return [EXTRA_MISSING.format(reason=settings.reason)]
    if failed:
        return [
            f"could not send {' nor '.join(failed)}: the collector is unreachable, refused "
            f"them or took over {settings.timeout:g} s (scores are not affected)"
        ]
    return []


def _reset() -> None:
    """A fresh sender (tests: each starts with nothing said and nothing queued)."""
    global _sender
    _sender.flush(0)
    _sender = Sender()
