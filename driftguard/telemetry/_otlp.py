"""The one module that imports OpenTelemetry (the ``[otel]`` extra): it turns the plain
points and event of :mod:`driftguard.telemetry.payload` into the SDK's types and sends
them over OTLP/HTTP (protobuf) with the SDK's own exporters, which read the endpoint,
headers, compression and certificates from the ``OTEL_EXPORTER_OTLP_*`` variables.

Imported only in the background sender, when something is sent; its module level imports
nothing from OpenTelemetry, so every module of driftguard imports without the extra.

Sources:

- https://opentelemetry.io/docs/specs/otlp/#otlphttp (the protocol)
- https://opentelemetry.io/docs/specs/otel/resource/sdk/#specifying-resource-information-via-an-environment-variable
  (``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_SERVICE_NAME``; ``service.name`` defaults to
  ``driftguard`` here rather than ``unknown_service``)
- https://opentelemetry.io/docs/specs/otel/logs/data-model/ (severity INFO = 9, event name)
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from driftguard._version import package_version
from driftguard.telemetry.payload import SCOPE, Event, Point

if TYPE_CHECKING:
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk.metrics.export import MetricsData
    from opentelemetry.sdk.resources import Resource

DEFAULT_SERVICE_NAME = "driftguard"
_DEFAULT_ENDPOINT = "localhost:4318"
_lock = threading.Lock()
_providers: dict[tuple[tuple[str, str], ...], tuple[LoggerProvider, _Captured]] = {}


def send(points: Sequence[Point], event: Event | None, *, timeout: float) -> list[str]:
    """Send ``points`` (when any) and ``event`` (when given), all within ``timeout``
    seconds, each signal within its share of it.

    Returns:
        What could not be sent, one short phrase each (``"metrics to localhost:4318"``);
        empty when everything was.

    Raises:
        ImportError: the ``[otel]`` extra is not installed (or is broken).
    """
    _quiet()
    deadline = time.monotonic() + timeout
    # Each signal gets an equal share of the time: the exporter retries a refused
    # connection after a backoff of about 1 s when its timeout leaves room for it, and a
    # retry that late would only spend the whole budget on a collector that is down.
    share = timeout / (bool(points) + (event is not None) or 1)
    resource = _resource()
    failed: list[str] = []
    if points:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        left = max(0.001, min(share, deadline - time.monotonic()))
        metrics = OTLPMetricExporter(timeout=left)
        data = _metrics_data(points, resource)
        if not _sent(lambda: metrics.export(data, timeout_millis=left * 1000), metrics):
            failed.append(f"metrics to {_where('METRICS')}")
    if event is not None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        batch = _log_batch(event, resource)
        left = max(0.001, min(share, deadline - time.monotonic()))
        logs = OTLPLogExporter(timeout=left)
        if not _sent(lambda: logs.export(batch), logs):
            failed.append(f"the evaluation event to {_where('LOGS')}")
    return failed


def _sent(export: Callable[[], Any], exporter: object) -> bool:
    """Whether ``export()`` succeeded; the exporter is shut down (its connections closed)
    either way. The SDK reports a failed export as a ``FAILURE`` result, or in some
    releases (1.39) by raising the HTTP library's error: both are a failure here."""
    try:
        return bool(export().name == "SUCCESS")
    except Exception:  # noqa: BLE001 - a failed export must cost a warning, never the caller
        return False
    finally:
        with contextlib.suppress(Exception):
            cast(Any, exporter).shutdown()  # untyped in some SDK releases


