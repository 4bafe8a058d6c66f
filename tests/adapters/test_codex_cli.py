"""Codex CLI adapter: real rollouts from the shared corpus, and small synthetic rollouts.

Every synthetic record below is written here in our own words; none is copied from a real file.
Corpus facts were established by reading the raw JSON with one-off ``python3 -c`` scripts
(``json.loads`` per line, then filtering by ``type`` / ``payload.type``), never with this parser;
each test says what was counted.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from conftest import corpus_file

from driftguard.adapters import codex_cli, parse_session
from driftguard.adapters._common import estimate_tokens
from driftguard.adapters.codex_cli import DEFAULT_CONTEXT_WINDOW, CodexCliParser
from driftguard.errors import SessionFormatError
from driftguard.model import ParsedMessage, Session

CORPUS_FILES = (
    "codex/codex_v0.39.0_vscode_vibecodingtracker.jsonl",
    "codex/codex_REDACTED_schema-catalog_v0.146_agentsessions.jsonl",
    "generated/codex/codex-ping-1turn.jsonl",
    "generated/codex/codex-long-24turns-compact.jsonl",
)

SESSION_ID = "0199aaaa-0000-7000-8000-00000000beef"


# --------------------------------------------------------------------------- helpers


def _write(folder: Path, records: Iterable[dict[str, Any] | bytes], name: str = "") -> Path:
    """Write ``records`` as a rollout under a real-looking ``sessions/YYYY/MM/DD`` folder."""
    day = folder / "sessions" / "2026" / "03" / "04"
    day.mkdir(parents=True, exist_ok=True)
    path = day / (name or f"rollout-2026-03-04T10-00-00-{SESSION_ID}.jsonl")
    with path.open("wb") as fh:
        for record in records:
            fh.write(record if isinstance(record, bytes) else json.dumps(record).encode() + b"\n")
    return path


def _line(kind: str, payload: object, second: int = 0) -> dict[str, Any]:
    return {"timestamp": f"2026-03-04T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def _meta(ident: str = SESSION_ID, cwd: str = "/work/demo", **extra: Any) -> dict[str, Any]:
    return _line("session_meta", {"id": ident, "cwd": cwd, "cli_version": "0.150.0", **extra})


def _turn_context(model: str = "gpt-5.5", cwd: str = "/work/demo") -> dict[str, Any]:
    return _line("turn_context", {"model": model, "cwd": cwd, "approval_policy": "never"})


def _user(text: str, **extra: Any) -> dict[str, Any]:
    content = [{"type": "input_text", "text": text}]
    return _line("response_item", {"type": "message", "role": "user", "content": content, **extra})


def _assistant(*parts: str, **extra: Any) -> dict[str, Any]:
    content = [{"type": "output_text", "text": part} for part in parts]
    payload = {"type": "message", "role": "assistant", "content": content}
    return _line("response_item", payload | extra)


def _call(name: str, arguments: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    payload = {
        "type": "function_call",
        "name": name,
        "arguments": json.dumps(arguments),
        "call_id": call_id,
    }
    return _line("response_item", payload)


def _output(output: object, call_id: str = "c1") -> dict[str, Any]:
    payload = {"type": "function_call_output", "call_id": call_id, "output": output}
    return _line("response_item", payload)


def _usage(total: int, inputs: int | None = None, outputs: int = 10) -> dict[str, int]:
    inputs = total - outputs if inputs is None else inputs
    return {
        "input_tokens": inputs,
        "cached_input_tokens": 0,
        "output_tokens": outputs,
        "reasoning_output_tokens": 0,
        "total_tokens": total,
    }


def _tokens(
    last: int | dict[str, int],
    total: int | dict[str, int],
    window: int | None = 258_400,
) -> dict[str, Any]:
    info = {
        "last_token_usage": _usage(last) if isinstance(last, int) else last,
        "total_token_usage": _usage(total) if isinstance(total, int) else total,
        "model_context_window": window,
    }
    return _line("event_msg", {"type": "token_count", "info": info, "rate_limits": None})


def _event(sub: str, **fields: Any) -> dict[str, Any]:
    return _line("event_msg", {"type": sub, **fields})


def _parse(tmp_path: Path, records: Iterable[dict[str, Any] | bytes]) -> Session:
    return codex_cli.parse(_write(tmp_path, records))


def _roles(session: Session) -> list[str]:
    return [("summary" if m.is_summary else m.role) for m in session.messages]


def _of(session: Session, role: str) -> list[ParsedMessage]:
    return [m for m in session.messages if m.role == role and not m.is_summary]


# --------------------------------------------------------------------------- corpus


def test_the_corpus_list_names_every_codex_rollout() -> None:
    root = corpus_file("codex").parent
    found = {
        path.relative_to(root).as_posix()
        for pattern in ("codex/*.jsonl", "generated/codex/*.jsonl")
        for path in root.glob(pattern)
        if not path.name.endswith(".requests.jsonl")
    }
    assert found == set(CORPUS_FILES)


@pytest.mark.parametrize("relative", CORPUS_FILES)
def test_every_corpus_rollout_parses_without_error(relative: str) -> None:
    session = codex_cli.parse(corpus_file(relative))
    assert session.cli == "codex_cli"
    assert session.context_tokens >= 0


def test_ping_sample_counts_one_prompt_one_answer_and_its_usage() -> None:
    session = codex_cli.parse(corpus_file("generated/codex/codex-ping-1turn.jsonl"))
    # 19 lines, all valid JSON of known kinds (type/payload.type tally): nothing skipped.
    assert session.skipped_lines == 0
    assert session.compactions == 0
    # session_meta (line 1) payload.id.
    assert session.session_id == "01a22bb4-dfbe-7a90-916f-b4e17c6b15de"
    assert session.cwd == "/home/user/proj"
    # The only turn_context says model gpt-5-codex.
    assert session.model == "gpt-5-codex"
    # Two user-role response items: <environment_context> (harness) and the typed prompt
    # (61 characters, provenance "user").
    assert [len(m.content) for m in _of(session, "user")] == [61]
    # One assistant message item; item_completed/task_complete repeat its text.
    assert len(_of(session, "assistant")) == 1
    # Last token_count: last_token_usage.total_tokens 10770, total advanced 10684 → 21454;
    # model_context_window 258400 on both token_count events and on task_started.
    assert session.context_tokens == 10_770
    assert not session.tokens_estimated
    assert session.context_window == 258_400
    # The answer (line 16) is followed by that token_count (line 18) within the turn.
    assert _of(session, "assistant")[0].token_count == 10_770
    # The function_call has namespace mcp__tiny and name ping, and no text in its response.
    assert _roles(session) == ["user", "tool", "tool", "assistant"]
    assert [c.name for c in session.messages[1].tool_calls] == ["mcp__tiny__ping"]


def test_long_sample_remembers_only_what_follows_codex_compaction() -> None:
    session = codex_cli.parse(corpus_file("generated/codex/codex-long-24turns-compact.jsonl"))
    # One `compacted` line (line 201 of 313); no other line kind is unknown.
    assert session.compactions == 1
    assert session.skipped_lines == 0
    assert session.session_id == "01a22bb6-872f-74a1-8539-a88ad0ca9164"
    # After the compacted line: user items "Turn 16" … "Turn 24" and 9 assistant items.
    users = _of(session, "user")
    assert [m.content.split(":")[0] for m in users] == [f"Turn {n}" for n in range(16, 25)]
    assert len(_of(session, "assistant")) == 9
    # The summary is the compacted payload.message (624 characters; it is also the last of the
    # 18 replacement_history items); that history's 15 old prompts are not remembered here.
    summary = session.messages[0]
    assert summary.is_summary
    assert summary.role == "user"
    assert len(summary.content) == 624
    assert sum(m.is_summary for m in session.messages) == 1
    # Four ping calls after the compaction (turns 17, 19, 21, 23), each with its output.
    carriers = [m for m in session.messages if m.role == "tool" and m.tool_calls]
    assert len(carriers) == 4
    assert len(_of(session, "tool")) == 8
    # Last token_count (line 312): last_token_usage.total_tokens 104012; window 190000
    # (95 % of the configured 200000) on every token_count and task_started.
    assert session.context_tokens == 104_012
    assert session.context_window == 190_000
    assert session.model == "gpt-5-codex"
    # The first answer after compaction ("ack #1: Turn 16") is followed by token_count 20012;
    # the token_count right after the compacted line repeats total 2251288 (a re-emit).
    assert _of(session, "assistant")[0].token_count == 20_012


def test_vscode_039_sample_attributes_usage_written_before_each_response() -> None:
    path = corpus_file("codex/codex_v0.39.0_vscode_vibecodingtracker.jsonl")
    session = codex_cli.parse(path)
    assert session.skipped_lines == 0
    assert session.compactions == 0
    assert session.session_id == "01996135-afde-7911-97f0-d863511eca56"
    assert session.cwd == "/proj/ds906659/gai/claude-code"
    # All 19 turn_context lines say aide-gpt-5 (a custom provider's model).
    assert session.model == "aide-gpt-5"
    # User items: <environment_context> (harness) and the IDE-wrapped prompt (327 characters,
    # equal to the event_msg/user_message text, which is not counted again).
    assert [len(m.content) for m in _of(session, "user")] == [327]
    # Nine assistant message items (event_msg/agent_message repeats each of them).
    assistants = _of(session, "assistant")
    assert len(assistants) == 9
    # 18 function_call_output items → 18 tool results.
    assert sum(1 for m in _of(session, "tool") if not m.tool_calls) == 18
    # 19 token_count events, none a re-emit; the last has last_token_usage.total_tokens
    # 24158 and every model_context_window is null, and there is no task_started.
    assert session.context_tokens == 24_158
    assert session.context_window == DEFAULT_CONTEXT_WINDOW
    # In 0.39 a request's token_count precedes its items: line 7 (6455) precedes the first
    # answer (line 9), line 104 (24158) precedes the last one (line 106).
    assert assistants[0].token_count == 6_455
    assert assistants[-1].token_count == 24_158
    # The first answer's response also called update_plan (line 10).
    assert [c.name for c in assistants[0].tool_calls] == ["update_plan"]


def test_schema_catalog_keeps_only_the_last_compaction_window() -> None:
    path = corpus_file("codex/codex_REDACTED_schema-catalog_v0.146_agentsessions.jsonl")
    session = codex_cli.parse(path)
    # 118 lines, all valid JSON; top-level kinds: session_meta, turn_context, world_state,
    # event_msg, response_item, compacted, inter_agent_communication_metadata (all known).
    assert session.skipped_lines == 0
    # Six `compacted` lines (lines 26, 47, 69, 81, 89, 111); one context_compacted event.
    assert session.compactions == 6
    assert session.session_id == "019fc8be-3658-7ca3-9e29-000000000000"
    # The last turn_context (line 100) names gpt-5.6-sol.
    assert session.model == "gpt-5.6-sol"
    # After line 111: a function_call (no text), its output, an inter-agent agent_message
    # item and item_completed events: no user or assistant message, and no token_count.
    assert session.message_count == 0
    assert _roles(session) == ["summary", "tool", "tool"]
    assert session.tokens_estimated
    expected = sum(len(m.content) for m in session.messages) // 4
    assert session.context_tokens == expected
    # model_context_window: 258400 (token_count line 22, task_started line 5); the later
    # zeros (redacted values) are not windows.
    assert session.context_window == 258_400


# --------------------------------------------------------------------------- generations


def test_first_generation_bare_items_parse_without_token_counts(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [
        {"id": SESSION_ID, "timestamp": "2025-06-01T08:00:00.000Z", "instructions": None},
        {"record_type": "state"},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "<user_instructions>\nbe brief\n"}],
        },
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "<environment_context>\n<cwd>/srv/old</cwd>\n</environment_context>",
                }
            ],
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "count the lines in notes.txt"}],
        },
        {"record_type": "state", "previous_response_id": "resp_1"},
        {
            "type": "local_shell_call",
            "call_id": "s1",
            "status": "completed",
            "action": {"type": "exec", "command": ["wc", "-l", "notes.txt"]},
        },
        {"type": "function_call_output", "call_id": "s1", "output": "12 notes.txt"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "notes.txt has twelve lines."}],
        },
    ]
    session = _parse(tmp_path, records)
    assert session.session_id == SESSION_ID
    assert session.skipped_lines == 0
    assert _roles(session) == ["user", "tool", "tool", "assistant"]
    assert session.messages[0].content == "count the lines in notes.txt"
    assert session.messages[1].tool_calls[0].name == "local_shell"
    assert session.messages[1].tool_calls[0].command == "wc -l notes.txt"
    assert session.messages[2].content == "12 notes.txt"
    # G1 has no usage, no model, no cwd field: estimate, default window, cwd from the
    # injected environment context.
    assert session.tokens_estimated
    assert session.context_tokens == sum(len(m.content) for m in session.messages) // 4
    assert session.context_window == DEFAULT_CONTEXT_WINDOW
    assert session.model is None
    assert session.cwd == "/srv/old"
    assert session.messages[3].timestamp is None


def test_first_generation_file_is_detected_and_parsed_through_the_registry(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path,
        [
            {"id": SESSION_ID, "timestamp": "2025-06-01T08:00:00.000Z", "instructions": ""},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        ],
    )
    session = parse_session(path)
    assert session.cli == "codex_cli"
    assert session.message_count == 1


# --------------------------------------------------------------------------- tokens


def test_re_emitted_token_count_is_not_the_latest(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("rename the helper"),
            _tokens(last=1_000, total=1_000),
            _assistant("Renamed it."),
            _tokens(last=1_500, total=2_500),
            # Same cumulative total as before: a re-emit, whatever its last usage says.
            _tokens(last=9_999, total=2_500),
        ],
    )
    assert session.context_tokens == 1_500
    assert not session.tokens_estimated


def test_lower_total_starts_a_new_baseline(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("first"),
            _tokens(last=40_000, total=90_000),
            _user("second"),
            _tokens(last=3_000, total=3_000),  # the total went down: real, a new baseline
            _tokens(last=7_777, total=3_000),  # repeats the new baseline: a re-emit
        ],
    )
    assert session.context_tokens == 3_000


def test_info_null_token_count_carries_no_usage(tmp_path: Path) -> None:
    null_event = _line("event_msg", {"type": "token_count", "info": None, "rate_limits": None})
    only_null = _parse(tmp_path / "a", [_meta(), _user("hello there"), null_event])
    assert only_null.tokens_estimated
    assert only_null.context_tokens == len("hello there") // 4
    after_real = _parse(
        tmp_path / "b", [_meta(), _user("hello"), _tokens(last=500, total=500), null_event]
    )
    assert after_real.context_tokens == 500


def test_zero_usage_is_never_the_latest(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [_meta(), _user("go"), _tokens(last=800, total=800), _tokens(last=0, total=0)],
    )
    assert session.context_tokens == 800


def test_fill_to_context_window_events_are_synthetic(tmp_path: Path) -> None:
    window = 258_400
    padded_total = {**_usage(0, inputs=0, outputs=0), "total_tokens": window}
    padded_last = {**_usage(0, inputs=0, outputs=0), "total_tokens": window - 9_000}
    filled_last = {**_usage(0, inputs=window, outputs=0), "total_tokens": window}
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("go"),
            _tokens(last=9_000, total=9_000),
            # Older builds: total set to the window, last = the padding delta, all else 0.
            _tokens(last=padded_last, total=padded_total),
            # Newer builds: last = the whole window as input, no output.
            _tokens(last=filled_last, total=_usage(2 * window)),
        ],
    )
    assert session.context_tokens == 9_000


def test_usage_before_the_last_compaction_is_not_used(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("long task"),
            _tokens(last=170_000, total=170_000),
            _line("compacted", {"message": "we fixed the parser", "replacement_history": []}),
        ],
    )
    assert session.tokens_estimated
    assert session.context_tokens == len("we fixed the parser") // 4


def test_context_window_is_the_latest_positive_value_in_the_file(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _event("task_started", model_context_window=121_600),
            _user("go"),
            _tokens(last=100, total=100, window=None),
            _tokens(last=200, total=300, window=0),
        ],
    )
    assert session.context_window == 121_600


def test_assistant_token_count_is_the_usage_written_after_its_response(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _event("task_started", model_context_window=258_400),
            _turn_context(),
            _user("check the build"),
            _call("shell", {"command": ["make"]}),
            _output("ok"),
            _tokens(last=12_000, total=12_000),  # usage of the tool-call request
            _assistant("The build passes."),
            _tokens(last=12_300, total=24_300),  # usage of the answer's request
            _event("task_complete", last_agent_message="The build passes."),
            _user("and the tests?"),
            _assistant("Not run yet."),
            _event("task_complete", last_agent_message="Not run yet."),
        ],
    )
    first, second = _of(session, "assistant")
    assert first.token_count == 12_300
    assert second.token_count is None  # its turn ended before any usage
    assert first.model == "gpt-5.5"


# --------------------------------------------------------------------------- compaction


def test_compacted_line_keeps_its_summary_and_drops_what_came_before(tmp_path: Path) -> None:
    retained = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "an old prompt"}],
    }
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("an old prompt"),
            _assistant("old answer"),
            _line(
                "compacted",
                {"message": "Summary: the parser is done.", "replacement_history": [retained]},
                second=5,
            ),
            _event("context_compacted"),  # the same event, for the UI: not counted again
            _user(
                "next step",
            ),
            _assistant("new answer"),
            _tokens(last=4_000, total=900_000),
        ],
    )
    assert session.compactions == 1
    assert _roles(session) == ["summary", "user", "assistant"]
    summary = session.messages[0]
    assert summary.role == "user"
    assert summary.content == "Summary: the parser is done."
    assert summary.timestamp == pytest.approx(1772618405.0)
    assert session.message_count == 2
    assert session.context_tokens == 4_000


def test_compacted_line_with_an_empty_message_has_no_summary(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("one"),
            _line("compacted", {"message": ""}),
            _line("compacted", {"message": "   "}),
            _user("two"),
        ],
    )
    assert session.compactions == 2
    assert _roles(session) == ["user"]


def test_thread_rolled_back_drops_the_last_user_turns(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("keep me"),
            _assistant("kept"),
            _user("drop me"),
            _assistant("dropped"),
            _event("thread_rolled_back", num_turns=1),
            _user("instead this"),
        ],
    )
    assert [m.content for m in session.messages] == ["keep me", "kept", "instead this"]


# --------------------------------------------------------------------------- messages


def test_prompt_written_as_item_and_as_event_counts_once(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("tidy the imports"),
            _event("user_message", message="tidy the imports", kind="plain"),
            _event("agent_message", message="Done."),
            _assistant("Done."),
            _event(
                "item_completed",
                item={"type": "AgentMessage", "content": [{"type": "Text", "text": "Done."}]},
            ),
            _event("task_complete", last_agent_message="Done."),
        ],
    )
    assert _roles(session) == ["user", "assistant"]
    assert session.message_count == 2


@pytest.mark.parametrize(
    "text",
    [
        "<environment_context>\n  <cwd>/work/demo</cwd>\n</environment_context>",
        "<user_instructions>\nUse tabs.\n</user_instructions>",
        "# AGENTS.md instructions for /work/demo\n\n<INSTRUCTIONS>\nRun tests.\n</INSTRUCTIONS>",
        "<INSTRUCTIONS>\nRun tests.\n</INSTRUCTIONS>",
        "<skills_instructions>\nA skill list.\n</skills_instructions>",
        "<skill>\n<name>demo</name>\n</skill>",
        "<user_shell_command>\nls\n</user_shell_command>",
        "<turn_aborted>\nThe user stopped the turn.\n</turn_aborted>",
        "<subagent_notification>\nhelper finished\n</subagent_notification>",
        '  <hook_prompt hook_run_id="h1">check style</hook_prompt>',
    ],
)
def test_harness_injected_user_items_are_not_user_messages(tmp_path: Path, text: str) -> None:
    session = _parse(tmp_path, [_meta(), _user(text), _user("the real prompt")])
    assert [m.content for m in _of(session, "user")] == ["the real prompt"]


def test_user_items_marked_as_harness_provenance_are_not_user_messages(tmp_path: Path) -> None:
    passthrough = {
        "content_item_kinds": ["environments.something_new"],
        "content_item_metadata": [{"provenance": {"type": "harness", "hook": False}}],
    }
    typed = {"content_item_metadata": [{"provenance": {"type": "user"}}]}
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user(
                "a block the harness wrote", internal_chat_message_metadata_passthrough=passthrough
            ),
            _user("what I typed", internal_chat_message_metadata_passthrough=typed),
        ],
    )
    assert [m.content for m in _of(session, "user")] == ["what I typed"]


def test_developer_messages_and_reasoning_are_never_messages(tmp_path: Path) -> None:
    developer = {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "<permissions instructions>\nread-only"}],
    }
    reasoning = {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "thinking about it"}],
        "encrypted_content": "opaque",
    }
    session = _parse(
        tmp_path,
        [
            _meta(),
            _line("response_item", developer),
            _user("explain the diff"),
            _line("response_item", reasoning),
            _assistant("It renames one function."),
        ],
    )
    assert _roles(session) == ["user", "assistant"]


def test_assistant_text_parts_are_joined_with_newlines(tmp_path: Path) -> None:
    session = _parse(tmp_path, [_meta(), _user("q"), _assistant("first part", "second part")])
    assert _of(session, "assistant")[0].content == "first part\nsecond part"


def test_text_less_responses_are_not_assistant_messages(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [_meta(), _user("q"), _assistant("   "), _assistant(), _call("shell", {"command": "ls"})],
    )
    assert _roles(session) == ["user", "tool"]
    carrier = session.messages[1]
    assert carrier.content == ""
    assert carrier.tool_calls[0].command == "ls"


def test_tool_calls_of_a_text_response_hang_on_its_assistant_message(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("fix the typo"),
            _call("read_file", {"path": "src/a.py"}, call_id="r1"),
            _assistant("Reading, then patching."),
            _call("shell", {"command": ["sed", "-i", "s/teh/the/", "src/a.py"]}, call_id="r2"),
            _output("line 1", call_id="r1"),
            _output("", call_id="r2"),
            _call("shell", {"command": ["pytest"]}, call_id="r3"),
            _output("3 passed", call_id="r3"),
        ],
    )
    assert _roles(session) == ["user", "assistant", "tool", "tool", "tool", "tool"]
    answer = session.messages[1]
    assert [c.name for c in answer.tool_calls] == ["read_file", "shell"]
    assert answer.tool_calls[0].target_path == "src/a.py"
    assert session.messages[4].tool_calls[0].command == "pytest"


def test_apply_patch_custom_tool_call_targets_the_first_file_it_names(tmp_path: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n"
        "*** Add File: docs/notes.md\n+hello\n*** End Patch\n"
    )
    call = {"type": "custom_tool_call", "call_id": "p1", "name": "apply_patch", "input": patch}
    result = {"type": "custom_tool_call_output", "call_id": "p1", "output": "Done!"}
    session = _parse(
        tmp_path,
        [_meta(), _user("patch it"), _line("response_item", call), _line("response_item", result)],
    )
    carrier = session.messages[1]
    assert carrier.tool_calls[0].name == "apply_patch"
    assert carrier.tool_calls[0].target_path == "src/app.py"
    assert session.messages[2].content == "Done!"


def test_web_search_and_namespaced_calls_become_tool_calls(tmp_path: Path) -> None:
    search = {"type": "web_search_call", "status": "completed", "action": {"type": "search"}}
    namespaced = {
        "type": "function_call",
        "name": "lookup",
        "namespace": "mcp__docs",
        "arguments": "{}",
        "call_id": "n1",
    }
    session = _parse(
        tmp_path,
        [
            _meta(),
            _user("find it"),
            _line("response_item", search),
            _line("response_item", namespaced),
        ],
    )
    assert [c.name for c in session.messages[1].tool_calls] == ["web_search", "mcp__docs__lookup"]


@pytest.mark.parametrize(
    ("output", "text", "is_error"),
    [
        (
            json.dumps({"output": "boom\n", "metadata": {"exit_code": 2, "duration_seconds": 0.1}}),
            "boom\n",
            True,
        ),
        (
            json.dumps({"output": "fine\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}),
            "fine\n",
            False,
        ),
        (json.dumps({"content": "sandbox refused", "success": False}), "sandbox refused", True),
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nno such file", None, True),
        ("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nall good", None, False),
        ("Process exited with code 127\nOutput:\nnot found", None, True),
        ("plain text that says Exit code: 3 in passing", None, False),
        (
            [{"type": "input_text", "text": "part one"}, {"type": "input_text", "text": "two"}],
            "part one\ntwo",
            False,
        ),
    ],
)
def test_function_call_output_text_and_error_flag(
    tmp_path: Path, output: object, text: str | None, is_error: bool
) -> None:
    session = _parse(
        tmp_path, [_meta(), _user("run"), _call("shell", {"command": "x"}), _output(output)]
    )
    result = session.messages[-1]
    assert result.role == "tool"
    assert result.content == (output if text is None else text)
    assert result.is_error is is_error


# --------------------------------------------------------------------------- files and lines


def test_model_and_cwd_come_from_the_latest_turn_context(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(cwd="/work/first"),
            _turn_context(model="gpt-5.2", cwd="/work/first"),
            _user("a"),
            _turn_context(model="gpt-5.5", cwd="/work/second"),
            _user("b"),
        ],
    )
    assert session.model == "gpt-5.5"
    assert session.cwd == "/work/second"


def test_fork_keeps_its_own_session_id_and_the_replayed_parent_history(tmp_path: Path) -> None:
    parent = "0199aaaa-0000-7000-8000-0000000000aa"
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}
    session = _parse(
        tmp_path,
        [
            _meta(source=spawn, parent_thread_id=parent),
            _meta(ident=parent, cwd="/work/parent"),
            _user("parent prompt"),  # replayed parent history: the child model sees it
            _assistant("parent answer"),
            _tokens(last=30_000, total=30_000),
            _user("child task"),
            _assistant("child answer"),
            _tokens(last=31_000, total=61_000),
        ],
    )
    assert session.session_id == SESSION_ID
    assert session.cwd == "/work/demo"
    assert session.message_count == 4
    assert session.context_tokens == 31_000


def test_jsonl_zst_rollout_parses_like_the_plain_file(tmp_path: Path) -> None:
    records = [_meta(), _user("compress me"), _assistant("ok"), _tokens(last=700, total=700)]
    plain = _write(tmp_path / "plain", records)
    packed = tmp_path / "archived_sessions" / (plain.name + ".zst")
    packed.parent.mkdir()
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    from_zst = codex_cli.parse(packed)
    from_plain = codex_cli.parse(plain)
    assert from_zst.messages == from_plain.messages
    assert from_zst.context_tokens == 700
    assert from_zst.path == str(packed)


def test_corrupt_zst_file_raises_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "rollout-broken.jsonl.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + b"not a real frame" * 4)
    with pytest.raises(SessionFormatError, match="cannot read"):
        codex_cli.parse(path)


def test_missing_file_raises_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(SessionFormatError):
        codex_cli.parse(tmp_path / "absent.jsonl")


def test_half_written_last_line_is_skipped(tmp_path: Path) -> None:
    whole = json.dumps(_assistant("the end")).encode()
    session = _parse(
        tmp_path, [_meta(), _user("q"), _assistant("an answer"), whole[: len(whole) // 2]]
    )
    assert session.skipped_lines == 1
    assert [m.content for m in _of(session, "assistant")] == ["an answer"]


def test_complete_last_line_without_newline_is_used(tmp_path: Path) -> None:
    session = _parse(tmp_path, [_meta(), _user("q"), json.dumps(_assistant("done")).encode()])
    assert session.skipped_lines == 0
    assert [m.content for m in _of(session, "assistant")] == ["done"]


def test_malformed_and_unknown_lines_are_counted_but_unknown_subtypes_are_not(
    tmp_path: Path,
) -> None:
    session = _parse(
        tmp_path,
        [
            _meta(),
            b"{not json\n",
            b"[1, 2]\n",
            b"42\n",
            b"\n",
            b"   \n",
            _line("brand_new_kind", {"x": 1}),
            _line("event_msg", "not an object"),
            {"something": "else"},
            _event("a_future_event", detail=1),
            _line("response_item", {"type": "a_future_item", "x": 1}),
            _line("world_state", {"full": True, "state": {}}),
            _line("token_usage_record", {"usage": _usage(10)}),
            _line("inter_agent_communication_metadata", {"trigger_turn": False}),
            _user("still fine"),
        ],
    )
    # invalid JSON, a list, a number, an unknown kind, a non-object payload, an object of
    # no known shape: six. Blank lines, known metadata and unknown subtypes: none.
    assert session.skipped_lines == 6
    assert session.message_count == 1


def test_feeding_in_parts_with_snapshots_between_equals_one_parse(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [
        _meta(),
        _event("task_started", model_context_window=200_000),
        _turn_context(),
        _user("step one"),
        _call("shell", {"command": "ls"}),
        _output("a b"),
        _tokens(last=5_000, total=5_000),
        _assistant("Listed."),
        _tokens(last=5_200, total=10_200),
        _event("task_complete"),
        _line("compacted", {"message": "short summary"}),
        _user("step two"),
        _assistant("Second answer."),
        _tokens(last=1_100, total=11_300),
    ]
    path = _write(tmp_path, records)
    whole = codex_cli.parse(path)
    lines = path.read_bytes().splitlines()
    parser = CodexCliParser(str(path))
    snapshots = []
    for line in lines:
        parser.feed(line)
        snapshots.append(parser.session())
    assert parser.session() == whole
    assert snapshots[-1] == whole
    # An early snapshot did not freeze the answer's usage: it was attributed later.
    assert snapshots[7].messages[-1].token_count is None
    assert snapshots[8].messages[-1].token_count == 5_200
    # Snapshots are stable: taking one twice gives equal sessions.
    assert parser.session() == parser.session()


# --------------------------------------------------------------------------- hostile content

TOO_DEEP = b"[" * 100_000 + b"]" * 100_000
"""A JSON line nested far deeper than the decoder's recursion allows."""


