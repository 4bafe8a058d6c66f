"""Synthetic sessions for the compaction ledger, one story told in the
on-disk format of each CLI, every word our own.

The story (:func:`story`): the person asks for a ``--dry-run`` flag and states two rules
("Never touch migrations/." and "Always run pytest -q before you say it works."); the model
edits ``src/cli.py`` and ``src/db.py`` and a ``pytest -q`` run fails. The host compacts; its
summary names ``src/cli.py`` and the pytest rule again, so the ledger says the compaction
dropped the migrations rule, ``src/db.py`` and the error. With ``compactions=2`` the work
goes on: two more rules ("Don't rename the public API." and "Use the logging module, never
print."), an edit of ``src/log.py``, and a second compaction whose summary keeps only the
first of those rules and restates what the first summary kept (``src/cli.py`` and the
pytest rule; :data:`FORGETFUL_SUMMARY_2` leaves them out).

:func:`write_claude`, :func:`write_codex`, :func:`write_gemini` (JSONL, or the legacy
``.json`` Gemini CLI rewrote whole) and :func:`cursor_bubbles` render the story in each
CLI's records, as their adapters document them (adapters/*/_parse.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

CWD = "/home/dev/shop"
SESSION_ID = "7e1d9c2a-5b4f-4e3d-9c2b-1a0f9e8d7c6b"

PROMPT_1 = (
    "Add a --dry-run flag to the migrate command. Never touch migrations/. "
    "Always run pytest -q before you say it works."
)
KEPT_RULE_1 = "Always run pytest -q before you say it works."
DROPPED_RULE_1 = "Never touch migrations/."
SUMMARY_1 = (
    "Summary: we are adding --dry-run to the migrate command in src/cli.py; the user "
    "asked to always run pytest -q before you say it works."
)
FAILED_OUTPUT = (
    "============ 1 failed in 0.31s ============\n"
    "tests/cli/test_cli.py F\n"
    "E   AssertionError: dry run wrote 2 rows\n"
)
ERROR_LINE = "E AssertionError: dry run wrote 2 rows"

PROMPT_2 = (
    "Now document the flag in README.md. Don't rename the public API. "
    "Use the logging module, never print."
)
KEPT_RULE_2 = "Don't rename the public API."
DROPPED_RULE_2 = "Use the logging module, never print."
SUMMARY_2 = (
    "Summary: --dry-run works in src/cli.py and README.md documents it; the user said: "
    "don't rename the public API, and always run pytest -q before you say it works."
)
FORGETFUL_SUMMARY_2 = (
    "Summary: --dry-run works and README.md documents it; the user said: don't rename "
    "the public API."
)
"""A second summary that leaves out what the first one kept (``src/cli.py`` and
:data:`KEPT_RULE_1`): the second compaction drops them."""
PROMPT_3 = "Carry on with the changelog entry."


@dataclass(frozen=True, slots=True)
class Event:
    """One step of the story, in no CLI's format.

    ``kind``: ``"prompt"`` (``text`` typed), ``"edit"`` (``path`` edited), ``"shell"``
    (``text`` run, ``output`` printed, ``failed``), ``"reply"`` (``text`` answered with
    ``tokens`` in context) or ``"compact"`` (``text`` the summary, with the host's
    ``trigger`` and ``tokens`` before it, and the prompts in ``carried`` the host re-sends
    verbatim).
    """

    kind: Literal["prompt", "edit", "shell", "reply", "compact"]
    text: str = ""
    path: str = ""
    output: str = ""
    failed: bool = False
    tokens: int = 0
    trigger: str = "auto"
    carried: tuple[str, ...] = ()


def story(
    compactions: int = 1,
    *,
    trigger: str = "auto",
    pre_tokens: int = 150_000,
    second_summary: str = SUMMARY_2,
) -> list[Event]:
    """The story with one or two compactions (module docstring), the second one's summary
    being ``second_summary``."""
    events = [
        Event("prompt", PROMPT_1),
        Event("edit", path=f"{CWD}/src/cli.py"),
        Event("edit", path=f"{CWD}/src/db.py"),
        Event("shell", "pytest -q", output=FAILED_OUTPUT, failed=True),
        Event("reply", "The flag is in; one test still fails.", tokens=pre_tokens - 500),
        Event("compact", SUMMARY_1, trigger=trigger, tokens=pre_tokens),
        Event("prompt", PROMPT_2),
        Event("edit", path=f"{CWD}/README.md"),
        Event("edit", path=f"{CWD}/src/log.py"),
        Event("reply", "Documented the flag.", tokens=30_000),
    ]
    if compactions >= 2:
        events += [
            Event("compact", second_summary, trigger=trigger, tokens=pre_tokens + 1_000),
            Event("prompt", PROMPT_3),
            Event("reply", "Added the changelog entry.", tokens=20_000),
        ]
    return events


def _stamp(step: int) -> str:
    return f"2026-11-30T10:{step // 60:02d}:{step % 60:02d}.000Z"


# ---------------------------------------------------------------------- Claude Code


def claude_records(
    events: list[Event], *, model: str = "claude-sonnet-4-5-20250929"
) -> list[dict[str, Any]]:
    """The story as Claude Code ``projects/<project>/<session>.jsonl`` lines."""
    records: list[dict[str, Any]] = []
    parent: str | None = None

    def line(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal parent
        uuid = f"00000000-0000-4000-8000-{len(records):012d}"
        record = {
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION_ID,
            "version": "2.1.197",
            "timestamp": _stamp(len(records)),
            **fields,
        }
        records.append(record)
        parent = uuid
        return record

    def assistant(blocks: list[dict[str, Any]], context: int) -> None:
        index = len(records)
        line(
            "assistant",
            requestId=f"req_{index:04d}",
            message={
                "id": f"msg_{index:04d}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "usage": {
                    "input_tokens": 10,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": max(0, context - 60),
                    "output_tokens": 50,
                },
            },
        )

    def result(call_id: str, text: str, failed: bool) -> None:
        block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
        if failed:
            block["is_error"] = True
        line("user", message={"role": "user", "content": [block]})

    context = 20_000
    for event in events:
        call_id = f"toolu_{len(records):04d}"
        if event.kind == "prompt":
            line("user", message={"role": "user", "content": event.text})
        elif event.kind == "edit":
            args = {"file_path": event.path, "old_string": "a", "new_string": "b"}
            assistant([{"type": "tool_use", "id": call_id, "name": "Edit", "input": args}], context)
            result(call_id, f"The file {event.path} has been updated.", False)
        elif event.kind == "shell":
            args = {"command": event.text}
            assistant([{"type": "tool_use", "id": call_id, "name": "Bash", "input": args}], context)
            output = f"Exit code 1\n{event.output}" if event.failed else event.output
            result(call_id, output, event.failed)
        elif event.kind == "reply":
            context = event.tokens
            assistant([{"type": "text", "text": event.text}], context)
        else:
            line(
                "system",
                subtype="compact_boundary",
                content="Conversation compacted",
                level="info",
                compactMetadata={"trigger": event.trigger, "preTokens": event.tokens},
            )
            line(
                "user",
                isCompactSummary=True,
                isVisibleInTranscriptOnly=True,
                message={"role": "user", "content": event.text},
            )
    return records


def write_claude(path: Path, events: list[Event], **options: Any) -> Path:
    """Write :func:`claude_records` to ``path``."""
    return _write_lines(path, claude_records(events, **options))


# ---------------------------------------------------------------------- Codex CLI


def codex_records(events: list[Event]) -> list[dict[str, Any]]:
    """The story as a Codex ``rollout-….jsonl``: ``compacted`` lines carry the prompts of
    ``Event.carried`` in their ``replacement_history`` (Codex re-sends recent prompts)."""
    records: list[dict[str, Any]] = []

    def line(kind: str, payload: dict[str, Any]) -> None:
        records.append({"timestamp": _stamp(len(records)), "type": kind, "payload": payload})

    def user_item(text: str) -> dict[str, Any]:
        content = [{"type": "input_text", "text": text}]
        return {"type": "message", "role": "user", "content": content}

    line("session_meta", {"id": SESSION_ID, "cwd": CWD, "cli_version": "0.171.0"})
    line("turn_context", {"model": "gpt-5.5", "cwd": CWD, "approval_policy": "never"})
    for event in events:
        call_id = f"call_{len(records):04d}"
        if event.kind == "prompt":
            line("response_item", user_item(event.text))
        elif event.kind == "edit":
            patch = f"*** Begin Patch\n*** Update File: {event.path}\n@@\n-a\n+b\n*** End Patch\n"
            line(
                "response_item",
                {
                    "type": "custom_tool_call",
                    "name": "apply_patch",
                    "call_id": call_id,
                    "input": patch,
                },
            )
            line(
                "response_item",
                {"type": "custom_tool_call_output", "call_id": call_id, "output": "Success."},
            )
        elif event.kind == "shell":
            arguments = json.dumps({"command": event.text})
            line(
                "response_item",
                {
                    "type": "function_call",
                    "name": "shell_command",
                    "arguments": arguments,
                    "call_id": call_id,
                },
            )
            code = 1 if event.failed else 0
            output = f"Exit code: {code}\nWall time: 0.4 seconds\nOutput:\n{event.output}"
            line(
                "response_item",
                {"type": "function_call_output", "call_id": call_id, "output": output},
            )
        elif event.kind == "reply":
            content = [{"type": "output_text", "text": event.text}]
            line("response_item", {"type": "message", "role": "assistant", "content": content})
            usage = {
                "input_tokens": event.tokens - 10,
                "cached_input_tokens": 0,
                "output_tokens": 10,
                "reasoning_output_tokens": 0,
                "total_tokens": event.tokens,
            }
            line(
                "event_msg",
                {
                    "type": "token_count",
                    "info": {
                        "last_token_usage": usage,
                        "total_token_usage": {**usage, "total_tokens": event.tokens * 3},
                        "model_context_window": 258_400,
                    },
                },
            )
        else:
            history = [user_item(text) for text in event.carried]
            line("compacted", {"message": event.text, "replacement_history": history})
            line("event_msg", {"type": "context_compacted"})
    return records


def write_codex(root: Path, events: list[Event]) -> Path:
    """Write :func:`codex_records` under ``root/sessions/2026/11/30/``."""
    name = f"rollout-2026-11-30T10-00-00-{SESSION_ID}.jsonl"
    path = root / "sessions" / "2026" / "11" / "30" / name
    return _write_lines(path, codex_records(events))


# ---------------------------------------------------------------------- Gemini CLI


def gemini_messages(events: list[Event]) -> list[list[dict[str, Any]]]:
    """The story as Gemini CLI message records, one list per stretch between
    compactions: ``result[i]`` are the records written after the ``i``-th compaction's
    rewrite (whose list :func:`write_gemini` builds from the summary and ``carried``)."""
    stretches: list[list[dict[str, Any]]] = [[]]
    count = 0

    def record(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal count
        count += 1
        made = {"id": f"g-{count:03d}", "timestamp": _stamp(count), "type": kind, **fields}
        stretches[-1].append(made)
        return made

    def call(name: str, args: dict[str, Any], response: dict[str, Any], failed: bool) -> None:
        call_id = f"{name}-{count:03d}"
        record(
            "gemini",
            content="",
            model="gemini-2.5-pro",
            tokens={"input": 9_000, "output": 20, "cached": 0, "total": 9_020},
            toolCalls=[
                {
                    "id": call_id,
                    "name": name,
                    "args": args,
                    "status": "error" if failed else "success",
                    "result": [
                        {"functionResponse": {"id": call_id, "name": name, "response": response}}
                    ],
                }
            ],
        )

    for event in events:
        if event.kind == "prompt":
            record("user", content=[{"text": event.text}])
        elif event.kind == "edit":
            args = {"file_path": event.path, "old_string": "a", "new_string": "b"}
            call("replace", args, {"output": "Successfully modified file."}, False)
        elif event.kind == "shell":
            response = {"error": event.output} if event.failed else {"output": event.output}
            call("run_shell_command", {"command": event.text}, response, event.failed)
        elif event.kind == "reply":
            record(
                "gemini",
                content=event.text,
                model="gemini-2.5-pro",
                tokens={"input": event.tokens, "output": 20, "cached": 0, "total": event.tokens},
            )
        else:
            stretches.append([])
    return stretches


def _rewrite(event: Event, before: list[dict[str, Any]], number: int) -> list[dict[str, Any]]:
    """The ``$set.messages`` list of a compression: the session context, the snapshot,
    the CLI's acknowledgement, then the records of the prompts the host kept verbatim."""
    carried = [
        r
        for r in before
        if r["type"] == "user" and r["content"] and r["content"][0].get("text") in event.carried
    ]
    return [
        {
            "id": "g-context",
            "timestamp": _stamp(0),
            "type": "user",
            "content": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}],
        },
        {
            "id": f"g-snapshot-{number}",
            "timestamp": _stamp(200 + number),
            "type": "user",
            "content": [{"text": f"<state_snapshot>\n{event.text}\n</state_snapshot>"}],
        },
        {
            "id": f"g-ack-{number}",
            "timestamp": _stamp(200 + number),
            "type": "gemini",
            "content": [{"text": "Got it. Thanks for the additional context!"}],
        },
        *carried,
    ]


