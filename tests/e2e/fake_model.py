"""A scriptable fake model server for driving the real coding CLIs offline.

One stdlib-only HTTP server on 127.0.0.1 (an ephemeral port) speaks the three wire APIs the
pinned CLIs use (``docs/real-clis.md``), chosen by request path:

* **Anthropic Messages** (Claude Code): ``HEAD /`` answers 200; ``POST /v1/messages``
  streams ``message_start`` · ``content_block_start`` · ``content_block_delta`` ·
  ``content_block_stop`` · ``message_delta`` · ``message_stop`` as SSE (a plain JSON
  message when the request does not ask for ``stream``).
* **Gemini** (Gemini CLI): ``POST /v1beta/models/<m>:generateContent`` (the router, the
  compression calls: one JSON response) and ``:streamGenerateContent?alt=sse`` (the main
  loop: one SSE chunk).
* **OpenAI Responses** (Codex): ``POST /v1/responses`` streams ``response.created`` …
  ``response.completed``; MCP tools come grouped in a ``namespace`` and a call must name it.

What to answer is decided from the request itself, never from state kept per CLI:

1. a compaction request (its last user text asks for a summary: :data:`COMPACTION_HINTS`)
   gets a summary in the form the CLI's real model writes: ``<state_snapshot>…`` for
   Gemini CLI (what driftguard keys a Gemini compaction on), ``<summary>…`` for the
   others. The summary says how many prompts it covers (:data:`SUMMARISED`), so that the
   requests after the compaction still know which scripted turn they are on;
2. another request without tools is a side call (Claude's title, Gemini's router): it gets
   JSON built from the requested schema, a summary when the text asks for one, else a
   short text;
3. otherwise the **plan** decides. The plan is either a sequence of :class:`Reply` — entry
   ``n-1`` for the ``n``-th user prompt of the conversation (a ``--resume`` sends the whole
   history, so the count carries over; after a compaction the count is the summary's plus
   the prompts after it) — or a callable ``ModelRequest -> Reply | None``.
   A tool call in a plan names the tool by the **suffix** of its name (``"get_drift"``
   matches ``mcp__driftguard__get_drift``, ``mcp_driftguard_get_drift`` and Codex's
   ``mcp__driftguard`` namespace + ``get_drift``). It is made once per turn: when the
   current turn already holds a call of that tool, the fake answers the tool result with
   text quoting it, unless the reply says ``repeat`` (a model stuck in a loop: the CLI's
   own loop detection has to stop it). When the tool is not declared but Claude Code's
   ``WaitForMcpServers`` is, that is called first; when neither is, the reply is a text
   naming the missing tool, so a test fails with the tool list in view;
4. with no plan entry, a tool result is answered with a text quoting it, and a prompt with
   ``"Reply <n> to: <prompt>"``.

A user prompt is what the person typed: the CLIs' context blocks, reminders and tool
results are not prompts, nor is a compaction's summary (Claude Code's "This session is
being continued…", Codex's "Another language model started…", Gemini's
``<state_snapshot>``), nor a turn a CLI sends on its own (Gemini's loop-recovery and
"Please continue." turns). Gemini CLI puts a SessionStart hook's context in front of the
prompt in the same text (``<hook_context>…</hook_context>\n\n<prompt>``): the prompt is
what follows it.

Reported input tokens are the reply's ``input_tokens`` when the plan scripts them, else the
request body's size in bytes // 4. Every request is logged (:attr:`FakeModel.requests`):
method, path, headers, parsed body, the API, and what was answered — so a test can assert
what the model was sent. The server only binds loopback; :meth:`FakeModel.stop` (or leaving
the ``with`` block) shuts it down.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "Api",
    "FakeModel",
    "LoggedRequest",
    "ModelRequest",
    "Plan",
    "Reply",
    "call_tool",
    "say",
]

Api = Literal["anthropic", "gemini", "openai"]

COMPACTION_HINTS = (
    "create a detailed summary",
    "state_snapshot",
    "context checkpoint compaction",
)
"""Lower-cased phrases of the three CLIs' compaction prompts (docs/real-clis.md)."""