def test_a_line_nested_too_deeply_is_skipped_and_counted(tmp_path: Path) -> None:
    session = _parse(
        tmp_path,
        [_meta(), _user("q"), TOO_DEEP + b"\n", _assistant("an answer"), _tokens(900, 900)],
    )
    assert session.skipped_lines == 1
    assert [m.content for m in _of(session, "assistant")] == ["an answer"]
    assert session.context_tokens == 900


def test_call_arguments_and_outputs_nested_too_deeply_are_kept_as_text(tmp_path: Path) -> None:
    deep = TOO_DEEP.decode()
    call = _line(
        "response_item",
        {"type": "function_call", "name": "shell", "arguments": deep, "call_id": "c1"},
    )
    envelope = '{"output":' + deep + "}"
    session = _parse(
        tmp_path, [_meta(), _user("q"), call, _output(envelope), _output("{" + deep, "c2")]
    )
    assert [c.name for m in session.messages for c in m.tool_calls] == ["shell"]
    assert [m.content for m in _of(session, "tool") if m.content] == [envelope, "{" + deep]
    assert session.skipped_lines == 0


@pytest.mark.parametrize("field", ["input_tokens", "output_tokens", "total_tokens"])
@pytest.mark.parametrize(
    "bad",
    [math.nan, math.inf, -math.inf, -100, True, "100", [5], 10**400],
    ids=["nan", "inf", "-inf", "negative", "bool", "str", "list", "huge"],
)
def test_a_usage_holding_a_value_that_is_no_token_count_is_no_usage(
    tmp_path: Path, field: str, bad: Any
) -> None:
    # json.dumps writes NaN / Infinity / -Infinity and the 401-digit integer as such.
    last = {"input_tokens": 1200, "output_tokens": 500, "total_tokens": 1700, field: bad}
    total = {"input_tokens": 2100, "output_tokens": 600, "total_tokens": 2700, field: bad}
    records = [_meta(), _user("q"), _tokens(900, 900), _assistant("a"), _tokens(last, total)]
    session = _parse(tmp_path, records)
    assert session.context_tokens == 900  # the earlier real usage stays the latest
    assert not session.tokens_estimated


