"""Which window a Claude Code session runs with, 200k or 1M, when neither the user nor
Claude Code's status line named it.

Every expected value is worked out by hand from Claude Code 2.1.197's own rules
(adapters/claude_code/_window.py, 19-seams §3.3): 1M for a ``[1m]`` model name, or for a
1M-native model on api.anthropic.com; none with ``CLAUDE_CODE_DISABLE_1M_CONTEXT``; it
compacts at window − 20,000 − 13,000 (§3.4), so 167,000 of 200,000 and 967,000 of 1M.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import corpus_file, write_claude_session

from driftguard.adapters import parse_session
from driftguard.compaction.window import HostSetting
from driftguard.engine.drift import DriftOutcome, drift
from driftguard.engine.window import nominal_window
from driftguard.render.text import render_session_line, to_json_dict
from driftguard.store.history import HistoryStore
from driftguard.store.livecache import write_host_window

SESSION_ID = "11111111-2222-4333-8444-555555555555"


def env(**values: str) -> dict[str, HostSetting]:
    return {name: HostSetting(value, "environment") for name, value in values.items()}


def session_of(tmp_path: Path, model: str, *, context: int = 100_010) -> Path:
    """Two replies by ``model``; the latest request holds ``context`` tokens (10 fresh
    plus the cache read of ``2 × (context − 10) / 2``)."""
    return write_claude_session(
        tmp_path / f"{model}.jsonl",
        ["First step done.", "Second step done."],
        model=model,
        tokens_per_reply=(context - 10) // 2,
    )


def window_of(tmp_path: Path, model: str, settings: dict[str, HostSetting]) -> tuple[int, bool]:
    chosen = nominal_window(parse_session(session_of(tmp_path, model)), settings)
    return chosen.tokens, chosen.assumed


def scored(path: Path, tmp_path: Path) -> DriftOutcome:
    return drift(
        parse_session(path), project=None, store=HistoryStore(tmp_path / "h"), record=False
    )


# --- what the file proves, or the model has ----------------------------------------------


def test_a_request_past_200k_proves_the_1m_window_whatever_the_environment(
    tmp_path: Path,
) -> None:
    path = session_of(tmp_path, "claude-opus-4-8", context=200_010)
    chosen = nominal_window(parse_session(path), env(ANTHROPIC_BASE_URL="http://127.0.0.1:4000"))
    assert (chosen.tokens, chosen.assumed) == (1_000_000, False)
    assert chosen.rule is not None
    assert "a request of 200,010 tokens in the file is past 200,000" in chosen.rule


@pytest.mark.parametrize(
    "model", ["claude-haiku-4-5-20251001", "claude-opus-4-5", "claude-3-7-sonnet-20250219"]
)
def test_a_model_without_a_1m_window_runs_with_200k_and_nothing_is_assumed(
    tmp_path: Path, model: str
) -> None:
    assert window_of(tmp_path, model, env(ANTHROPIC_MODEL=f"{model}[1m]")) == (200_000, False)


# --- what Claude Code would choose for a model that may run either way --------------------


@pytest.mark.parametrize("model", ["claude-opus-4-8", "claude-opus-4-7", "claude-sonnet-5"])
def test_a_1m_native_model_on_anthropics_own_api_is_assumed_to_have_1m(
    tmp_path: Path, model: str
) -> None:
    assert window_of(tmp_path, model, {}) == (1_000_000, True)
    real = env(ANTHROPIC_BASE_URL="https://api.anthropic.com")
    assert window_of(tmp_path, model, real) == (1_000_000, True)


def test_a_custom_base_url_leaves_a_1m_native_model_200k_without_1m_in_its_name(
    tmp_path: Path,
) -> None:
    proxy = env(ANTHROPIC_BASE_URL="http://127.0.0.1:4000")
    assert window_of(tmp_path, "claude-opus-4-8", proxy) == (200_000, True)
    named = proxy | env(ANTHROPIC_MODEL="claude-opus-4-8[1m]")
    assert window_of(tmp_path, "claude-opus-4-8", named) == (1_000_000, True)


@pytest.mark.parametrize(
    "provider", ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"]
)
def test_a_third_party_provider_is_assumed_to_give_the_smaller_window(
    tmp_path: Path, provider: str
) -> None:
    assert window_of(tmp_path, "claude-opus-4-8", env(**{provider: "1"})) == (200_000, True)
    assert window_of(tmp_path, "claude-opus-4-8", env(**{provider: "0"})) == (1_000_000, True)


def test_disabling_1m_beats_a_1m_model_name(tmp_path: Path) -> None:
    settings = env(CLAUDE_CODE_DISABLE_1M_CONTEXT="true", ANTHROPIC_MODEL="opus[1m]")
    assert window_of(tmp_path, "claude-opus-4-8", settings) == (200_000, True)


@pytest.mark.parametrize(
    ("configured", "window"),
    [
        ("claude-sonnet-4-6[1m]", 1_000_000),
        ("sonnet[1M]", 1_000_000),  # Claude Code's /\[1m\]/i: any case
        ("claude-sonnet-4-6", 200_000),
        ("opus[1m]", 200_000),  # names another family: /model switched since
        ("claude-opus-4-8[1m]", 200_000),
    ],
)
def test_a_model_that_needs_the_beta_has_1m_only_when_named_with_1m(
    tmp_path: Path, configured: str, window: int
) -> None:
    settings = env(ANTHROPIC_MODEL=configured)
    assert window_of(tmp_path, "claude-sonnet-4-6", settings) == (window, True)


def test_the_settings_model_counts_below_anthropic_model(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"model": "sonnet[1m]"}), encoding="utf-8")
    path = session_of(tmp_path, "claude-sonnet-4-6")
    first = to_json_dict(scored(path, tmp_path).report)["session"]
    assert (first["context_window"], first["context_window_source"]) == (1_000_000, "assumed")
    assert first["context_window_rule"] == (
        f"model=sonnet[1m] ({settings}) asks Claude Code for claude-sonnet-4-6's 1M window"
    )
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-sonnet-4-6")  # wins, and has no [1m]
    assert scored(path, tmp_path).report.context_window == 200_000


# --- what the report says, and the room it promises ---------------------------------------


def test_behind_a_proxy_a_1m_native_session_is_told_where_the_host_really_compacts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = session_of(tmp_path, "claude-opus-4-8")  # 100,010 tokens, no compaction yet
    before = scored(path, tmp_path).report
    assert before.tokens_until_compaction == 967_000 - 100_010  # nothing says otherwise
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://user:sk-not-shown@llm.example.com/v1")
    report = scored(path, tmp_path).report
    assert report.tokens_until_compaction == 167_000 - 100_010  # not 866,990
    session = to_json_dict(report)["session"]
    assert (session["context_window"], session["context_window_source"]) == (200_000, "assumed")
    assert session["context_window_rule"] == (
        "ANTHROPIC_BASE_URL points at llm.example.com, not api.anthropic.com, so Claude Code "
        "gives claude-opus-4-8 the 1M window only when it is named with [1m]"
    )
    line = render_session_line(report)
    assert "100,010 of 200,000 tokens · 200,000-token window assumed (ANTHROPIC_BASE_URL" in line
    assert "66,990 tokens before the host compacts" in line
    assert "sk-not-shown" not in line + json.dumps(session)


def test_the_text_says_a_1m_window_is_assumed_and_why(tmp_path: Path) -> None:
    report = scored(session_of(tmp_path, "claude-opus-4-8"), tmp_path).report
    assert (
        "100,010 of 1,000,000 tokens · 1,000,000-token window assumed (Claude Code gives "
        "claude-opus-4-8 the 1M window on api.anthropic.com, and no other base URL or "
        "provider is set) · 866,990 tokens before the host compacts"
    ) in render_session_line(report)


def test_a_window_that_is_not_assumed_is_not_called_so(tmp_path: Path) -> None:
    report = scored(session_of(tmp_path, "claude-haiku-4-5-20251001"), tmp_path).report
    assert report.window_source == "file"
    assert "assumed" not in render_session_line(report)


def test_the_window_claude_codes_status_line_reported_beats_the_assumption(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")
    project = isolated_home / ".claude" / "projects" / "-home-dev-app"
    path = session_of(project, "claude-opus-4-8")
    path = path.rename(project / f"{SESSION_ID}.jsonl")
    assert scored(path, isolated_home).report.window_source == "assumed"
    write_host_window(SESSION_ID, 1_000_000)
    report = scored(path, isolated_home).report
    assert (report.context_window, report.window_source, report.window_rule) == (
        1_000_000,
        "host",
        None,
    )
    assert report.tokens_until_compaction == 967_000 - 100_010


# --- real sessions ------------------------------------------------------------------------


def test_the_generated_session_behind_a_fake_model_gets_167000_from_either_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Claude Code 2.1.197 wrote it against a fake model at ANTHROPIC_BASE_URL=127.0.0.1, each
    # turn a `claude -p --resume`: claude-opus-4-8 without [1m], so 200,000 tokens, and it
    # auto-compacted at 167,016 (compactMetadata.preTokens). 27,000 tokens are in context.
    path = corpus_file("generated/claude/claude-long-26turns-compact.jsonl")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:41825")
    report = scored(path, tmp_path).report
    assert (report.context_window, report.window_source) == (200_000, "assumed")
    assert report.usable_window == 167_000  # 200,000 − 20,000 − 13,000
    assert report.tokens_until_compaction == 140_000
    # Without the variable, Claude Code would give the model 1M: assumed so, the
    # transcript's own compaction point still sets the room left.
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    report = scored(path, tmp_path).report
    assert (report.context_window, report.window_source) == (1_000_000, "assumed")
    assert report.usable_window == 167_016
    assert report.tokens_until_compaction == 140_016


def test_a_real_opus_4_7_session_on_anthropics_api_is_assumed_1m(tmp_path: Path) -> None:
    path = corpus_file(
        "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    )
    report = scored(path, tmp_path).report
    assert (report.context_window, report.window_source) == (1_000_000, "assumed")
    assert report.tokens_until_compaction == 967_000 - 66_603  # its latest request