SUMMARISED = "[fake model: {} prompts summarised]"
"""What a summary by this fake says of the prompts it covers (with their number)."""
_SUMMARISED = re.compile(r"\[fake model: (\d+) prompts summarised\]")

HOST_SUMMARIES = (
    "This session is being continued from a previous conversation",
    "Another language model started to solve this problem",
    "<state_snapshot>",
)
"""How the message that holds a compaction's summary starts in the history a CLI sends
afterwards: Claude Code's, Codex's (docs/real-clis.md), Gemini CLI's (19-seams §2.6)."""

CLI_TURNS = ("System: Potential loop detected.", "System: Please continue.", "Please continue.")
"""User turns Gemini CLI sends on its own (``GeminiClient._recoverFromLoop``, its stream
retry and its next-speaker check; 19-seams §2.7): the same scripted turn goes on."""

_HOOK_CONTEXT = re.compile(r"\A(?:\s*<hook_context>.*?</hook_context>)+\s*", re.DOTALL)
"""Gemini CLI's SessionStart context in front of the prompt, in the same text (19-seams
§2.4: ``<hook_context>…</hook_context>\\n\\n<prompt>``)."""

WAIT_FOR_MCP = "WaitForMcpServers"
"""The tool Claude Code declares alone while MCP servers still connect in the background."""

_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}_fake{next(_ids):06d}"


@dataclass(frozen=True, slots=True)
class Reply:
    """What the fake model answers: a text, or a call of the tool whose name ends in ``tool``.

    ``input_tokens`` is the prompt size the response reports (tokens); ``None`` derives it
    from the request body.
    """

    text: str = ""
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    input_tokens: int | None = None
    repeat: bool = False
    """Call the tool even when the current turn already holds a call of it."""


def say(text: str, *, input_tokens: int | None = None) -> Reply:
    """A plain text reply."""
    return Reply(text=text, input_tokens=input_tokens)


def call_tool(
    suffix: str,
    args: Mapping[str, Any] | None = None,
    *,
    input_tokens: int | None = None,
    repeat: bool = False,
) -> Reply:
    """A call of the declared tool whose name ends in ``suffix``, with ``args``; with
    ``repeat``, on every request of the turn (a model stuck in a loop)."""
    return Reply(tool=suffix, args=dict(args or {}), input_tokens=input_tokens, repeat=repeat)


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A tool call found in the conversation (name as the CLI declared it)."""

    name: str
    args: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model request, reduced to what a plan decides on.

    ``user_turn`` is 1-based: the number of real user prompts in the conversation so far
    (module docstring: context preambles, system reminders, tool results, compaction
    summaries and a CLI's own turns are not prompts; a summary by this fake counts the
    prompts it covers). ``user_text`` is the latest prompt, a hook context in front of it
    left out. ``turn_calls`` are the tool calls made since the latest prompt (or
    summary); ``tool_result`` is the text of the tool result the request ends with, if it
    ends with one. ``compacting``: the request asks for a compaction summary (its last
    user text holds a :data:`COMPACTION_HINTS` phrase).
    """

    api: Api
    path: str
    model: str
    body: Mapping[str, Any]
    tool_names: tuple[str, ...]
    user_turn: int
    user_text: str
    turn_calls: tuple[ToolUse, ...]
    tool_result: str | None
    json_schema: Mapping[str, Any] | None
    compacting: bool = False

    def find_tool(self, suffix: str) -> str | None:
        """The declared tool whose name ends in ``suffix`` (exact name first)."""
        if suffix in self.tool_names:
            return suffix
        return next((name for name in self.tool_names if name.endswith(suffix)), None)

    @property
    def all_text(self) -> str:
        """Every text of the request, for keyword checks (JSON of the body)."""
        return json.dumps(self.body, ensure_ascii=False)


Plan = Sequence[Reply] | Callable[[ModelRequest], Reply | None]