def _quiet() -> None:
    """Keep the SDK's own log lines (a warning per retry, an error per failed export) off
    stderr: driftguard says a failed export in one line of its own."""
    for name in ("opentelemetry.exporter", "opentelemetry.sdk"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
        logger.propagate = False


def _where(signal: str) -> str:
    """``host:port`` of the signal's endpoint (never its credentials, path or query)."""
    endpoint = (
        os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT", "").strip()
        or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    )
    if not endpoint:
        return _DEFAULT_ENDPOINT
    try:
        parts = urlsplit(endpoint)
        host, port = parts.hostname, parts.port
    except ValueError:
        return "the configured endpoint"
    if not host:
        return "the configured endpoint"
    return f"{host}:{port}" if port else host


def _resource() -> Resource:
    """The SDK's resource from the environment, with ``service.name`` ``driftguard`` unless
    the environment names one, and driftguard's version as ``service.version`` unless it
    names one."""
    from opentelemetry.sdk.resources import Resource

    resource = Resource.create({})
    extra: dict[str, str] = {}
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        extra["service.name"] = DEFAULT_SERVICE_NAME
    if "service.version" not in resource.attributes:
        extra["service.version"] = package_version()
    return resource.merge(Resource(extra)) if extra else resource


def _scope() -> Any:
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    return InstrumentationScope(SCOPE, package_version())


def _metrics_data(points: Sequence[Point], resource: Resource) -> MetricsData:
    """One resource, one scope, one metric per name with its points."""
    from opentelemetry.sdk.metrics.export import (
        AggregationTemporality,
        Gauge,
        Metric,
        MetricsData,
        NumberDataPoint,
        ResourceMetrics,
        ScopeMetrics,
        Sum,
    )

    by_name: dict[str, list[Point]] = {}
    for point in points:
        by_name.setdefault(point.metric.name, []).append(point)
    metrics = []
    for name, group in by_name.items():
        spec = group[0].metric
        data_points = [
            NumberDataPoint(
                attributes=dict(p.attributes),
                start_time_unix_nano=p.start_ns,
                time_unix_nano=p.time_ns,
                value=p.value,
            )
            for p in group
        ]
        data: Gauge | Sum
        if spec.kind == "gauge":
            data = Gauge(data_points=data_points)
        else:
            temporality = (
                AggregationTemporality.DELTA
                if group[0].temporality == "delta"
                else AggregationTemporality.CUMULATIVE
            )
            data = Sum(
                data_points=data_points, aggregation_temporality=temporality, is_monotonic=True
            )
        metrics.append(Metric(name=name, description=spec.description, unit=spec.unit, data=data))
    scope = ScopeMetrics(scope=_scope(), metrics=metrics, schema_url="")
    return MetricsData(
        resource_metrics=[ResourceMetrics(resource=resource, scope_metrics=[scope], schema_url="")]
    )


def _log_batch(event: Event, resource: Resource) -> Sequence[Any]:
    """The event as the SDK's log exporter takes it: emitted through a logger provider
    whose only processor hands each record over as the SDK would export it."""
    from opentelemetry._logs import SeverityNumber

    provider, captured = _provider(resource)
    logger = provider.get_logger(SCOPE, package_version())
    with _lock:
        captured.records.clear()
        logger.emit(
            timestamp=event.time_ns,
            observed_timestamp=time.time_ns(),
            severity_number=SeverityNumber.INFO,
            severity_text="INFO",
            attributes=dict(event.attributes),
            event_name=event.name,
        )
        batch = list(captured.records)
        captured.records.clear()
    return batch


class _Captured:
    """Stands in for the SDK's exporter behind a ``SimpleLogRecordProcessor``: keeps the
    records it is handed (the processor has already made them readable)."""

    def __init__(self) -> None:
        self.records: list[Any] = []

    def export(self, batch: Sequence[Any]) -> Any:
        from opentelemetry.sdk._logs.export import LogRecordExportResult

        self.records.extend(batch)
        return LogRecordExportResult.SUCCESS

    def shutdown(self) -> None:
        self.records.clear()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def _provider(resource: Resource) -> tuple[LoggerProvider, _Captured]:
    """One logger provider per resource for the life of the process (each registers a
    fork handler, so a long-running server must not make one per score)."""
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

    key = tuple(sorted((str(k), str(v)) for k, v in resource.attributes.items()))
    with _lock:
        found = _providers.get(key)
        if found is None:
            captured = _Captured()
            provider = LoggerProvider(resource=resource, shutdown_on_exit=False)
            provider.add_log_record_processor(SimpleLogRecordProcessor(captured))  # type: ignore[arg-type]
            found = _providers[key] = (provider, captured)
    return found
