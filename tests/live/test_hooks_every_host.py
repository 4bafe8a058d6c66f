"""The hooks on every host: each reads its host's payload and answers in its host's shape;
what a compaction dropped comes back to the model once, right after the compaction; the
model hears of a coming compaction once per cycle; Gemini CLI's waiting handoff comes with
its first prompt; Cursor's session start hands a handoff over in its own field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ledger_sessions import (
    DROPPED_RULE_1,
    ERROR_LINE,
    KEPT_RULE_1,
    Event,
    story,
    write_claude,
    write_codex,
    write_gemini,
)

from driftguard.live.hooks import run_hook
from driftguard.store import livecache
from driftguard.store.handoff_files import save_handoff

SESSION_ID = "7e1d9c2a-5b4f-4e3d-9c2b-1a0f9e8d7c6b"  # the ledger story's session id
STORY = story(pre_tokens=20_000)
"""The ledger story, with a context small enough that no other notice is due."""
BEFORE_COMPACTION = STORY[:5]
"""The story up to the reply before its compaction."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    return root


def payload(transcript: Path | None, project: Path, event: str, **fields: Any) -> bytes:
    common: dict[str, Any] = {
        "session_id": SESSION_ID,
        "cwd": str(project),
        "hook_event_name": event,
    }
    if transcript is not None:
        common["transcript_path"] = str(transcript)
    return json.dumps({**common, **fields}).encode()


def context(output: str, event: str) -> str:
    """The additionalContext of a hook's output, checking its shape."""
    data = json.loads(output)
    assert data == {
        "hookSpecificOutput": {
            "hookEventName": event,
            "additionalContext": data["hookSpecificOutput"]["additionalContext"],
        }
    }
    text: str = data["hookSpecificOutput"]["additionalContext"]
    return text


def claude_transcript(home: Path, events: list[Event]) -> Path:
    folder = home / ".claude" / "projects" / "-home-dev-shop"
    return write_claude(folder / f"{SESSION_ID}.jsonl", events)


def hook(event: str, raw: bytes, host: str = "claude_code", **env: str) -> str:
    return run_hook(event, raw, env={**env}, host=host)


def save_waiting_handoff(
    project: Path, text: str = "## What we accomplished\n- the importer"
) -> None:
    save_handoff(project, text, {"session_id": "another-session", "cli": "claude_code"})


# --- what a compaction dropped ----------------------------------------------------------


def test_claude_codes_next_prompt_after_a_compaction_hears_what_it_dropped_once(
    isolated_home: Path, project: Path
) -> None:
    transcript = claude_transcript(isolated_home, BEFORE_COMPACTION)
    stop = payload(transcript, project, "Stop", last_assistant_message="one test still fails")
    assert hook("stop", stop) == ""
    first = payload(transcript, project, "UserPromptSubmit", prompt="go on")
    assert DROPPED_RULE_1 not in hook("user-prompt-submit", first)  # nothing compacted yet
    claude_transcript(isolated_home, STORY)  # the host compacts and writes its boundary
    start = payload(transcript, project, "SessionStart", source="compact")
    assert hook("session-start", start) == ""  # Claude Code writes the boundary after it
    told = context(hook("user-prompt-submit", first), "UserPromptSubmit")
    assert told.startswith("driftguard: the compaction just now (automatic at 20,000 tokens)")
    assert f"- the user's rule: “{DROPPED_RULE_1}”" in told
    assert f"- an error not fixed yet: “{ERROR_LINE}”" in told
    assert "- a file edited before it: src/db.py" in told
    assert KEPT_RULE_1 not in told  # the summary kept it
    assert len(told) <= 1_500
    assert hook("user-prompt-submit", first) == ""  # once per compaction


def test_a_compaction_the_stop_hook_saw_is_told_at_the_next_prompt_from_the_cache(
    isolated_home: Path, project: Path
) -> None:
    transcript = claude_transcript(isolated_home, BEFORE_COMPACTION)
    prompt = payload(transcript, project, "UserPromptSubmit", prompt="go on")
    hook("stop", payload(transcript, project, "Stop"))
    hook("user-prompt-submit", prompt)
    claude_transcript(isolated_home, STORY)  # compacted mid-turn: no prompt in between
    hook("stop", payload(transcript, project, "Stop"))
    status = livecache.read_status(SESSION_ID)
    assert status is not None
    assert status.compactions == 1
    assert status.reinject is not None
    assert DROPPED_RULE_1 in context(hook("user-prompt-submit", prompt), "UserPromptSubmit")


