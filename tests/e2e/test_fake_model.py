"""The fake model server speaks each wire API the way docs/real-clis.md describes, and follows
its plan. These run without any CLI (plain HTTP on loopback), so they are not e2e tests."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from fake_model import SUMMARISED, FakeModel, call_tool, parse_request, say


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as server:
        yield server


def _post(url: str, body: dict[str, Any]) -> tuple[int, str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def _sse(text: str) -> list[tuple[str | None, dict[str, Any]]]:
    """(event name, data) of each SSE event."""
    events = []
    for chunk in text.strip().split("\n\n"):
        name = None
        data = None
        for line in chunk.splitlines():
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data = json.loads(line[len("data: ") :])
        assert data is not None
        events.append((name, data))
    return events


def _claude_body(*messages: dict[str, Any], tools: tuple[str, ...] = ("Bash",)) -> dict[str, Any]:
    return {
        "model": "claude-opus-4-8",
        "stream": True,
        "tools": [{"name": name, "input_schema": {"type": "object"}} for name in tools],
        "messages": list(messages),
    }


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def test_anthropic_stream_sends_the_six_events_in_order_with_the_scripted_tokens(
    fake: FakeModel,
) -> None:
    fake.set_plan([say("Hello there.", input_tokens=12_345)])

    status, text = _post(f"{fake.url}/v1/messages?beta=true", _claude_body(_user("hi")))

    events = _sse(text)
    assert status == 200
    assert [name for name, _ in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[0][1]["message"]["usage"]["input_tokens"] == 12_345
    assert events[2][1]["delta"] == {"type": "text_delta", "text": "Hello there."}
    assert events[4][1]["delta"]["stop_reason"] == "end_turn"


def test_plan_calls_the_tool_found_by_suffix_on_the_third_prompt_only(fake: FakeModel) -> None:
    fake.set_plan([say("one"), say("two"), call_tool("get_drift", {"goal": "g"})])
    tools = ("Bash", "mcp__driftguard__get_drift")
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>ctx"}]},
        _user("first"),
        {"role": "system", "content": "a mid-conversation system message"},
        _assistant("one"),
        _user("second"),
        _assistant("two"),
    ]

    _, second_turn = _post(f"{fake.url}/v1/messages", _claude_body(*history[:4], tools=tools))
    _, third_turn = _post(
        f"{fake.url}/v1/messages", _claude_body(*history, _user("third"), tools=tools)
    )

    assert _sse(second_turn)[1][1]["content_block"]["type"] == "text"
    start = _sse(third_turn)[1][1]["content_block"]
    assert start["type"] == "tool_use"
    assert start["name"] == "mcp__driftguard__get_drift"
    assert json.loads(_sse(third_turn)[2][1]["delta"]["partial_json"]) == {"goal": "g"}
    assert _sse(third_turn)[4][1]["delta"]["stop_reason"] == "tool_use"


def test_tool_result_of_the_planned_call_is_answered_with_text_quoting_it(
    fake: FakeModel,
) -> None:
    fake.set_plan([call_tool("get_drift")])
    body = _claude_body(
        _user("check"),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "mcp__d__get_drift", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "score 12"}],
        },
        tools=("mcp__d__get_drift",),
    )

    _, text = _post(f"{fake.url}/v1/messages", body)

    delta = _sse(text)[2][1]["delta"]
    assert delta["type"] == "text_delta"
    assert "score 12" in delta["text"]


def test_undeclared_tool_waits_for_mcp_servers_first_else_names_the_missing_tool(
    fake: FakeModel,
) -> None:
    fake.set_plan([call_tool("get_drift")])

    _, waiting = _post(
        f"{fake.url}/v1/messages", _claude_body(_user("go"), tools=("WaitForMcpServers",))
    )
    _, missing = _post(f"{fake.url}/v1/messages", _claude_body(_user("go"), tools=("Bash",)))

    assert _sse(waiting)[1][1]["content_block"]["name"] == "WaitForMcpServers"
    assert "no declared tool ends in 'get_drift'" in _sse(missing)[2][1]["delta"]["text"]
    assert "Bash" in _sse(missing)[2][1]["delta"]["text"]


def test_tool_less_side_call_gets_json_built_from_its_schema(fake: FakeModel) -> None:
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    body = {
        "model": "claude-haiku",
        "stream": False,
        "tools": [],
        "messages": [_user("name this chat")],
        "output_config": {"format": {"type": "json_schema", "schema": schema}},
    }

    _, text = _post(f"{fake.url}/v1/messages", body)

    message = json.loads(text)
    assert json.loads(message["content"][0]["text"]) == {"title": "fake"}


def test_head_answers_200_and_unknown_paths_404_and_both_are_logged(fake: FakeModel) -> None:
    head = urllib.request.Request(f"{fake.url}/", method="HEAD")
    with urllib.request.urlopen(head, timeout=10) as response:
        assert response.status == 200

    status, _ = _post(f"{fake.url}/v2/nowhere", {"x": 1})

    assert status == 404
    assert [(r.method, r.path) for r in fake.requests] == [("HEAD", "/"), ("POST", "/v2/nowhere")]
    assert fake.model_requests() == []


def test_gemini_router_gets_a_score_of_at_least_one_and_the_stream_a_function_call(
    fake: FakeModel,
) -> None:
    fake.set_plan([call_tool("get_drift", input_tokens=777)])
    router = {
        "contents": [{"role": "user", "parts": [{"text": "check drift"}]}],
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": {
                "type": "OBJECT",
                "properties": {
                    "complexity_reasoning": {"type": "STRING"},
                    "complexity_score": {"type": "INTEGER"},
                },
            },
        },
    }
    main = {
        "contents": [
            {"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up"}]},
            {"role": "user", "parts": [{"text": "check drift"}]},
        ],
        "tools": [{"functionDeclarations": [{"name": "mcp_driftguard_get_drift"}]}],
    }

    _, routed = _post(f"{fake.url}/v1beta/models/flash-lite:generateContent", router)
    _, streamed = _post(f"{fake.url}/v1beta/models/flash:streamGenerateContent?alt=sse", main)

    answer = json.loads(json.loads(routed)["candidates"][0]["content"]["parts"][0]["text"])
    assert answer["complexity_score"] >= 1
    (_, chunk), *_ = _sse(streamed)
    part = chunk["candidates"][0]["content"]["parts"][0]
    assert part == {"functionCall": {"name": "mcp_driftguard_get_drift", "args": {}}}
    assert chunk["usageMetadata"]["promptTokenCount"] == 777
    assert chunk["modelVersion"] == "flash"


def test_openai_call_of_a_namespaced_tool_names_the_namespace(fake: FakeModel) -> None:
    fake.set_plan([call_tool("get_drift", input_tokens=4_321)])
    body = {
        "model": "gpt-5-codex",
        "stream": True,
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "<env"}],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        ],
        "tools": [
            {"type": "function", "name": "shell"},
            {"type": "namespace", "name": "mcp__driftguard", "tools": [{"name": "get_drift"}]},
        ],
    }

    _, text = _post(f"{fake.url}/v1/responses", body)

    events = _sse(text)
    names = [name for name, _ in events]
    assert names[0] == "response.created"
    assert names[-1] == "response.completed"
    done = next(data for name, data in events if name == "response.output_item.done")["item"]
    assert (done["type"], done["namespace"], done["name"]) == (
        "function_call",
        "mcp__driftguard",
        "get_drift",
    )
    assert events[-1][1]["response"]["usage"]["input_tokens"] == 4_321
    logged = fake.model_requests("openai")
    assert len(logged) == 1
    assert logged[0].body == body
    assert (logged[0].reply_kind, logged[0].reply_value) == ("tool", "mcp__driftguard__get_drift")


def test_stopped_server_refuses_connections() -> None:
    server = FakeModel().start()
    url = server.url
    server.stop()

    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{url}/", timeout=5)


def _gemini_text(body: dict[str, Any], url: str) -> str:
    """The text the fake streams back to a Gemini request."""
    _, streamed = _post(url, body)
    (_, chunk), *_ = _sse(streamed)
    return str(chunk["candidates"][0]["content"]["parts"][0]["text"])


def _gemini_user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text} for text in texts]}


def _gemini_model(text: str) -> dict[str, Any]:
    return {"role": "model", "parts": [{"text": text}]}


GEMINI_TOOLS = [{"functionDeclarations": [{"name": "run_shell_command"}]}]


def test_gemini_compression_is_answered_with_a_state_snapshot_counting_the_prompts(
    fake: FakeModel,
) -> None:
    # Gemini CLI 0.61.0's compression call (ChatCompressionService.compress): no tools, the
    # history to compress, then its own request for a snapshot (19-seams §2.6)
    body = {
        "contents": [
            _gemini_user("<session_context>\nThis is the Gemini CLI.\n</session_context>"),
            _gemini_user("Turn 1: hello"),
            _gemini_model("Reply 1"),
            _gemini_user("Turn 2: more"),
            _gemini_model("Reply 2"),
            _gemini_user(
                "Generate a new <state_snapshot> based on the provided history.\n\n"
                "First, reason in your scratchpad. Then, generate the updated <state_snapshot>."
            ),
        ],
        "systemInstruction": {"parts": [{"text": "You compress chats into a state_snapshot."}]},
    }

    _, answered = _post(f"{fake.url}/v1beta/models/flash:generateContent", body)

    text = json.loads(answered)["candidates"][0]["content"]["parts"][0]["text"]
    assert text.startswith("<state_snapshot>\n")
    assert text.endswith("\n</state_snapshot>")
    assert SUMMARISED.format(2) in text


def test_other_hosts_compactions_are_answered_with_a_summary(fake: FakeModel) -> None:
    # Claude Code 2.1.197 appends its compaction request to the last prompt's message
    # (seen in the request bodies of a /compact run)
    body = _claude_body(
        _user("first"),
        _assistant("one"),
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "second\n"},
                {
                    "type": "text",
                    "text": "CRITICAL: Respond with TEXT ONLY. Your task is to "
                    "create a detailed summary of the conversation so far.",
                },
            ],
        },
    )

    _, text = _post(f"{fake.url}/v1/messages", body)

    summary = _sse(text)[2][1]["delta"]["text"]
    assert summary.startswith("<summary>")
    assert SUMMARISED.format(2) in summary


@pytest.mark.parametrize(
    "history",
    [
        # Claude Code: the summary opens the history
        [
            {
                "role": "user",
                "content": "This session is being continued from a previous conversation that "
                f"ran out of context.\n\nSummary:\nwork so far {SUMMARISED.format(2)}",
            }
        ],
        # Codex: the prompts it keeps, then the summary
        [
            _user("first"),
            _user("second"),
            _user(
                "Another language model started to solve this problem and produced a summary "
                f"of its thinking process.\n<summary>so far {SUMMARISED.format(2)}</summary>"
            ),
        ],
    ],
    ids=["claude_code", "codex"],
)
def test_after_a_compaction_the_summary_is_no_prompt_and_counts_those_it_covers(
    fake: FakeModel, history: list[dict[str, Any]]
) -> None:
    fake.set_plan([say("one"), say("two"), say("three: after the compaction")])

    _, text = _post(f"{fake.url}/v1/messages", _claude_body(*history, _user("third")))

    assert _sse(text)[2][1]["delta"]["text"] == "three: after the compaction"


def test_after_a_gemini_compression_the_kept_tail_and_new_prompts_count_on(
    fake: FakeModel,
) -> None:
    fake.set_plan([say("one"), say("two"), say("three"), say("four: after the compression")])
    body = {
        "contents": [
            _gemini_user("<session_context>\nThis is the Gemini CLI.\n</session_context>"),
            _gemini_user(f"<state_snapshot>\nso far {SUMMARISED.format(2)}\n</state_snapshot>"),
            _gemini_model("Got it. Thanks for the additional context!"),
            _gemini_user("Turn 3: kept"),  # the kept tail: not in what was summarised
            _gemini_model("three"),
            _gemini_user("Turn 4: new"),
        ],
        "tools": GEMINI_TOOLS,
    }

    text = _gemini_text(body, f"{fake.url}/v1beta/models/flash:streamGenerateContent?alt=sse")

    assert text == "four: after the compression"


def test_a_gemini_prompt_behind_a_hook_context_is_the_users_prompt(fake: FakeModel) -> None:
    # a SessionStart context in front of the prompt, a BeforeAgent context as its own part
    # (19-seams §2.4)
    body = {
        "contents": [
            _gemini_user("<session_context>\nThis is the Gemini CLI.\n</session_context>"),
            _gemini_user(
                "<hook_context>started</hook_context>\n\nTurn 1: hello there",
                "<hook_context>per prompt</hook_context>",
            ),
        ],
        "tools": GEMINI_TOOLS,
    }

    text = _gemini_text(body, f"{fake.url}/v1beta/models/flash:streamGenerateContent?alt=sse")

    assert text.endswith("to: Turn 1: hello there")
    assert parse_request("gemini", "/m:streamGenerateContent", body).user_turn == 1


def test_a_repeated_call_goes_on_through_gemini_loop_recovery_turn(fake: FakeModel) -> None:
    fake.set_plan([call_tool("run_shell_command", {"command": "npm test"}, repeat=True)])
    call = {"functionCall": {"name": "run_shell_command", "args": {"command": "npm test"}}}
    result = {"functionResponse": {"name": "run_shell_command", "response": {"output": "x"}}}
    history = [_gemini_user("Turn 1: run the tests")]
    for _ in range(4):
        history += [{"role": "model", "parts": [call]}, {"role": "user", "parts": [result]}]
    # the CLI's own turn after its loop detector fired (GeminiClient._recoverFromLoop)
    history.append(_gemini_user("System: Potential loop detected. Details: Repeated tool call."))
    body = {"contents": history, "tools": GEMINI_TOOLS}
    url = f"{fake.url}/v1beta/models/flash:streamGenerateContent?alt=sse"

    _, streamed = _post(url, body)

    (_, chunk), *_ = _sse(streamed)
    assert chunk["candidates"][0]["content"]["parts"][0] == {
        "functionCall": {"name": "run_shell_command", "args": {"command": "npm test"}}
    }
    request = parse_request("gemini", url, body)
    assert (request.user_turn, len(request.turn_calls)) == (1, 4)