@dataclass(frozen=True, slots=True)
class LoggedRequest:
    """One HTTP request the server received and what it answered."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    api: Api | None
    reply_kind: Literal["text", "tool", "none"] = "none"
    reply_value: str = ""
    input_tokens: int | None = None
    ts: float = field(default_factory=time.time)


# ----------------------------------------------------------------------------- parsing


def _text_of(content: Any) -> str:
    """The text of an Anthropic/OpenAI content value (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            _text_of(block.get("text", block.get("content", "")))
            for block in content
            if isinstance(block, dict)
        ]
        return "\n".join(part for part in parts if part)
    return ""


def _is_preamble(text: str) -> bool:
    """Text the CLI injects around a prompt: reminders, context blocks, instructions."""
    stripped = text.lstrip()
    return (
        not stripped
        or stripped.startswith("<")
        or stripped.startswith("# AGENTS.md")
        or stripped.startswith("This is the Gemini CLI.")
    )


Event = tuple[str, Any]
"""One thing in a conversation: ``("prompt", text)``, ``("summary", prompts | None)``,
``("compact", text)``, ``("cli", text)``, ``("call", ToolUse)`` or ``("result", text)``."""


def _user_text_event(text: str) -> Event | None:
    """What one user text is (module docstring), or ``None`` for a preamble."""
    summarised = _SUMMARISED.search(text)
    if summarised is not None:
        return ("summary", int(summarised.group(1)))
    stripped = _HOOK_CONTEXT.sub("", text, count=1).strip()
    if stripped.startswith(HOST_SUMMARIES):
        return ("summary", None)
    if _is_preamble(stripped):
        return None
    if stripped.startswith(CLI_TURNS[:2]) or stripped == CLI_TURNS[2]:
        return ("cli", stripped)
    if any(hint in stripped.lower() for hint in COMPACTION_HINTS):
        return ("compact", stripped)
    return ("prompt", stripped)


def _user_events(texts: Sequence[str]) -> list[Event]:
    """What one user message of text parts holds, in order: its prompt parts joined into
    one prompt, and the summary, compaction request or CLI turn among them (Claude Code
    appends its compaction request to the last prompt's message)."""
    events: list[Event] = []
    prompts: list[str] = []
    for event in map(_user_text_event, texts):
        if event is None:
            continue
        if event[0] == "prompt":
            prompts.append(event[1])
            continue
        if prompts:
            events.append(("prompt", "\n".join(prompts)))
            prompts = []
        events.append(event)
    if prompts:
        events.append(("prompt", "\n".join(prompts)))
    return events


def _json_schema(body: Mapping[str, Any], api: Api) -> Mapping[str, Any] | None:
    if api == "anthropic":
        fmt = (body.get("output_config") or {}).get("format") or {}
        schema = fmt.get("schema") if isinstance(fmt, dict) else None
    elif api == "gemini":
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
    else:
        fmt = (body.get("text") or {}).get("format") or {}
        schema = fmt.get("schema") if isinstance(fmt, dict) else None
    return schema if isinstance(schema, dict) else None