def write_gemini(path: Path, events: list[Event], *, legacy: bool = False) -> Path:
    """The story as a Gemini CLI ``chats/session-….jsonl`` (a metadata line, the records,
    a ``$set.messages`` rewrite per compaction), or with ``legacy`` as the single
    ``.json`` object Gemini CLI ≤ 0.38 rewrote whole on every change: the messages since
    the last compression only, after its snapshot."""
    stretches = gemini_messages(events)
    compactions = [e for e in events if e.kind == "compact"]
    meta = {
        "sessionId": SESSION_ID,
        "projectHash": "cd" * 32,
        "startTime": _stamp(0),
        "lastUpdated": _stamp(300),
        "kind": "main",
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    if legacy:
        listed = stretches[0]
        if compactions:
            listed = [*_rewrite(compactions[-1], [], len(compactions)), *stretches[-1]]
        document = {**meta, "directories": [CWD], "messages": listed}
        path.write_text(json.dumps(document), encoding="utf-8")
        return path
    lines: list[dict[str, Any]] = [meta, {"$set": {"directories": [CWD]}}]
    remembered: list[dict[str, Any]] = []
    for number, stretch in enumerate(stretches):
        if number:
            rewrite = _rewrite(compactions[number - 1], remembered, number)
            lines.append({"$set": {"messages": rewrite}})
            remembered = list(rewrite)
        lines += stretch
        remembered += stretch
    return _write_lines(path, lines)


# ---------------------------------------------------------------------- Cursor


def cursor_bubbles(events: list[Event]) -> list[dict[str, Any]]:
    """The story as Cursor composer bubbles (tests/cursor_home.py's shapes): a compaction
    is an assistant bubble carrying ``conversationSummary``, whose boundary is the bubble
    after it."""
    from cursor_home import ai_bubble, tool_bubble, user_bubble

    bubbles: list[dict[str, Any]] = []
    pending: list[tuple[dict[str, Any], str]] = []
    for index, event in enumerate(events):
        bubble_id = f"b{index:03d}"
        if event.kind == "prompt":
            bubbles.append(user_bubble(bubble_id, event.text, index))
        elif event.kind == "edit":
            bubbles.append(
                tool_bubble(
                    bubble_id,
                    "edit_file",
                    {"target_file": event.path, "code_edit": "b"},
                    result={"diff": "+b"},
                    offset_s=index,
                )
            )
        elif event.kind == "shell":
            bubbles.append(
                tool_bubble(
                    bubble_id,
                    "run_terminal_cmd",
                    {"command": event.text},
                    result=event.output,
                    status="error" if event.failed else "completed",
                    offset_s=index,
                )
            )
        elif event.kind == "reply":
            bubbles.append(
                ai_bubble(
                    bubble_id,
                    event.text,
                    index,
                    tokenCount={"inputTokens": event.tokens, "outputTokens": 20},
                )
            )
        else:
            summary = {
                "summary": event.text,
                "truncationLastBubbleIdInclusive": bubbles[-1]["bubbleId"],
                "previousConversationSummaryBubbleId": "",
                "includesToolResults": True,
                "strategy": "plain_text_summary",
            }
            carrier = ai_bubble(bubble_id, "", index)
            bubbles.append(carrier)
            pending.append((summary, bubble_id))
            carrier["conversationSummary"] = summary
    # each summary's boundary is the bubble that follows its carrier
    ids = [b["bubbleId"] for b in bubbles]
    for summary, carrier_id in pending:
        after = ids[ids.index(carrier_id) + 1]
        summary["clientShouldStartSendingFromInclusiveBubbleId"] = after
    for bubble in bubbles:
        if "conversationSummary" in bubble:
            bubble["conversationSummary"] = json.dumps(bubble["conversationSummary"])
    return bubbles


def _write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
