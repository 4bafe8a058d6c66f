"""The fake model server speaks each wire API the way real-clis.md describes, and follows
its plan. These run without any CLI (plain HTTP on loopback), so they are not e2e tests."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from fake_model import FakeModel, call_tool, say


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
