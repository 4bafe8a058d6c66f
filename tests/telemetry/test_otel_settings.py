"""When the export is on, what it sends and how (driftguard.telemetry.settings): the
config's otel key, then the standard OTEL_* variables."""

from __future__ import annotations

import pytest

from driftguard.config import Config
from driftguard.telemetry.settings import BUDGET_SECONDS, resolve

ENDPOINT = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}


def config(otel: bool | None = None, include: bool = False) -> Config:
    return Config(preset="coding", weights={}, otel=otel, otel_include_project=include)


def test_off_without_configuration() -> None:
    settings = resolve(config(), {})
    assert not settings.enabled
    assert settings.reason == "no OTLP endpoint is set"


def test_the_standard_endpoint_turns_both_signals_on_with_cumulative_counters() -> None:
    settings = resolve(config(), ENDPOINT)
    assert (settings.enabled, settings.metrics, settings.logs) == (True, True, True)
    assert settings.reason == "OTEL_EXPORTER_OTLP_ENDPOINT is set"
    assert settings.temporality == "cumulative"
    assert settings.timeout == BUDGET_SECONDS
    assert settings.problems == ()


@pytest.mark.parametrize(
    ("variable", "metrics", "logs"),
    [
        ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", True, False),
        ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", False, True),
    ],
)
def test_a_signal_endpoint_turns_that_signal_on(variable: str, metrics: bool, logs: bool) -> None:
    settings = resolve(config(), {variable: "http://collector:4318/v1/x"})
    assert (settings.enabled, settings.metrics, settings.logs) == (True, metrics, logs)


def test_otel_true_sends_both_to_the_default_endpoint() -> None:
    settings = resolve(config(otel=True, include=True), {})
    assert (settings.metrics, settings.logs, settings.include_project) == (True, True, True)
    assert settings.reason == "otel is true in the config"


@pytest.mark.parametrize(
    ("otel", "environ", "reason"),
    [
        (False, ENDPOINT, "otel is false in the config"),
        (True, {"OTEL_SDK_DISABLED": "TRUE"}, "OTEL_SDK_DISABLED is true"),
        (None, {**ENDPOINT, "OTEL_SDK_DISABLED": "true"}, "OTEL_SDK_DISABLED is true"),
    ],
)
def test_any_off_switch_wins(otel: bool | None, environ: dict[str, str], reason: str) -> None:
    settings = resolve(config(otel=otel), environ)
    assert not settings.enabled
    assert settings.reason == reason


@pytest.mark.parametrize(
    ("exporter", "sent"),
    [
        ("none", False),
        ("console", False),
        ("prometheus", False),
        ("otlp", True),
        ("console,otlp", True),
        ("", True),
    ],
)
def test_the_exporter_variables_choose_the_signals(exporter: str, sent: bool) -> None:
    settings = resolve(config(), {**ENDPOINT, "OTEL_METRICS_EXPORTER": exporter})
    assert settings.metrics is sent
    assert settings.logs is True


@pytest.mark.parametrize("protocol", ["grpc", "http/json"])
def test_another_protocol_is_a_problem_and_sends_nothing(protocol: str) -> None:
    settings = resolve(config(), {**ENDPOINT, "OTEL_EXPORTER_OTLP_PROTOCOL": protocol})
    assert not settings.enabled
    assert len(settings.problems) == 2
    assert all(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol}" in p for p in settings.problems)


def test_a_signal_protocol_overrides_the_general_one() -> None:
    settings = resolve(
        config(),
        {
            **ENDPOINT,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf",
        },
    )
    assert (settings.metrics, settings.logs) == (True, False)
    (problem,) = settings.problems
    assert problem.startswith("OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
    assert "logs" in problem


@pytest.mark.parametrize(
    ("preference", "temporality"),
    [
        ("delta", "delta"),
        ("LowMemory", "delta"),
        ("cumulative", "cumulative"),
        ("bogus", "cumulative"),
    ],
)
def test_the_temporality_preference(preference: str, temporality: str) -> None:
    environ = {**ENDPOINT, "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": preference}
    assert resolve(config(), environ).temporality == temporality


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("250", 0.25),
        ("10000", BUDGET_SECONDS),
        ("0", BUDGET_SECONDS),
        ("nan", BUDGET_SECONDS),
        ("x", BUDGET_SECONDS),
    ],
)
def test_the_timeout_variable_can_only_shorten_the_budget(value: str, seconds: float) -> None:
    environ = {**ENDPOINT, "OTEL_EXPORTER_OTLP_TIMEOUT": value}
    assert resolve(config(), environ).timeout == seconds