def test_a_negative_input_never_becomes_or_lowers_the_context(tmp_path: Path) -> None:
    negative = {"input_tokens": -100, "output_tokens": 500}  # no total: input + output
    session = _parse(tmp_path, [_meta(), _user("q"), _assistant("a"), _tokens(negative, 600)])
    assert session.tokens_estimated
    assert session.context_tokens == estimate_tokens(session.messages)
    assert session.messages[-1].token_count is None


def test_a_null_usage_field_still_counts_as_zero(tmp_path: Path) -> None:
    last = {"input_tokens": 1200, "output_tokens": None, "total_tokens": None}
    session = _parse(tmp_path, [_meta(), _user("q"), _assistant("a"), _tokens(last, 1200)])
    assert session.context_tokens == 1200


@pytest.mark.parametrize("bad", [10**400, -1, math.inf], ids=["huge", "negative", "inf"])
def test_a_context_window_that_is_no_token_count_is_not_used(tmp_path: Path, bad: Any) -> None:
    session = _parse(tmp_path, [_meta(), _user("q"), _assistant("a"), _tokens(900, 900, bad)])
    assert session.context_window == DEFAULT_CONTEXT_WINDOW
    assert session.context_tokens == 900


def test_a_truncated_zst_rollout_is_a_format_error(tmp_path: Path) -> None:
    plain = _write(tmp_path, [_meta(), *(_user(f"question {n}") for n in range(800))])
    whole = zstandard.ZstdCompressor().compress(plain.read_bytes())
    packed = plain.with_name(plain.name + ".zst")
    packed.write_bytes(whole[: len(whole) * 2 // 3])
    with pytest.raises(SessionFormatError, match=f"{packed} is a truncated zstd file"):
        codex_cli.parse(packed)
    with pytest.raises(SessionFormatError, match="truncated zstd file"):
        parse_session(packed)


@pytest.mark.parametrize("kind", [["message"], {"a": 1}])
def test_item_and_event_types_that_are_arrays_or_objects_are_ignored(
    tmp_path: Path, kind: Any
) -> None:
    odd_item = _line("response_item", {"type": kind, "role": "assistant"})
    odd_event = _event("x") | {"payload": {"type": kind}}
    session = _parse(tmp_path, [_meta(), _user("q"), odd_item, odd_event, _assistant("a")])
    assert _roles(session) == ["user", "assistant"]
    assert session.skipped_lines == 0


def test_a_provenance_type_that_is_an_array_does_not_break_the_harness_check(
    tmp_path: Path,
) -> None:
    passthrough = {"content_item_metadata": [{"provenance": {"type": ["harness"]}}]}
    typed = _user("typed by a person", internal_chat_message_metadata_passthrough=passthrough)
    session = _parse(tmp_path, [_meta(), typed])
    assert [m.content for m in _of(session, "user")] == ["typed by a person"]


def test_a_content_part_type_that_is_an_array_is_not_text(tmp_path: Path) -> None:
    parts = [{"type": ["input_text"], "text": "hidden"}, {"type": "input_text", "text": "shown"}]
    odd = _line("response_item", {"type": "message", "role": "user", "content": parts})
    session = _parse(tmp_path, [_meta(), odd])
    assert [m.content for m in _of(session, "user")] == ["shown"]
