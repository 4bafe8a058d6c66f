"""Exporting never delays or breaks what scored: a collector that is down or hangs, a
missing extra or an unsupported protocol cost one warning line on stderr, never an
exception, and the call returns at once (the precise figures: benchmarks/bench_otel.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from otlp_receiver import closed_port, isolate, receiver, silent_listener, story, write_session

from driftguard import paths, telemetry
from driftguard.adapters import parse_session
from driftguard.engine import drift as engine
from driftguard.engine.drift import DriftOutcome
from driftguard.store.history import HistoryStore

RETURNS_WITHIN = 0.5
"""A generous bound on the entry point's own time, seconds (it only queues)."""
DONE_WITHIN = 1.5 + 1.0
"""A generous bound on the whole export, seconds: the 1 s budget and a loaded machine."""


@pytest.fixture(autouse=True)
def _fresh_telemetry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    isolate(monkeypatch)
    yield
    telemetry.flush(5)
    telemetry._reset()


def recorded(home: Path) -> DriftOutcome:
    session = parse_session(write_session(home, story()))
    return engine.drift(session, project=None, store=HistoryStore(), record=False)


def timed_emit(outcome: DriftOutcome) -> tuple[float, float]:
    """(seconds the entry point took, seconds until the export was done or given up)."""
    start = time.monotonic()
    telemetry.emit_recorded(
        outcome.report, config=outcome.config, recorded_at=time.time(), state_dir=paths.state_dir()
    )
    returned = time.monotonic() - start
    telemetry.flush(10)
    return returned, time.monotonic() - start


def warnings_in(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("driftguard: warning:")]


def test_a_collector_that_is_down_costs_one_warning_line_and_no_time(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    outcome = recorded(isolated_home)
    returned, done = timed_emit(outcome)
    timed_emit(outcome)  # a second score: nothing more is said
    assert returned < RETURNS_WITHIN
    assert done < DONE_WITHIN
    captured = capsys.readouterr()
    (line,) = warnings_in(captured.err)
    assert "could not send metrics to 127.0.0.1:" in line
    assert "scores are not affected" in line
    assert captured.err.strip() == line  # nothing from the SDK's own logging
    assert captured.out == ""


def test_a_collector_that_never_answers_is_given_up_within_the_budget(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with silent_listener() as port:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
        returned, done = timed_emit(recorded(isolated_home))
    assert returned < RETURNS_WITHIN
    assert done < DONE_WITHIN
    (line,) = warnings_in(capsys.readouterr().err)
    assert "took over 1 s" in line


def test_the_missing_extra_costs_one_warning_line_naming_the_install(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(telemetry, "_NEEDED", ("opentelemetry_not_installed_here",))
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    outcome = recorded(isolated_home)
    timed_emit(outcome)
    timed_emit(outcome)
    (line,) = warnings_in(capsys.readouterr().err)
    assert "OTEL_EXPORTER_OTLP_ENDPOINT is set" in line
    assert "pip install 'driftguard-mcp[otel]'" in line


def test_an_unsupported_protocol_sends_nothing_and_says_so_once(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with receiver() as collector:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        outcome = recorded(isolated_home)
        timed_emit(outcome)
        timed_emit(outcome)
        time.sleep(0.1)
        assert collector.requests == []
    (line,) = warnings_in(capsys.readouterr().err)
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in line
    assert "http/protobuf only" in line


def test_a_state_folder_that_cannot_be_written_sends_no_counter_rather_than_one_twice(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with receiver() as collector:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint)
        outcome = recorded(isolated_home)
        paths.state_dir().mkdir(parents=True, exist_ok=True)
        (paths.state_dir() / "telemetry").write_text("a file where the folder should be")
        timed_emit(outcome)
        names = {p["name"] for p in collector.points()}
    assert names == {
        "driftguard.session.drift",
        "driftguard.session.context.tokens",
        "driftguard.session.compaction.tokens_left",
    }
    assert len(collector.events()) == 1


def test_an_error_inside_the_entry_point_is_one_warning_not_an_exception(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    outcome = recorded(isolated_home)
    monkeypatch.setattr(telemetry, "resolve", broken)
    telemetry.emit_recorded(
        outcome.report,
        config=outcome.config,
        recorded_at=time.time(),
        state_dir=paths.state_dir(),
    )
    (line,) = warnings_in(capsys.readouterr().err)
    assert "RuntimeError" in line