def _anthropic(body: Mapping[str, Any]) -> tuple[tuple[str, ...], list[Event]]:
    tools = tuple(t["name"] for t in body.get("tools") or [] if isinstance(t, dict) and "name" in t)
    events: list[Event] = []
    for message in body.get("messages") or []:
        role, content = message.get("role"), message.get("content")
        if role == "system":  # the mid-conversation-system beta (docs/real-clis.md §1 pitfalls)
            continue
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        results = [
            b for b in blocks or [] if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        if role == "user":
            texts = [
                str(b.get("text", ""))
                for b in blocks or []
                if isinstance(b, dict) and b.get("type") == "text"
            ]
            if results:
                events.append(("result", _text_of(results[-1].get("content"))))
                # beside results, text is the CLI's: only a compaction request counts
                events += [e for e in _user_events(texts) if e[0] == "compact"]
            else:
                events += _user_events(texts)
        elif role == "assistant":
            for block in blocks or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    given = block.get("input")
                    args = given if isinstance(given, dict) else {}
                    events.append(("call", ToolUse(str(block.get("name", "")), args)))
    return tools, events


def _gemini(body: Mapping[str, Any]) -> tuple[tuple[str, ...], list[Event]]:
    tools = tuple(
        decl["name"]
        for group in body.get("tools") or []
        for decl in (group.get("functionDeclarations") or [])
        if isinstance(decl, dict) and "name" in decl
    )
    events: list[Event] = []
    for content in body.get("contents") or []:
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        if content.get("role") == "user":
            responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
            if responses:
                response = responses[-1].get("response")
                events.append(("result", json.dumps(response, ensure_ascii=False)))
                continue
            events += _user_events([str(p["text"]) for p in parts if "text" in p])
        else:
            for part in parts:
                if "functionCall" in part:
                    call = part["functionCall"]
                    events.append(("call", ToolUse(call.get("name", ""), call.get("args") or {})))
    return tools, events


def _openai_tools(body: Mapping[str, Any]) -> dict[str, tuple[str | None, str]]:
    """Declared tool's full name → (namespace, name); namespace tools are ``ns__name``."""
    tools: dict[str, tuple[str | None, str]] = {}
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            space = str(tool.get("name", ""))
            for inner in tool.get("tools") or []:
                if isinstance(inner, dict) and "name" in inner:
                    tools[f"{space}__{inner['name']}"] = (space, str(inner["name"]))
        elif "name" in tool:
            tools[str(tool["name"])] = (None, str(tool["name"]))
    return tools


def _openai(body: Mapping[str, Any]) -> tuple[tuple[str, ...], list[Event]]:
    tools = tuple(_openai_tools(body))
    events: list[Event] = []
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            events += _user_events([_text_of(item.get("content"))])
        elif kind == "function_call":
            space = item.get("namespace")
            name = f"{space}__{item.get('name')}" if space else str(item.get("name", ""))
            try:
                args = json.loads(item.get("arguments") or "{}")
            except ValueError:
                args = {}
            events.append(("call", ToolUse(name, args if isinstance(args, dict) else {})))
        elif kind == "function_call_output":
            events.append(("result", _text_of(item.get("output"))))
    return tools, events


def parse_request(api: Api, path: str, body: Mapping[str, Any]) -> ModelRequest:
    """Reduce a model request body to a :class:`ModelRequest`."""
    parser = {"anthropic": _anthropic, "gemini": _gemini, "openai": _openai}[api]
    tools, events = parser(body)
    prompts = 0
    user_text = ""
    start = 0  # where the current turn's events begin
    for index, (kind, value) in enumerate(events):
        if kind == "prompt":
            prompts, user_text, start = prompts + 1, value, index + 1
        elif kind == "summary":
            # what came before it is covered by it (Codex puts the prompts it keeps there)
            prompts = value if value is not None else prompts
            start = index + 1
    current = events[start:]
    calls = tuple(value for kind, value in current if kind == "call")
    compacting = any(kind == "compact" for kind, _ in current)
    ends_with_result = bool(events) and events[-1][0] == "result"
    if api == "gemini":
        model = path.rsplit("/", 1)[-1].split(":", 1)[0]
    else:
        model = str(body.get("model", ""))
    return ModelRequest(
        api=api,
        path=path,
        model=model,
        body=body,
        tool_names=tools,
        user_turn=prompts,
        user_text=user_text,
        turn_calls=calls,
        tool_result=str(events[-1][1]) if ends_with_result else None,
        json_schema=_json_schema(body, api),
        compacting=compacting,
    )


# ----------------------------------------------------------------------------- deciding


def _value_for(schema: Mapping[str, Any]) -> Any:
    kind = str(schema.get("type", "string")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: _value_for(sub) for name, sub in props.items() if isinstance(sub, dict)}
    if kind == "array":
        items = schema.get("items")
        return [_value_for(items)] if isinstance(items, dict) else []
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))  # Gemini's router wants a score >= 1
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return False
    return "fake"


