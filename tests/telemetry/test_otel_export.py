"""A recorded score reaches a real OTLP/HTTP receiver as OpenTelemetry metrics and a
``gen_ai.evaluation.result`` event: the names, values, units and attributes a team's
dashboards read, counters that count each compaction and loop once, and nothing of the
transcript. Scored by the engine on a synthetic Claude Code session in its session folder,
sent by the entry point the engine calls after recording (driftguard.telemetry)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from otlp_receiver import (
    CWD,
    MODEL,
    NEVER_SENT,
    PROJECT,
    SESSION_ID,
    Receiver,
    isolate,
    receiver,
    story,
    write_session,
)

from driftguard import paths, telemetry
from driftguard.adapters import parse_session
from driftguard.engine import drift as engine
from driftguard.engine.drift import DriftOutcome
from driftguard.store.history import HistoryStore

GAUGES = {
    "driftguard.session.drift": "{score}",
    "driftguard.session.context.tokens": "{token}",
    "driftguard.session.compaction.tokens_left": "{token}",
}
SESSION_ATTRIBUTES = {
    "session.id": SESSION_ID,
    "gen_ai.conversation.id": SESSION_ID,
    "driftguard.host": "claude_code",
}


@pytest.fixture(autouse=True)
def _fresh_telemetry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    isolate(monkeypatch)
    yield
    telemetry.flush(5)
    telemetry._reset()


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    with receiver() as running:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", running.endpoint)
        yield running


def recorded(home: Path, **shape: int) -> DriftOutcome:
    """The engine's score of the story (otlp_receiver.story) in its session folder, not
    recorded: these tests send it themselves (the engine sends what it records, as
    test_otel_processes.py shows)."""
    session = parse_session(write_session(home, story(**shape)))
    return engine.drift(session, project=None, store=HistoryStore(), record=False)


def emit(outcome: DriftOutcome, at: float | None = None) -> None:
    telemetry.emit_recorded(
        outcome.report,
        config=outcome.config,
        recorded_at=time.time() if at is None else at,
        state_dir=paths.state_dir(),
    )
    assert telemetry.flush(10)


def by_name(points: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [p for p in points if p["name"] == name]


def test_a_recorded_score_sends_three_gauges_with_units_values_and_attributes(
    isolated_home: Path, collector: Receiver
) -> None:
    outcome = recorded(isolated_home)
    report = outcome.report
    at = time.time()
    emit(outcome, at)
    points = collector.points()
    expected = {
        "driftguard.session.drift": report.score,
        "driftguard.session.context.tokens": report.session.context_tokens,
        "driftguard.session.compaction.tokens_left": report.tokens_until_compaction,
    }
    for name, unit in GAUGES.items():
        (point,) = by_name(points, name)
        assert (point["kind"], point["unit"], point["value"]) == ("gauge", unit, expected[name])
        assert point["attributes"] == {
            **SESSION_ATTRIBUTES,
            "driftguard.state": report.state,
            "gen_ai.request.model": MODEL,
        }
        assert point["time"] == int(at * 1e9)
        assert point["scope"] == "driftguard"
    assert report.state == "drifting"
    assert report.session.context_tokens == 39_950
    assert expected["driftguard.session.compaction.tokens_left"] > 0
    assert points[0]["resource"]["service.name"] == "driftguard"


def test_each_compaction_and_each_loop_is_counted_once_across_repeated_scores(
    isolated_home: Path, collector: Receiver
) -> None:
    first = recorded(isolated_home)
    emit(first)
    emit(first)  # the same score again (another process scoring the same turn)
    later = recorded(isolated_home, compactions=2, loops=2)
    emit(later)
    compactions = by_name(collector.points(), "driftguard.session.compactions")
    loops = by_name(collector.points(), "driftguard.loops")
    assert [p["value"] for p in compactions] == [1, 1, 2]
    assert [(p["value"], p["attributes"]["driftguard.loop.kind"]) for p in loops] == [
        (1, "failing"),
        (1, "failing"),
        (2, "failing"),
    ]
    for point in compactions + loops:
        assert (point["kind"], point["temporality"], point["monotonic"]) == (
            "sum",
            "cumulative",
            True,
        )
        assert point["unit"] == (
            "{compaction}" if point["name"].endswith("compactions") else "{loop}"
        )
        assert {k: point["attributes"][k] for k in SESSION_ATTRIBUTES} == SESSION_ATTRIBUTES
        # a counter's series never changes with the state or the model
        assert "driftguard.state" not in point["attributes"]
        assert "gen_ai.request.model" not in point["attributes"]
    # one series per session: every point starts where the session's counting began
    assert len({p["start"] for p in compactions + loops}) == 1
    assert all(p["start"] < p["time"] for p in compactions + loops)


def test_delta_counters_send_only_what_each_score_added(
    isolated_home: Path, collector: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "delta")
    first = recorded(isolated_home)
    emit(first, 2_000_000_000.0)
    emit(first, 2_000_000_060.0)
    emit(recorded(isolated_home, compactions=3, loops=2), 2_000_000_120.0)
    counters = [p for p in collector.points() if p["kind"] == "sum"]
    assert [(p["name"], p["value"], p["temporality"]) for p in counters] == [
        ("driftguard.session.compactions", 1, "delta"),
        ("driftguard.loops", 1, "delta"),
        ("driftguard.session.compactions", 2, "delta"),
        ("driftguard.loops", 1, "delta"),
    ]
    # contiguous windows: the last starts where the previous score was
    assert counters[2]["start"] == int(2_000_000_060.0 * 1e9)
    assert counters[2]["time"] == int(2_000_000_120.0 * 1e9)


def test_the_evaluation_event_carries_score_state_and_a_recommendation_without_the_loop_text(
    isolated_home: Path, collector: Receiver
) -> None:
    outcome = recorded(isolated_home)
    at = time.time()
    emit(outcome, at)
    (event,) = collector.events()
    attributes = event["attributes"]
    assert event["event_name"] == "gen_ai.evaluation.result"
    assert event["severity"] == 9  # INFO
    assert event["time"] == int(at * 1e9)
    assert event["body"] is None
    assert attributes["gen_ai.evaluation.name"] == "driftguard.drift"
    assert attributes["gen_ai.evaluation.score.value"] == float(outcome.report.score)
    assert attributes["gen_ai.evaluation.score.label"] == outcome.report.state
    assert {k: attributes[k] for k in SESSION_ATTRIBUTES} == SESSION_ATTRIBUTES
    assert attributes["gen_ai.request.model"] == MODEL
    assert attributes["driftguard.loop.kind"] == "failing"
    assert attributes["driftguard.handoff_suggested"] == outcome.report.handoff_suggested
    explanation = attributes["gen_ai.evaluation.explanation"]
    assert "a tool call failed 4 times in a row" in explanation
    assert "psql" in outcome.report.recommendation  # what was left out
    assert explanation.split(":")[0] == outcome.report.recommendation.split(":")[0]


def test_no_secret_path_project_or_transcript_text_reaches_the_collector(
    isolated_home: Path, collector: Receiver
) -> None:
    outcome = recorded(isolated_home, compactions=2, loops=2)
    emit(outcome)
    bodies = collector.bodies()
    assert sorted(r.path for r in collector.requests) == ["/v1/logs", "/v1/metrics"]
    for body in bodies:
        for planted in NEVER_SENT:
            assert planted.encode() not in body, planted
        assert CWD.encode() not in body


def test_otel_include_project_adds_the_folder_name_and_nothing_else_of_the_path(
    isolated_home: Path, collector: Receiver
) -> None:
    (isolated_home / ".driftclirc").write_text(json.dumps({"otelIncludeProject": True}))
    emit(recorded(isolated_home))
    for point in collector.points():
        assert point["attributes"]["driftguard.project"] == PROJECT
    (event,) = collector.events()
    assert event["attributes"]["driftguard.project"] == PROJECT
    for body in collector.bodies():
        assert b"/home/dev" not in body
        for planted in NEVER_SENT[:2]:
            assert planted.encode() not in body


def test_the_standard_variables_name_the_service_resource_and_headers(
    isolated_home: Path, collector: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_SERVICE_NAME", "team-drift")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "team.id=platform,deployment.environment=dev")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-honeycomb-team=test-key")
    emit(recorded(isolated_home))
    resources = [p["resource"] for p in collector.points()] + [
        e["resource"] for e in collector.events()
    ]
    for resource in resources:
        assert resource["service.name"] == "team-drift"
        assert resource["team.id"] == "platform"
        assert "service.version" in resource
    for headers in collector.headers:
        lowered = {k.lower(): v for k, v in headers.items()}
        assert lowered["x-honeycomb-team"] == "test-key"
        assert lowered["content-type"] == "application/x-protobuf"


def test_a_metrics_endpoint_alone_sends_the_metrics_only(
    isolated_home: Path, collector: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", f"{collector.endpoint}/v1/metrics")
    emit(recorded(isolated_home))
    assert collector.points()
    assert collector.events() == []


def test_otel_false_in_the_config_sends_nothing_even_with_an_endpoint(
    isolated_home: Path, collector: Receiver
) -> None:
    (isolated_home / ".driftclirc").write_text(json.dumps({"otel": False}))
    emit(recorded(isolated_home))
    time.sleep(0.2)
    assert collector.requests == []
    assert not (paths.state_dir() / "telemetry").exists()


def test_the_counting_state_is_one_small_file_per_session_under_the_state_dir(
    isolated_home: Path, collector: Receiver
) -> None:
    emit(recorded(isolated_home))
    (state,) = (paths.state_dir() / "telemetry").glob("*.json")
    assert state.name.startswith("claude_code-")
    assert SESSION_ID not in state.name
    stored = json.loads(state.read_text())
    assert stored["compactions"] == 1
    assert stored["loops"] == {"failing": 1}
    assert state.stat().st_mode & 0o777 == 0o600
