"""The engine's one scoring verb, from the shells' side: a session's facts are worked out
once per call and carried (config, history key, session folder), a score is recorded only
when it is the session's own and in force, and the usable window is the host's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_claude_session, write_project_session

from driftguard import config as config_module
from driftguard.adapters import get_adapter, parse_session
from driftguard.adapters._base import Adapter
from driftguard.engine import drift as engine
from driftguard.engine.drift import UNCHANGED, drift, score_session, session_facts
from driftguard.model import NOT_IN_SESSION_FOLDER
from driftguard.presets import load_preset
from driftguard.store.history import HistoryStore, history_key_for

SESSION_ID = "d00df00d-0000-4000-8000-000000000001"
REPLIES = [
    f"I rewired the billing webhook, part {i}: retries and idempotency keys." for i in range(6)
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "billing"
    root.mkdir()
    return root


@pytest.fixture
def transcript(isolated_home: Path, project: Path) -> Path:
    """The project's Claude Code session, in Claude Code's own session folder."""
    return write_project_session(isolated_home, project, REPLIES, session_id=SESSION_ID)


@pytest.fixture
def store(isolated_home: Path) -> HistoryStore:
    return HistoryStore(isolated_home / ".driftcli" / "history")


def test_the_facts_of_a_session_in_its_hosts_folder_name_its_id_and_keep_a_history(
    transcript: Path, project: Path, store: HistoryStore
) -> None:
    facts = session_facts(parse_session(transcript), project=project, store=store)
    assert facts.own_file
    assert facts.kept
    assert facts.key == history_key_for("claude_code", SESSION_ID, transcript)
    assert facts.config.preset == "coding"
    assert str(store.goal_path(facts.key)) in facts.input_files


def test_a_copy_outside_the_session_folders_has_its_own_key_and_no_history(
    transcript: Path, project: Path, store: HistoryStore, tmp_path: Path
) -> None:
    copy = tmp_path / "elsewhere" / transcript.name
    copy.parent.mkdir()
    copy.write_bytes(transcript.read_bytes())
    facts = session_facts(parse_session(copy), project=project, store=store)
    assert not facts.kept
    assert not facts.own_file
    assert facts.key != history_key_for("claude_code", SESSION_ID, transcript)
    outcome = drift(parse_session(copy), project=project, store=store)
    assert outcome.recording.reason == NOT_IN_SESSION_FOLDER
    assert store.read(facts.key) == []


def test_one_drift_call_reads_the_config_once_and_asks_the_adapter_once(
    transcript: Path, project: Path, store: HistoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[Path | None] = []
    real_load = config_module.load_config

    def counting_load(project: Path | None, **kwargs: object) -> config_module.Config:
        loads.append(project)
        return real_load(project, **kwargs)  # type: ignore[arg-type]

    asks: list[str] = []
    adapter = get_adapter("claude_code")
    real_ask = type(adapter).is_session_file_of

    def counting_ask(self: Adapter, path: Path, session_id: str) -> bool:
        asks.append(session_id)
        return real_ask(self, path, session_id)

    monkeypatch.setattr(engine, "load_config", counting_load)
    monkeypatch.setattr(type(adapter), "is_session_file_of", counting_ask)
    drift(parse_session(transcript), project=project, store=store, goal="retries", preset="strict")
    assert loads == [project]
    assert asks == [SESSION_ID]


def test_a_score_with_another_preset_than_the_configs_is_a_try_out_history_does_not_keep(
    transcript: Path, project: Path, store: HistoryStore
) -> None:
    (project / ".driftcli").write_text(json.dumps({"preset": "research"}), encoding="utf-8")
    session = parse_session(transcript)
    tried = drift(session, project=project, store=store, preset="strict")
    assert tried.recording.reason == "a try-out with preset strict (the config's is research)"
    same = drift(session, project=project, store=store, preset="research")
    assert same.recording.recorded


def test_a_score_with_another_context_window_than_the_configs_is_a_try_out_history_does_not_keep(
    transcript: Path, project: Path, store: HistoryStore
) -> None:
    (project / ".driftcli").write_text(json.dumps({"contextWindow": 64_000}), encoding="utf-8")
    session = parse_session(transcript)
    tried = drift(session, project=project, store=store, context_window=32_000)
    assert tried.recording.reason == "a try-out with context window 32,000 (the config's is 64,000)"
    assert tried.report.context_window == 32_000  # shown as asked
    same = drift(session, project=project, store=store, context_window=64_000)
    assert same.recording.recorded


def test_a_context_window_other_than_the_one_the_host_reported_is_a_try_out(
    transcript: Path, project: Path, store: HistoryStore
) -> None:
    from driftguard.store.livecache import write_host_window

    write_host_window(SESSION_ID, 1_000_000)  # Claude Code's status line said so
    session = parse_session(transcript)
    tried = drift(session, project=project, store=store, context_window=200_000)
    assert tried.recording.reason == (
        "a try-out with context window 200,000 (the host's is 1,000,000)"
    )
    assert drift(session, project=project, store=store, context_window=1_000_000).recording.recorded


def test_a_context_window_other_than_the_sessions_own_is_a_try_out_and_its_own_is_recorded(
    transcript: Path, project: Path, store: HistoryStore
) -> None:
    session = parse_session(transcript)
    tried = drift(session, project=project, store=store, context_window=60_000)
    # claude-sonnet-4-5 may run with 1M: with nothing set, Claude Code's choice is assumed
    assert tried.recording.reason == (
        "a try-out with context window 60,000 (the assumed one is 200,000)"
    )
    facts = session_facts(session, project=project, store=store)
    assert store.read(facts.key) == []
    same = drift(session, project=project, store=store, context_window=200_000)
    assert same.recording.recorded
    assert same.report.score == drift(session, project=project, store=store).report.score


def test_naming_the_sessions_own_window_is_a_try_out_when_it_moves_the_compaction_point(
    transcript: Path, project: Path, store: HistoryStore
) -> None:
    compaction = {
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "level": "info",
        "compactMetadata": {"trigger": "auto", "preTokens": 100_000},
        "uuid": "00000000-0000-4000-8000-999999999999",
        "sessionId": SESSION_ID,
        "timestamp": "2026-11-30T11:00:00.000Z",
    }
    with transcript.open("a", encoding="utf-8") as file:
        file.write(json.dumps(compaction) + "\n")
    session = parse_session(transcript)
    own = drift(session, project=project, store=store)
    assert own.report.usable_window == 100_000  # where the transcript shows it compacted
    named = drift(session, project=project, store=store, context_window=200_000)
    assert named.report.context_window == own.report.context_window
    assert named.recording.reason == (
        "a try-out with context window 200,000 named (the host compacts at 167,000 tokens "
        "with it, at 100,000 without)"
    )


def test_the_same_moment_scored_twice_is_recorded_once(
    transcript: Path, project: Path, store: HistoryStore
) -> None:
    session = parse_session(transcript)
    first = drift(session, project=project, store=store)
    again = drift(session, project=project, store=store)
    assert first.recording.recorded
    assert again.recording.reason == UNCHANGED
    facts = session_facts(session, project=project, store=store)
    assert len(store.read(facts.key)) == 1


def test_score_session_without_a_usable_window_takes_the_hosts_rule(tmp_path: Path) -> None:
    session = parse_session(write_claude_session(tmp_path / "s.jsonl", REPLIES))
    report = score_session(session, weights=load_preset("coding").weights)
    assert report.context_window == 200_000
    assert report.usable is not None
    assert report.usable.tokens == 200_000 - 20_000 - 13_000  # Claude Code 2.1.197's rule
    assert report.tokens_until_compaction == report.usable.tokens - session.context_tokens