def _default_text(request: ModelRequest, number: int) -> str:
    if request.tool_result is not None:
        return f"The tool answered: {request.tool_result[:2000]} (reply {number})"
    return f"Reply {number} to: {request.user_text[:200]}"


def _summary(request: ModelRequest, number: int, note: str = "") -> Reply:
    """A compaction summary as the CLI's real model writes it, saying how many prompts it
    covers, with ``note`` (what a test wants the summary to keep) after its first line."""
    text = (
        f"Fake summary of the conversation so far (reply {number}). "
        f"{note + ' ' if note else ''}{SUMMARISED.format(request.user_turn)}"
    )
    if request.api == "gemini":
        return say(f"<state_snapshot>\n{text}\n</state_snapshot>")
    return say(f"<summary>{text}</summary>")


def decide(request: ModelRequest, plan: Plan | None, number: int, note: str = "") -> Reply:
    """What the fake answers to ``request`` (the module docstring gives the rules);
    ``note``: what a compaction summary says besides (:attr:`FakeModel.summary_note`)."""
    if request.compacting:
        return _summary(request, number, note)
    if not request.tool_names:
        if request.json_schema is not None:
            return say(json.dumps(_value_for(request.json_schema)))
        if any(hint in request.all_text.lower() for hint in COMPACTION_HINTS):
            return _summary(request, number, note)
        return say(f"Fake side answer {number}.")
    chosen: Reply | None
    if plan is None:
        chosen = None
    elif callable(plan):
        chosen = plan(request)
    else:
        index = request.user_turn - 1
        chosen = plan[index] if 0 <= index < len(plan) else None
    if chosen is None:
        return say(_default_text(request, number))
    if chosen.tool is None:
        return (
            chosen
            if chosen.text
            else Reply(_default_text(request, number), None, {}, chosen.input_tokens)
        )
    name = request.find_tool(chosen.tool)
    if (
        name is not None
        and not chosen.repeat
        and any(call.name == name for call in request.turn_calls)
    ):
        return Reply(_default_text(request, number), None, {}, chosen.input_tokens)
    if name is None:
        wait = request.find_tool(WAIT_FOR_MCP)
        if wait is not None and not any(call.name == wait for call in request.turn_calls):
            return Reply(tool=wait, input_tokens=chosen.input_tokens)
        return Reply(
            f"fake model: no declared tool ends in {chosen.tool!r}; "
            f"tools were {', '.join(request.tool_names)}",
            None,
            {},
            chosen.input_tokens,
        )
    return Reply(chosen.text, name, chosen.args, chosen.input_tokens, chosen.repeat)


# ----------------------------------------------------------------------------- encoding


def _sse(events: Sequence[tuple[str | None, Mapping[str, Any]]]) -> bytes:
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n")
    return "".join(chunks).encode("utf-8")