def test_reinject_false_in_the_projects_config_keeps_it_quiet(
    isolated_home: Path, project: Path
) -> None:
    (project / ".driftcli").write_text(json.dumps({"reinject": False}), encoding="utf-8")
    transcript = claude_transcript(isolated_home, BEFORE_COMPACTION)
    prompt = payload(transcript, project, "UserPromptSubmit", prompt="go on")
    hook("user-prompt-submit", prompt)
    claude_transcript(isolated_home, STORY)
    hook("session-start", payload(transcript, project, "SessionStart", source="compact"))
    assert hook("user-prompt-submit", prompt) == ""


def test_codexs_session_start_after_a_compaction_says_what_it_dropped_at_once(
    isolated_home: Path, project: Path
) -> None:
    transcript = write_codex(isolated_home / ".codex", BEFORE_COMPACTION)
    prompt = payload(transcript, project, "UserPromptSubmit", prompt="go on", turn_id="t1")
    assert hook("user-prompt-submit", prompt, host="codex_cli") == ""
    write_codex(isolated_home / ".codex", STORY)  # Codex writes `compacted` first
    start = payload(transcript, project, "SessionStart", source="compact", model="gpt-5-codex")
    told = context(hook("session-start", start, host="codex_cli"), "SessionStart")
    assert DROPPED_RULE_1 in told
    assert hook("user-prompt-submit", prompt, host="codex_cli") == ""  # told already


def test_geminis_first_prompt_after_a_compression_the_stop_hook_saw_hears_what_it_dropped(
    isolated_home: Path, project: Path
) -> None:
    chats = isolated_home / ".gemini" / "tmp" / "shop" / "chats"
    transcript = write_gemini(chats / "session-2026-11-30T10-00-7e1d9c2a.jsonl", BEFORE_COMPACTION)
    before = payload(transcript, project, "BeforeAgent", prompt="go on")
    after = payload(transcript, project, "AfterAgent", prompt="go on", prompt_response="ok")
    assert hook("stop", after, host="gemini_cli") == "{}"  # Gemini wants JSON on stdout
    assert DROPPED_RULE_1 not in hook("user-prompt-submit", before, host="gemini_cli")
    write_gemini(transcript, STORY)  # compressed before the next model call
    assert hook("stop", after, host="gemini_cli") == "{}"
    told = context(hook("user-prompt-submit", before, host="gemini_cli"), "BeforeAgent")
    assert DROPPED_RULE_1 in told


# --- handoffs -------------------------------------------------------------------------


def test_gemini_hands_a_waiting_handoff_over_with_the_first_prompt_not_at_session_start(
    isolated_home: Path, project: Path
) -> None:
    save_waiting_handoff(project)
    transcript = project / "session.jsonl"
    start = payload(transcript, project, "SessionStart", source="startup")
    assert hook("session-start", start, host="gemini_cli", GEMINI_PROJECT_DIR=str(project)) == "{}"
    before = payload(transcript, project, "BeforeAgent", prompt="hello")
    env = {"GEMINI_PROJECT_DIR": str(project)}
    told = context(hook("user-prompt-submit", before, host="gemini_cli", **env), "BeforeAgent")
    assert "the importer" in told
    assert hook("user-prompt-submit", before, host="gemini_cli", **env) == "{}"  # once


def test_codex_hands_a_waiting_handoff_over_at_session_start(
    isolated_home: Path, project: Path
) -> None:
    save_waiting_handoff(project)
    start = payload(project / "rollout.jsonl", project, "SessionStart", source="startup")
    told = context(hook("session-start", start, host="codex_cli"), "SessionStart")
    assert "the importer" in told