def anthropic_body(
    reply: Reply, model: str, input_tokens: int, *, stream: bool
) -> tuple[bytes, str]:
    """The Messages API response for ``reply`` (SSE when ``stream``) and its content type."""
    output_tokens = max(1, len(reply.text) // 4 + 8)
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    }
    if reply.tool is not None:
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": _new_id("toolu"),
            "name": reply.tool,
            "input": {},
        }
        delta = {"type": "input_json_delta", "partial_json": json.dumps(dict(reply.args))}
        full_block = {**block, "input": dict(reply.args)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply.text}
        full_block = {"type": "text", "text": reply.text}
        stop = "end_turn"
    message: dict[str, Any] = {
        "id": _new_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    if not stream:
        done = {**message, "content": [full_block], "stop_reason": stop, "usage": usage}
        return json.dumps(done).encode("utf-8"), "application/json"
    events: list[tuple[str | None, Mapping[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": usage,
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events), "text/event-stream"


def gemini_body(reply: Reply, model: str, input_tokens: int, *, stream: bool) -> tuple[bytes, str]:
    """The Gemini ``generateContent`` response (one SSE chunk when ``stream``)."""
    if reply.tool is not None:
        part: dict[str, Any] = {"functionCall": {"name": reply.tool, "args": dict(reply.args)}}
    else:
        part = {"text": reply.text}
    output_tokens = max(1, len(reply.text) // 4 + 8)
    chunk = {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": input_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": input_tokens + output_tokens,
        },
        "modelVersion": model,
    }
    if not stream:
        return json.dumps(chunk).encode("utf-8"), "application/json"
    return _sse([(None, chunk)]), "text/event-stream"


def openai_body(
    reply: Reply, model: str, input_tokens: int, namespaces: Mapping[str, tuple[str | None, str]]
) -> tuple[bytes, str]:
    """The Responses API SSE stream for ``reply`` (a namespaced call names its namespace)."""
    response_id = _new_id("resp")
    base = {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "output": [],
    }
    seq = itertools.count()
    events: list[tuple[str | None, Mapping[str, Any]]] = []

    def emit(name: str, **data: Any) -> None:
        events.append((name, {"type": name, "sequence_number": next(seq), **data}))

    emit("response.created", response={**base, "status": "in_progress"})
    emit("response.in_progress", response={**base, "status": "in_progress"})
    if reply.tool is not None:
        space, name = namespaces.get(reply.tool, (None, reply.tool))
        arguments = json.dumps(dict(reply.args))
        item: dict[str, Any] = {
            "id": _new_id("fc"),
            "type": "function_call",
            "call_id": _new_id("call"),
            "name": name,
            "arguments": "",
        }
        if space is not None:
            item["namespace"] = space
        emit("response.output_item.added", output_index=0, item={**item, "status": "in_progress"})
        emit(
            "response.function_call_arguments.delta",
            item_id=item["id"],
            output_index=0,
            delta=arguments,
        )
        emit(
            "response.function_call_arguments.done",
            item_id=item["id"],
            output_index=0,
            arguments=arguments,
        )
        done = {**item, "arguments": arguments, "status": "completed"}
    else:
        item = {"id": _new_id("msg"), "type": "message", "role": "assistant", "content": []}
        part = {"type": "output_text", "text": "", "annotations": []}
        emit("response.output_item.added", output_index=0, item={**item, "status": "in_progress"})
        emit(
            "response.content_part.added",
            item_id=item["id"],
            output_index=0,
            content_index=0,
            part=part,
        )
        emit(
            "response.output_text.delta",
            item_id=item["id"],
            output_index=0,
            content_index=0,
            delta=reply.text,
        )
        emit(
            "response.output_text.done",
            item_id=item["id"],
            output_index=0,
            content_index=0,
            text=reply.text,
        )
        full_part = {**part, "text": reply.text}
        emit(
            "response.content_part.done",
            item_id=item["id"],
            output_index=0,
            content_index=0,
            part=full_part,
        )
        done = {**item, "content": [full_part], "status": "completed"}
    emit("response.output_item.done", output_index=0, item=done)
    output_tokens = max(1, len(reply.text) // 4 + 8)
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }
    emit(
        "response.completed",
        response={**base, "status": "completed", "output": [done], "usage": usage},
    )
    return _sse(events), "text/event-stream"


# ----------------------------------------------------------------------------- the server


def _api_for(method: str, path: str) -> Api | None:
    route = path.split("?", 1)[0]
    if method != "POST":
        return None
    if route.endswith("/v1/messages"):
        return "anthropic"
    if ":generateContent" in route or ":streamGenerateContent" in route:
        return "gemini"
    if route.endswith("/responses"):
        return "openai"
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle keep-alive socket is dropped after a minute
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the log is structured
        return

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        else:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            return gzip.decompress(raw)
        if encoding == "deflate":
            return zlib.decompress(raw)
        return raw

    def _send(self, status: int, body: bytes = b"", content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self.server.fake.log(LoggedRequest("HEAD", self.path, dict(self.headers), None, None))
        self._send(200)

    def do_GET(self) -> None:
        self.server.fake.log(LoggedRequest("GET", self.path, dict(self.headers), None, None))
        self._send(404, b"not found")

    def do_POST(self) -> None:
        raw = self._read_body()
        api = _api_for("POST", self.path)
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        if api is None or not isinstance(body, dict):
            self.server.fake.log(LoggedRequest("POST", self.path, dict(self.headers), body, api))
            self._send(404, b"fake model: unknown endpoint or body")
            return
        status, payload, content_type = self.server.fake.answer(
            api, self.path, dict(self.headers), body
        )
        self._send(status, payload, content_type)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeModel) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeModel:
    """The fake model server: start it, point a CLI at :attr:`url`, read :attr:`requests`.

    ``plan`` scripts the replies (module docstring); it may be replaced between CLI runs
    with :meth:`set_plan`.
    """

    def __init__(self, plan: Plan | None = None) -> None:
        self._plan = plan
        self.summary_note = ""
        """What every compaction summary says besides its first line (a rule it keeps)."""
        self._lock = threading.Lock()
        self._requests: list[LoggedRequest] = []
        self._count = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle ------------------------------------------------------------------
    def start(self) -> FakeModel:
        """Bind 127.0.0.1 on an ephemeral port and serve in a daemon thread."""
        if self._server is None:
            self._server = _Server(self)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},  # how soon stop() is noticed, in seconds
                name="fake-model",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (the server must be started)."""
        if self._server is None:
            raise RuntimeError("the fake model server is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` — ANTHROPIC_BASE_URL / GOOGLE_GEMINI_BASE_URL."""
        return f"http://127.0.0.1:{self.port}"

    # script and log -------------------------------------------------------------
    def set_plan(self, plan: Plan | None) -> None:
        """Replace the plan for the requests still to come."""
        with self._lock:
            self._plan = plan

    @property
    def requests(self) -> list[LoggedRequest]:
        """A copy of every request logged so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def model_requests(self, api: Api | None = None) -> list[LoggedRequest]:
        """The logged model requests (``api`` set), optionally of one API only."""
        return [r for r in self.requests if r.api is not None and api in (None, r.api)]

    def log(self, entry: LoggedRequest) -> None:
        with self._lock:
            self._requests.append(entry)

    def iter_bodies(self, api: Api | None = None) -> Iterator[Mapping[str, Any]]:
        """The parsed JSON bodies of the model requests."""
        for entry in self.model_requests(api):
            if isinstance(entry.body, dict):
                yield entry.body

    def answer(
        self, api: Api, path: str, headers: Mapping[str, str], body: Mapping[str, Any]
    ) -> tuple[int, bytes, str]:
        """Decide, encode and log the answer to one model request."""
        number = next(self._count)
        with self._lock:
            plan = self._plan
        try:
            request = parse_request(api, path, body)
            reply = decide(request, plan, number, self.summary_note)
        except Exception as exc:  # noqa: BLE001 - a broken plan must show up in the log, not hang
            self.log(LoggedRequest("POST", path, headers, body, api, "text", f"error: {exc!r}"))
            return 500, f"fake model error: {exc!r}".encode(), "text/plain"
        tokens = (
            reply.input_tokens
            if reply.input_tokens is not None
            else max(1, len(json.dumps(body)) // 4)
        )
        if api == "anthropic":
            payload, content_type = anthropic_body(
                reply, request.model, tokens, stream=bool(body.get("stream"))
            )
        elif api == "gemini":
            payload, content_type = gemini_body(
                reply, request.model, tokens, stream=":streamGenerateContent" in path
            )
        else:
            payload, content_type = openai_body(reply, request.model, tokens, _openai_tools(body))
        kind: Literal["text", "tool"] = "tool" if reply.tool is not None else "text"
        value = reply.tool if reply.tool is not None else reply.text
        self.log(LoggedRequest("POST", path, headers, body, api, kind, value, tokens))
        return 200, payload, content_type