def test_cursors_session_start_hands_a_handoff_over_in_additional_context(
    isolated_home: Path, project: Path
) -> None:
    save_waiting_handoff(project)
    raw = json.dumps(
        {
            "conversation_id": "c0ffee00-1111-4222-8333-444455556666",
            "generation_id": "g-1",
            "hook_event_name": "sessionStart",
            "session_id": "c0ffee00-1111-4222-8333-444455556666",
            "workspace_roots": [str(project)],
            "transcript_path": None,
            "is_background_agent": False,
        }
    ).encode()
    output = json.loads(hook("session-start", raw, host="cursor"))
    assert set(output) == {"additional_context"}
    assert "the importer" in output["additional_context"]


def test_cursor_has_no_hook_that_speaks_before_a_prompt(project: Path) -> None:
    raw = json.dumps({"conversation_id": "c", "prompt": "hi", "workspace_roots": []}).encode()
    assert hook("user-prompt-submit", raw, host="cursor") == "{}"


# --- a coming compaction ----------------------------------------------------------------


def _cached(score: int = 20, context_tokens: int = 150_000, compactions: int = 0) -> None:
    livecache.write_status(
        livecache.LiveStatus(
            session_id=SESSION_ID,
            cli="claude_code",
            transcript_path="/nowhere.jsonl",
            transcript_size=1,
            ts=0.0,
            score=score,
            state="fresh",
            factors={},
            messages=10,
            context_tokens=context_tokens,
            context_window=200_000,
            tokens_estimated=False,
            handoff_suggested=False,
            warn_threshold=61,
            usable_window=167_000,
            growth_per_turn=9_000,
            compactions=compactions,
        )
    )


def test_the_model_is_told_once_per_cycle_that_the_host_will_compact_soon(
    isolated_home: Path, project: Path
) -> None:
    prompt = payload(None, project, "UserPromptSubmit", prompt="go on")
    _cached(context_tokens=140_000)  # 27,000 left at 9,000 a turn: 3 turns
    hook("user-prompt-submit", prompt)
    assert hook("user-prompt-submit", prompt) == ""
    _cached(context_tokens=155_000)  # 12,000 left: 2 turns
    told = context(hook("user-prompt-submit", prompt), "UserPromptSubmit")
    assert told.startswith("driftguard: 12,000 tokens are left before the host compacts")
    assert "within about 2 turns" in told
    assert "save_handoff" in told
    assert hook("user-prompt-submit", prompt) == ""  # once in this cycle
    _cached(context_tokens=160_000, compactions=1)  # compacted, and near again
    assert "tokens are left" in context(hook("user-prompt-submit", prompt), "UserPromptSubmit")


def test_the_loop_notice_tells_the_model_to_step_back_not_to_start_over(
    isolated_home: Path, project: Path
) -> None:
    from driftguard.live.hooks import loop_notice

    _cached()
    status = livecache.read_status(SESSION_ID)
    assert status is not None
    text = loop_notice(status)
    assert "Stop repeating the same call" in text
    assert "change the approach or ask the user" in text
    assert "fresh" not in text


def test_geminis_prompt_hook_scores_a_turn_its_loop_detector_ended_without_a_stop_hook(
    isolated_home: Path, project: Path
) -> None:
    chats = isolated_home / ".gemini" / "tmp" / "shop" / "chats"
    path = chats / "session-2026-11-30T10-00-7e1d9c2a.jsonl"
    start = [Event("prompt", "Make the tests pass."), Event("reply", "Looking.", tokens=9_000)]
    transcript = write_gemini(path, start)
    after = payload(transcript, project, "AfterAgent", prompt="go", prompt_response="Looking.")
    hook("stop", after, host="gemini_cli")
    failing = Event("shell", "npm test", output="npm error code ENOENT", failed=True)
    looped = [*start, Event("prompt", "Run them."), *[failing] * 4]
    write_gemini(path, looped)  # Gemini's detector stopped the turn: no AfterAgent ran
    before = payload(transcript, project, "BeforeAgent", prompt="what now?")
    told = context(hook("user-prompt-submit", before, host="gemini_cli"), "BeforeAgent")
    assert "driftguard: the last tool calls repeat (npm test ×4)" in told
