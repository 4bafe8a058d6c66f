"""The Claude Code adapter (docs/design.md §4, §5.1, §5.3; docs/formats.md §A, §E).

Two kinds of tests:

- the real files of the shared corpus, read in place: each must parse, and the facts
  asserted for each were established by reading its raw JSON lines with one-off scripts
  (see the comment above ``REAL_FILES``), not by running this parser;
- small synthetic sessions written in our own words to ``tmp_path`` by :func:`write_session`,
  mirroring the on-disk layout ``projects/<project>/<session-id>.jsonl``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import zstandard
from conftest import corpus_file

from driftguard.adapters._common import estimate_tokens, iter_lines, open_session_file
from driftguard.adapters.claude_code import ClaudeCodeParser, parse
from driftguard.errors import SessionFormatError
from driftguard.model import ParsedMessage, Session

SESSION_ID = "6c1d2e3f-0a1b-4c2d-8e3f-405162738495"
PROJECT = "-home-dev-demo"
CWD = "/home/dev/demo"

# --- synthetic records ---------------------------------------------------------------


def write_session(
    tmp_path: Path,
    records: list[dict[str, Any] | str],
    *,
    name: str = f"{SESSION_ID}.jsonl",
    tail: bytes = b"",
) -> Path:
    """Write records (dicts as JSON, strings as raw lines) as a session file; ``tail`` is
    appended after the last newline (a half-written line)."""
    folder = tmp_path / "projects" / PROJECT
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8") + tail)
    return path


def envelope(uuid: str, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "uuid": uuid,
        "parentUuid": None,
        "isSidechain": False,
        "sessionId": SESSION_ID,
        "cwd": CWD,
        "version": "2.1.200",
        "timestamp": "2026-03-01T10:00:00.000Z",
    }
    record.update(extra)
    return record


def prompt(uuid: str, content: Any, **extra: Any) -> dict[str, Any]:
    return envelope(uuid, type="user", message={"role": "user", "content": content}, **extra)


def tool_result(
    uuid: str, text: Any, *, is_error: bool | None = None, **extra: Any
) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"toolu_{uuid}", "content": text}
    if is_error is not None:
        block["is_error"] = is_error
    return prompt(uuid, [block], **extra)


def usage(
    fresh: int = 0,
    creation: int = 0,
    read: int = 0,
    output: int = 10,
    breakdown: dict[str, Any] | None = None,
) -> dict[str, Any]:
    value: dict[str, Any] = {
        "input_tokens": fresh,
        "cache_creation_input_tokens": creation,
        "cache_read_input_tokens": read,
        "output_tokens": output,
    }
    if breakdown is not None:
        value["cache_creation"] = breakdown
    return value


def reply(
    uuid: str,
    blocks: list[Any],
    *,
    message_id: str | None = None,
    request_id: str | None = "auto",
    used: dict[str, Any] | None = None,
    model: str | None = "claude-sonnet-4-5-20250929",
    **extra: Any,
) -> dict[str, Any]:
    """One assistant line; ``message_id`` defaults to one per uuid, ``request_id`` to one
    derived from the message id (``None`` leaves the field out)."""
    mid = message_id or f"msg_{uuid}"
    message: dict[str, Any] = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "usage": usage(fresh=3, read=1000) if used is None else used,
    }
    record = envelope(uuid, type="assistant", message=message, **extra)
    if request_id == "auto":
        record["requestId"] = f"req_{mid}"
    elif request_id is not None:
        record["requestId"] = request_id
    return record


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "sig"}


def tool_use(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": args}


def boundary(uuid: str, **metadata: Any) -> dict[str, Any]:
    return envelope(
        uuid,
        type="system",
        subtype="compact_boundary",
        content="Conversation compacted",
        compactMetadata={"trigger": "auto", "preTokens": 150_000, **metadata},
    )


def roles(session: Session) -> list[str]:
    return [("summary" if m.is_summary else m.role) for m in session.messages]


def counts(session: Session) -> tuple[int, int]:
    """(user messages, assistant messages), the summary excluded."""
    users = sum(1 for m in session.messages if m.role == "user" and not m.is_summary)
    assistants = sum(1 for m in session.messages if m.role == "assistant")
    return users, assistants


def only(messages: tuple[ParsedMessage, ...], role: str) -> list[ParsedMessage]:
    return [m for m in messages if m.role == role and not m.is_summary]


# --- the shared corpus (real files, read in place) -----------------------------------

CLAUDE_FILES = [
    "claude_code/cc_REDACTED_schema-catalog_v2.1.x_agentsessions.jsonl",
    "claude_code/cc_edge_empty-file_b23cbd1d.jsonl",
    "claude_code/cc_edge_file-history-snapshot-only_a95fea4a.jsonl",
    "claude_code/cc_edge_summary-only_4e27c414.jsonl",
    "claude_code/cc_v1.0.108_inline-sidechain_ccviewer_5c0375b4.jsonl",
    "claude_code/cc_v1.0.24_summary-lines_fe869ecb.jsonl",
    "claude_code/cc_v1.0.51_hook-system-msgs_326189cf.jsonl",
    "claude_code/cc_v1.0.98_ccviewer_1af7fc5e.jsonl",
    "claude_code/cc_v2.0.0_no-assistant_3680252d.jsonl",
    "claude_code/cc_v2.0.28_small_5ed31c36.jsonl",
    "claude_code/cc_v2.0.31_legacy-agent-warmup_agent-41be4aa9.jsonl",
    "claude_code/cc_v2.0.37_legacy-agent-sidechain_agent-668b5ac2.jsonl",
    "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/"
    "agent-a36efb2a1231c41e2.jsonl",
    "generated/claude/claude-long-26turns-compact.jsonl",
    "generated/claude/claude-ping-1turn.jsonl",
]


@pytest.mark.parametrize("relative", CLAUDE_FILES)
def test_every_claude_corpus_file_parses(relative: str) -> None:
    session = parse(corpus_file(relative))
    assert session.cli == "claude_code"
    assert session.context_window in (200_000, 1_000_000)
    assert session.context_tokens >= 0


@dataclass(frozen=True)
class Facts:
    users: int
    assistants: int
    context_tokens: int
    model: str | None
    session_id: str | None
    context_window: int = 200_000
    compactions: int = 0
    skipped_lines: int = 0
    tokens_estimated: bool = False


# How these were established: a one-off python3 script over each raw file printed, per line,
# the type, uuid, flags (isSidechain/isMeta/isCompactSummary/isApiErrorMessage), message.id,
# requestId, model, the four usage fields plus the cache_creation breakdown sum, and the
# content blocks (text start, tool_use name, tool_result start). From that listing:
# - users = main-chain user lines whose text is a typed prompt (lines that are isMeta, hold
#   only tool_result blocks, or start with <command-…>, <local-command-…>, <bash-…> were
#   counted out by hand);
# - assistants = distinct message.id groups on the main chain having a non-empty text block;
# - context_tokens = input + cache_creation + cache_read of the file's last main-chain
#   assistant line with non-zero usage (the breakdown sum never exceeded the field here);
# - session_id / model = the last sessionId, and the model of that last response;
# - every line decoded as a JSON object of a §A.4 type, so skipped_lines is 0 everywhere.
REAL_FILES: dict[str, Facts] = {
    # 15 summary lines, user prompts at lines 16 and 48 (1-based); lines 109–111 are the
    # /clear caveat (isMeta), <command-name> and <local-command-stdout>. Seven text
    # responses; last line 108: 10 + 7979 + 52571.
    "claude_code/cc_v1.0.24_summary-lines_fe869ecb.jsonl": Facts(
        2, 7, 60_560, "claude-sonnet-4-20250514", "fe869ecb-c176-478f-9734-7e4b8ef12cff"
    ),
    # Lines 5–7 are the caveat (isMeta), <bash-input> and <bash-stdout>; the one prompt is
    # "please fix these". Six text responses; last assistant line 50: 0 + 125 + 25452.
    "claude_code/cc_v1.0.51_hook-system-msgs_326189cf.jsonl": Facts(
        1, 6, 25_577, "claude-sonnet-4-20250514", "326189cf-5676-4237-8cde-1ce80aae4a9f"
    ),
    # Only user text is the /init command wrapper and its isMeta expansion. Text in
    # responses msg_…2AmpgWfZ, …E3aCLQjb, …uynqjwKT; last line 29: 5 + 129 + 17303.
    "claude_code/cc_v1.0.98_ccviewer_1af7fc5e.jsonl": Facts(
        0, 3, 17_437, "claude-sonnet-4-20250514", "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
    ),
    # /orchestrator wrapper + isMeta expansion, no typed prompt. Main-chain text responses
    # …3LjZjnMA, …X1TgubZn, …3JVuzhiH (the 22 isSidechain lines excluded); last main line
    # 53: 6 + 226 + 25848.
    "claude_code/cc_v1.0.108_inline-sidechain_ccviewer_5c0375b4.jsonl": Facts(
        0, 3, 26_080, "claude-sonnet-4-20250514", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    ),
    # 3 summary lines, then the /model caveat (isMeta), <command-name>, <local-command-stdout>;
    # no assistant line at all: nothing remembered, estimate 0.
    "claude_code/cc_v2.0.0_no-assistant_3680252d.jsonl": Facts(
        0, 0, 0, None, "3680252d-d4e3-4416-bddd-8f5b5b4fdb7f", tokens_estimated=True
    ),
    # One prompt (an <ide_opened_file> block + typed text); text responses …kdDwaXrP,
    # …oy7Gc95V, …984o4Js2; last line 12: 6 + 205 + 16368.
    "claude_code/cc_v2.0.28_small_5ed31c36.jsonl": Facts(
        1, 3, 16_579, "claude-sonnet-4-5-20250929", "5ed31c36-bca8-40fd-8d24-f1a1f0af7901"
    ),
    # agent-*.jsonl: both lines isSidechain, scored as the subagent's own conversation:
    # "Warmup" and one text reply, 3 + 0 + 3810; sessionId is the parent's.
    "claude_code/cc_v2.0.31_legacy-agent-warmup_agent-41be4aa9.jsonl": Facts(
        1, 1, 3_813, "claude-sonnet-4-5-20250929", "4e062ed2-cbfa-4cb8-bc9a-1551bf168eaf"
    ),
    # agent-*.jsonl, 20 sidechain lines: the task prompt and 5 text responses
    # (…WDxAHAeR, …6iSwvG7u, …6LjpFV7u, …DKKV2HtZ, …DNbtcJ33); last line 20: 4 + 1846 + 37178.
    "claude_code/cc_v2.0.37_legacy-agent-sidechain_agent-668b5ac2.jsonl": Facts(
        1, 5, 39_028, "claude-haiku-4-5-20251001", "741790a4-4fe2-4644-9a51-fb4482074060"
    ),
    # Prompts at lines 5 and 117 (/exit wrappers at 178–180 excluded); 8 of the 17
    # message.id groups have text; last assistant line 170: 1 + 920 + 65682. Opus 4.7 is a
    # 1M-native family.
    "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl": Facts(
        2,
        8,
        66_603,
        "claude-opus-4-7",
        "ef958aa1-0e93-49f0-bb71-150f63befcd1",
        context_window=1_000_000,
    ),
    # Subagent file: the spawn prompt, text responses …5LC3Luz7, …ttTh5rXY, …CEkoiqWL
    # (…1unfUjq6 is tool calls only, its lines interleaved with tool results); last line
    # 18: 1 + 192 + 28549.
    "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/"
    "agent-a36efb2a1231c41e2.jsonl": Facts(
        1,
        3,
        28_742,
        "claude-opus-4-7",
        "ef958aa1-0e93-49f0-bb71-150f63befcd1",
        context_window=1_000_000,
    ),
    # Two system/compact_boundary lines (1-based lines 63 and 169). After the last one: the
    # isCompactSummary line, a text response (20000 input), the prompt "Turn 26" and its
    # text reply (27000 input, no cache). Max input 167000 ≤ 200k, but claude-opus-4-8
    # is a later Opus 4.x, so the window is 1M.
    "generated/claude/claude-long-26turns-compact.jsonl": Facts(
        1,
        2,
        27_000,
        "claude-opus-4-8",
        "c646b2d0-97ed-4258-8037-b61a6707d1f4",
        context_window=1_000_000,
        compactions=2,
    ),
    # One prompt, a tool-only response, the tool result, a text reply with input 19785.
    "generated/claude/claude-ping-1turn.jsonl": Facts(
        1,
        1,
        19_785,
        "claude-opus-4-8",
        "5a396aba-9140-49eb-b216-ed75f7a7ed0f",
        context_window=1_000_000,
    ),
    # Degenerate files (0 bytes; one summary line; four file-history-snapshot lines): no
    # sessionId anywhere, nothing remembered.
    "claude_code/cc_edge_empty-file_b23cbd1d.jsonl": Facts(
        0, 0, 0, None, None, tokens_estimated=True
    ),
    "claude_code/cc_edge_summary-only_4e27c414.jsonl": Facts(
        0, 0, 0, None, None, tokens_estimated=True
    ),
    "claude_code/cc_edge_file-history-snapshot-only_a95fea4a.jsonl": Facts(
        0, 0, 0, None, None, tokens_estimated=True
    ),
}


@pytest.mark.parametrize("relative", sorted(REAL_FILES))
def test_real_file_matches_the_facts_read_from_its_raw_lines(relative: str) -> None:
    facts = REAL_FILES[relative]
    session = parse(corpus_file(relative))
    assert counts(session) == (facts.users, facts.assistants)
    assert session.message_count == facts.users + facts.assistants
    assert session.context_tokens == facts.context_tokens
    assert session.tokens_estimated is facts.tokens_estimated
    assert session.model == facts.model
    assert session.session_id == facts.session_id
    assert session.context_window == facts.context_window
    assert session.compactions == facts.compactions
    assert session.skipped_lines == facts.skipped_lines


def test_generated_compaction_keeps_only_what_follows_the_last_boundary() -> None:
    # Raw lines after the second boundary (1-based 169): summary 170, reply 172, prompt
    # 176, reply 178; the mid-turn tool_use/tool_result pair written twice (165–168, same
    # uuids) is the preserved segment before the boundary and is dropped.
    session = parse(corpus_file("generated/claude/claude-long-26turns-compact.jsonl"))
    assert roles(session) == ["summary", "assistant", "user", "assistant"]
    summary = session.messages[0]
    assert summary.content.startswith("This session is being continued from a previous")
    assert session.messages[2].content == "Turn 26: summarize progress so far in one line"
    assert [m.token_count for m in session.messages] == [None, 20_000, None, 27_000]
    assert session.cwd == "/home/user/proj"


def test_inline_sidechain_traffic_of_a_real_main_file_is_not_scored() -> None:
    # The Task subagent's own replies (isSidechain) start "I'll examine the package.json"
    # and "Based on my analysis"; neither may appear among the remembered messages.
    session = parse(corpus_file("claude_code/cc_v1.0.108_inline-sidechain_ccviewer_5c0375b4.jsonl"))
    texts = session.assistant_texts
    assert not any(t.startswith(("I'll examine", "Based on my analysis")) for t in texts)
    assert texts[0].startswith("I'll help you update the CLAUDE.md")


def test_redacted_catalog_parses_with_both_compactions_and_no_unknown_types() -> None:
    # Catalog only for schema coverage: it holds two system/compact_boundary lines (uuid
    # "s4", and one with a redacted uuid and a preservedSegment), and every type in it is
    # one of docs/formats.md §A.4 (counted with collections.Counter over the raw "type" values).
    path = corpus_file("claude_code/cc_REDACTED_schema-catalog_v2.1.x_agentsessions.jsonl")
    session = parse(path)
    assert session.compactions == 2
    assert session.skipped_lines == 0
    parser = ClaudeCodeParser(str(path))
    with open_session_file(path) as stream:
        for line, terminated in iter_lines(stream):
            parser.feed(line, terminated)
    parser.feed(b'{"type": "a-type-from-the-future", "sessionId": "x"}')
    assert parser.session().skipped_lines == 1


# --- responses split over several lines (docs/formats.md §A.6, §E #1–#2) ------------------


def test_split_response_lines_merge_into_one_assistant_message(tmp_path: Path) -> None:
    early = usage(fresh=4, creation=300, read=9000, output=7)
    final = usage(fresh=4, creation=300, read=9000, output=480)
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Rename the helper and update its callers."),
            reply("a1", [thinking("plan it")], message_id="msg_1", used=early),
            reply("a2", [text("Renaming now.")], message_id="msg_1", used=early),
            reply(
                "a3",
                [tool_use("Edit", file_path="/home/dev/demo/x.py")],
                message_id="msg_1",
                used=early,
            ),
            reply("a4", [text("Callers updated too.")], message_id="msg_1", used=final),
        ],
    )
    session = parse(path)
    (assistant,) = only(session.messages, "assistant")
    assert assistant.content == "Renaming now.\nCallers updated too."
    assert assistant.token_count == 9304  # 4 + 300 + 9000, once, not per line
    assert [c.name for c in assistant.tool_calls] == ["Edit"]
    assert assistant.tool_calls[0].target_path == "/home/dev/demo/x.py"
    assert assistant.model == "claude-sonnet-4-5-20250929"
    assert assistant.timestamp == pytest.approx(1772359200.0)  # 2026-03-01T10:00:00Z
    assert session.context_tokens == 9304
    assert session.tokens_estimated is False


def test_usage_of_a_response_comes_from_its_last_line(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Go."),
            reply("a1", [text("First part.")], message_id="msg_1", used=usage(fresh=10, read=500)),
            reply("a2", [text("Second part.")], message_id="msg_1", used=usage(fresh=10, read=800)),
        ],
    )
    session = parse(path)
    assert session.context_tokens == 810
    assert only(session.messages, "assistant")[0].token_count == 810


def test_interleaved_lines_of_one_response_stay_one_message_at_its_first_position(
    tmp_path: Path,
) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Read the three notes."),
            reply("a1", [tool_use("Read", file_path="/n/1.md")], message_id="msg_r"),
            tool_result("t1", "note one"),
            reply("a2", [tool_use("Read", file_path="/n/2.md")], message_id="msg_r"),
            tool_result("t2", "note two"),
            reply("a3", [text("Both read.")], message_id="msg_s"),
        ],
    )
    session = parse(path)
    assert roles(session) == ["user", "tool", "tool", "tool", "assistant"]
    calls = session.messages[1]
    assert calls.content == ""
    assert [c.target_path for c in calls.tool_calls] == ["/n/1.md", "/n/2.md"]


def test_tool_only_response_is_a_tool_message_carrying_its_calls(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "List the files."),
            reply("a1", [text("\n\n"), tool_use("Bash", command="ls -la")], used=usage(fresh=50)),
            tool_result("t1", "a.txt\nb.txt"),
            reply("a2", [text("Two files.")], used=usage(fresh=70)),
        ],
    )
    session = parse(path)
    assert roles(session) == ["user", "tool", "tool", "assistant"]
    calls = session.messages[1]
    assert calls.content == ""
    assert calls.token_count == 50
    assert calls.tool_calls[0].name == "Bash"
    assert calls.tool_calls[0].command == "ls -la"
    assert counts(session) == (1, 1)


def test_thinking_only_response_adds_no_message_but_its_usage_counts(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Think first."),
            reply("a1", [text("Ok.")], used=usage(fresh=100)),
            reply("a2", [thinking("hmm")], used=usage(fresh=140)),
        ],
    )
    session = parse(path)
    assert roles(session) == ["user", "assistant"]
    assert session.context_tokens == 140


def test_same_message_id_under_two_request_ids_is_two_responses(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "One."),
            reply("a1", [text("Answer one.")], message_id="msg_same", request_id="req_1"),
            prompt("u2", "Two."),
            reply("a2", [text("Answer two.")], message_id="msg_same", request_id="req_2"),
        ],
    )
    assert parse(path).assistant_texts == ("Answer one.", "Answer two.")


def test_ids_that_differ_only_around_a_nul_character_are_two_responses(tmp_path: Path) -> None:
    # Response keys join both ids with a NUL when neither holds one; these must not merge.
    path = write_session(
        tmp_path,
        [
            prompt("u1", "One."),
            reply("a1", [text("First.")], message_id="m\0x", request_id="r"),
            reply("a2", [text("Second.")], message_id="m", request_id="x\0r"),
            reply("a3", [text("Third.")], message_id="m\0x", request_id="r"),
        ],
    )
    assert parse(path).assistant_texts == ("First.\nThird.", "Second.")


def test_reused_message_id_without_request_id_only_joins_the_latest_response(
    tmp_path: Path,
) -> None:
    # A gateway that gives every response the same id and no requestId (docs/formats.md §E #4).
    path = write_session(
        tmp_path,
        [
            prompt("u1", "One."),
            reply("a1", [text("Part A.")], message_id="msg_gw", request_id=None),
            reply("a2", [text("Part B.")], message_id="msg_gw", request_id=None),
            prompt("u2", "Two."),
            reply("a3", [text("Answer two.")], message_id="msg_gw", request_id=None),
        ],
    )
    assert parse(path).assistant_texts == ("Part A.\nPart B.", "Answer two.")


def test_lines_without_message_id_or_request_id_are_separate_responses(tmp_path: Path) -> None:
    first = reply("a1", [text("Alpha.")], request_id=None)
    second = reply("a2", [text("Beta.")], request_id=None)
    del first["message"]["id"], second["message"]["id"]
    path = write_session(tmp_path, [prompt("u1", "Go."), first, second])
    assert parse(path).assistant_texts == ("Alpha.", "Beta.")


# --- de-duplication, sidechains, subagents -------------------------------------------


def test_lines_written_twice_with_the_same_uuid_count_once(tmp_path: Path) -> None:
    call = reply("a1", [tool_use("Bash", command="make")], used=usage(fresh=900))
    result = tool_result("t1", "built")
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Build it."),
            call,
            result,
            call,
            result,
            reply("a2", [text("Built.")], used=usage(fresh=950)),
            prompt("u1", "Build it."),
        ],
    )
    session = parse(path)
    assert roles(session) == ["user", "tool", "tool", "assistant"]
    assert len(session.messages[1].tool_calls) == 1


def test_sidechain_lines_in_a_main_file_are_never_scored(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Spawn a helper to look around."),
            reply("a1", [tool_use("Task", prompt="look")], used=usage(fresh=2000)),
            prompt("s1", "look", isSidechain=True),
            reply("s2", [text("Helper reporting.")], isSidechain=True, used=usage(fresh=450_000)),
            tool_result("t1", "helper done"),
            reply("a2", [text("The helper is done.")], used=usage(fresh=2600)),
        ],
    )
    session = parse(path)
    assert session.assistant_texts == ("The helper is done.",)
    assert counts(session) == (1, 1)
    assert session.context_tokens == 2600
    assert session.context_window == 200_000  # the sidechain's 450k request is not ours


def test_agent_file_is_scored_as_the_subagents_own_conversation(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("s1", "Find every TODO in src/.", isSidechain=True, agentId="a1b2c3"),
            reply("s2", [text("Searching.")], isSidechain=True, used=usage(read=3000)),
            reply("s3", [text("Found four.")], isSidechain=True, used=usage(read=3300)),
        ],
        name="agent-a1b2c3.jsonl",
    )
    session = parse(path)
    assert counts(session) == (1, 2)
    assert session.context_tokens == 3300
    assert session.session_id == SESSION_ID


def test_agent_file_scores_its_lines_even_when_not_flagged_as_sidechain(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("s1", "Check the build.", isSidechain=True),
            reply("s2", [text("Build is green.")], isSidechain=None),
        ],
        name="agent-d4e5f6.jsonl",
    )
    assert counts(parse(path)) == (1, 1)


def test_file_of_only_sidechain_lines_is_scored_as_a_subagent(tmp_path: Path) -> None:
    # Named like a main session, but no main-chain conversation line at all.
    path = write_session(
        tmp_path,
        [
            prompt("s1", "Summarise the README.", isSidechain=True),
            reply("s2", [text("It describes a CLI.")], isSidechain=True, used=usage(read=1200)),
        ],
    )
    session = parse(path)
    assert counts(session) == (1, 1)
    assert session.context_tokens == 1200


def test_first_main_line_turns_a_sidechain_only_prefix_into_ignored_traffic(
    tmp_path: Path,
) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("s1", "Warm up.", isSidechain=True),
            reply("s2", [text("Warm.")], isSidechain=True, used=usage(read=100)),
            prompt("u1", "Real work now."),
            reply("a1", [text("On it.")], used=usage(read=700)),
        ],
    )
    session = parse(path)
    assert session.assistant_texts == ("On it.",)
    assert session.context_tokens == 700


# --- what is and is not a user message (docs/design.md §5.1) ----------------------------------


def test_harness_lines_are_not_user_messages(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("m1", "Caveat: local command output follows.", isMeta=True),
            prompt(
                "m2",
                "<command-name>/model</command-name>\n<command-message>model</command-message>",
            ),
            prompt("m3", "<local-command-stdout>Model set.</local-command-stdout>"),
            prompt("m4", "<local-command-caveat>Caveat: generated locally.</local-command-caveat>"),
            prompt("m5", [text("[Request interrupted by user]")]),
            prompt("m6", "<system-reminder>The date changed.</system-reminder>"),
            prompt("m7", [text("A skill body the harness expanded.")], isMeta=True),
            prompt("m8", "<bash-input>git status</bash-input>"),
            prompt(
                "u1",
                [
                    text("<system-reminder>Stay brief.</system-reminder>"),
                    text("Fix the flaky test."),
                ],
            ),
            prompt(
                "u2", ["Also bump the version.", {"type": "image", "source": {"type": "base64"}}]
            ),
        ],
    )
    session = parse(path)
    assert [m.content for m in session.messages] == [
        "Fix the flaky test.",
        "Also bump the version.",
    ]
    assert counts(session) == (2, 0)


def test_reminder_inside_a_typed_prompt_is_removed_from_its_text(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [prompt("u1", "Ship it.\n<system-reminder>Mind the tests.</system-reminder>")],
    )
    assert [m.content for m in parse(path).messages] == ["Ship it."]


def test_tool_results_become_tool_messages_with_their_error_flag(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Run both."),
            tool_result("t1", "plain output"),
            tool_result("t2", [text("first"), "bare second", {"type": "image"}], is_error=False),
            tool_result("t3", "command failed", is_error=True),
            prompt(
                "t4",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "x",
                        "content": "denied",
                        "is_error": True,
                    },
                    text("[Request interrupted by user for tool use]"),
                ],
            ),
        ],
    )
    session = parse(path)
    tools = only(session.messages, "tool")
    assert [(m.content, m.is_error) for m in tools] == [
        ("plain output", False),
        ("first\nbare second", False),
        ("command failed", True),
        ("denied", True),
    ]
    assert counts(session) == (1, 0)


def test_api_error_and_synthetic_replies_are_never_scored(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Hello."),
            reply("a1", [text("Hi.")], used=usage(fresh=1200)),
            prompt("u2", "And again."),
            reply(
                "a2",
                [text("API Error: overloaded")],
                isApiErrorMessage=True,
                error="overloaded",
                used=usage(fresh=5000),
                model="claude-opus-4-8",
            ),
            reply(
                "a3", [text("No response requested.")], model="<synthetic>", used=usage(fresh=7000)
            ),
        ],
    )
    session = parse(path)
    assert session.assistant_texts == ("Hi.",)
    assert session.context_tokens == 1200
    assert session.model == "claude-sonnet-4-5-20250929"
    assert session.context_window == 200_000


def test_zero_usage_is_never_the_latest_request(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Go."),
            reply("a1", [text("Done.")], used=usage(fresh=2, read=4000)),
            reply("a2", [text("Empty usage.")], used={}),
            reply("a3", [text("Zero usage.")], used=usage()),
        ],
    )
    session = parse(path)
    assert session.context_tokens == 4002
    assert [m.token_count for m in only(session.messages, "assistant")] == [4002, None, None]


# --- compaction (docs/design.md §5.1) ---------------------------------------------------------


def test_compact_boundary_drops_everything_before_it_and_keeps_the_flagged_summary(
    tmp_path: Path,
) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Old request."),
            reply("a1", [text("Old answer.")], used=usage(read=150_000)),
            boundary("b1"),
            prompt(
                "c1",
                "Summary: the user asked for an old request.",
                isCompactSummary=True,
                isVisibleInTranscriptOnly=True,
            ),
            prompt("u2", "New request."),
            reply("a2", [text("New answer.")], used=usage(fresh=5, read=9000)),
        ],
    )
    session = parse(path)
    assert roles(session) == ["summary", "user", "assistant"]
    assert session.messages[0].content == "Summary: the user asked for an old request."
    assert session.messages[0].role == "user"
    assert session.message_count == 2
    assert session.compactions == 1
    assert session.context_tokens == 9005


def test_boundary_without_the_flag_takes_the_continued_session_text_as_summary(
    tmp_path: Path,
) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Old request."),
            boundary("b1"),
            prompt("c1", "This session is being continued from a previous conversation. Recap."),
            prompt("u2", "Carry on."),
        ],
    )
    session = parse(path)
    assert roles(session) == ["summary", "user"]
    assert session.messages[0].content.endswith("Recap.")


def test_flagged_summary_wins_over_an_earlier_text_match(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            boundary("b1"),
            prompt("c1", "This session is being continued from a previous conversation (quoted)."),
            prompt("c2", "The real summary.", isCompactSummary=True),
        ],
    )
    session = parse(path)
    assert [m.content for m in session.messages] == ["The real summary."]
    assert session.messages[0].is_summary


def test_no_usage_since_the_last_compaction_falls_back_to_the_character_estimate(
    tmp_path: Path,
) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Old."),
            reply("a1", [text("Old answer.")], used=usage(read=180_000)),
            boundary("b1"),
            prompt("c1", "s" * 400, isCompactSummary=True),
            prompt("u2", "p" * 41),
            tool_result("t1", "r" * 39),
        ],
    )
    session = parse(path)
    assert session.tokens_estimated is True
    assert session.context_tokens == (400 + 41 + 39) // 4
    assert session.model == "claude-sonnet-4-5-20250929"  # the latest real response, pre-boundary


def test_compactions_count_every_boundary_and_the_last_one_wins(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "One."),
            boundary("b1"),
            prompt("u2", "Two."),
            boundary("b2"),
            boundary("b2"),  # the same boundary written twice counts once
            prompt("u3", "Three."),
        ],
    )
    session = parse(path)
    assert session.compactions == 2
    assert [m.content for m in session.messages] == ["Three."]


def test_preserved_segment_the_boundary_points_back_to_is_dropped(tmp_path: Path) -> None:
    # The segment's lines are normally written before the boundary (dropped with the rest,
    # and any re-written copy is a uuid duplicate, see the generated corpus test); here they
    # only appear after it, and are dropped all the same (docs/design.md §5.1).
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Run the tests."),
            boundary(
                "b1",
                preservedSegment={"headUuid": "a1", "anchorUuid": "c1", "tailUuid": "t1"},
                preservedMessages={"anchorUuid": "c1", "uuids": ["a1", "t1"]},
            ),
            prompt("c1", "Summary of the test run.", isCompactSummary=True),
            reply("a1", [text("Running."), tool_use("Bash", command="pytest")]),
            tool_result("t1", "12 passed"),
            reply("a2", [text("All 12 pass.")], used=usage(fresh=900)),
        ],
    )
    session = parse(path)
    assert roles(session) == ["summary", "assistant"]
    assert session.assistant_texts == ("All 12 pass.",)
    assert session.context_tokens == 900


def test_microcompact_boundary_is_not_a_compaction(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Read it."),
            tool_result("t1", "long file body"),
            envelope(
                "m1",
                type="system",
                subtype="microcompact_boundary",
                microcompactMetadata={"trigger": "auto", "compactedToolIds": ["toolu_t1"]},
            ),
            reply("a1", [text("Read.")], used=usage(read=500)),
        ],
    )
    session = parse(path)
    assert session.compactions == 0
    assert roles(session) == ["user", "tool", "assistant"]


def test_summary_records_are_session_titles_not_compactions(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            {"type": "summary", "summary": "Fixing the parser", "leafUuid": "a1"},
            prompt("u1", "Fix the parser."),
            {"type": "summary", "summary": "Parser fixed", "leafUuid": "a1"},
        ],
    )
    session = parse(path)
    assert session.compactions == 0
    assert session.skipped_lines == 0
    assert [m.content for m in session.messages] == ["Fix the parser."]


# --- tokens and the context window (docs/design.md §5.3) -------------------------------------


@pytest.mark.parametrize(
    ("used", "expected"),
    [
        # breakdown 0 + 2500 > field 0: the breakdown's sum wins (pre-2.1.152 files)
        (
            usage(
                fresh=10,
                creation=0,
                read=100,
                breakdown={"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 2500},
            ),
            2610,
        ),
        # field 3000 > breakdown 1000 + 500: the field wins
        (
            usage(
                fresh=10,
                creation=3000,
                read=100,
                breakdown={"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 500},
            ),
            3110,
        ),
        # no breakdown: the plain sum
        (usage(fresh=10, creation=40, read=100), 150),
        # nulls count as zero
        (
            {
                "input_tokens": None,
                "cache_creation_input_tokens": 70,
                "cache_read_input_tokens": None,
                "cache_creation": None,
            },
            70,
        ),
    ],
)
def test_context_size_uses_the_larger_of_cache_creation_and_its_breakdown(
    tmp_path: Path, used: dict[str, Any], expected: int
) -> None:
    path = write_session(tmp_path, [prompt("u1", "Go."), reply("a1", [text("Ok.")], used=used)])
    assert parse(path).context_tokens == expected


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("claude-sonnet-4-5-20250929", 200_000),
        ("claude-opus-4-20250514", 200_000),  # Opus 4 with a date, not "4-20"
        ("claude-opus-4-1-20250805", 200_000),
        ("claude-opus-4-6", 200_000),
        ("claude-opus-4-7", 1_000_000),
        ("claude-opus-4-8", 1_000_000),
        ("claude-opus-4-10", 1_000_000),
        ("claude-opus-5", 1_000_000),
        ("claude-opus-5-20270101", 1_000_000),
        ("claude-sonnet-5", 1_000_000),
        ("claude-haiku-4-5-20251001", 200_000),
        # native_1m in Claude Code 2.1.197's own model table (19-seams §3.3)
        ("claude-fable-5", 1_000_000),
        ("claude-mythos-5", 1_000_000),
    ],
)
def test_context_window_follows_the_model_family(tmp_path: Path, model: str, window: int) -> None:
    path = write_session(
        tmp_path,
        [prompt("u1", "Go."), reply("a1", [text("Ok.")], model=model, used=usage(read=50_000))],
    )
    assert parse(path).context_window == window


def test_any_main_request_over_200k_proves_the_1m_window(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Go."),
            reply("a1", [text("Big.")], used=usage(fresh=1, read=200_000)),
            boundary("b1"),
            prompt("u2", "Again."),
            reply("a2", [text("Small.")], used=usage(read=30_000)),
        ],
    )
    session = parse(path)
    assert session.context_window == 1_000_000  # 200 001 before the compaction still counts
    assert session.context_tokens == 30_000


def test_exactly_200k_keeps_the_200k_window(tmp_path: Path) -> None:
    path = write_session(
        tmp_path, [prompt("u1", "Go."), reply("a1", [text("Full.")], used=usage(read=200_000))]
    )
    assert parse(path).context_window == 200_000


# --- damaged and unknown lines (docs/formats.md §A.15) -------------------------------------


def test_half_written_last_line_is_skipped_and_counted(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [prompt("u1", "Go."), reply("a1", [text("Ok.")], used=usage(read=100))],
        tail=b'{"type":"assistant","uuid":"a2","message":{"content":[{"type":"te',
    )
    session = parse(path)
    assert session.skipped_lines == 1
    assert session.assistant_texts == ("Ok.",)


def test_complete_last_line_without_newline_is_used(tmp_path: Path) -> None:
    last = json.dumps(reply("a2", [text("Last.")], used=usage(read=300))).encode()
    path = write_session(tmp_path, [prompt("u1", "Go.")], tail=last)
    session = parse(path)
    assert session.skipped_lines == 0
    assert session.assistant_texts == ("Last.",)


def test_invalid_lines_in_the_middle_are_skipped_and_parsing_continues(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Go."),
            "{not json at all",
            "[1, 2, 3]",
            '"just a string"',
            "",
            "   ",
            reply("a1", [text("Still here.")], used=usage(read=100)),
        ],
    )
    session = parse(path)
    assert session.skipped_lines == 3  # blank lines are ignored, not counted
    assert session.assistant_texts == ("Still here.",)


def test_unknown_record_types_are_counted_but_known_metadata_is_not(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            {"type": "hologram-sync", "sessionId": SESSION_ID},
            {"sessionId": SESSION_ID, "note": "no type at all"},
            {"type": 7},
            {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
            {"type": "queue-operation", "operation": "enqueue", "sessionId": SESSION_ID},
            {"type": "worktree-state", "sessionId": SESSION_ID},
            {"type": "bridge-session", "sessionId": SESSION_ID},
            envelope("p1", type="progress", data={"type": "agent_progress"}),
            envelope("x1", type="attachment", attachment={"type": "a_subtype_nobody_knows"}),
            envelope("x2", type="system", subtype="a_system_subtype_nobody_knows"),
            prompt("u1", "Go."),
        ],
    )
    session = parse(path)
    assert session.skipped_lines == 3
    assert counts(session) == (1, 0)


def test_progress_lines_never_contribute_usage(tmp_path: Path) -> None:
    embedded = {
        "message": {
            "type": "assistant",
            "message": {"usage": usage(read=900_000), "content": [text("sub")]},
        }
    }
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Go."),
            reply("a1", [text("Ok.")], used=usage(read=1000)),
            envelope("p1", type="progress", data={"type": "agent_progress", **embedded}),
            tool_result(
                "t1", "done", toolUseResult={"usage": usage(read=800_000), "totalTokens": 800_000}
            ),
        ],
    )
    session = parse(path)
    assert session.context_tokens == 1000
    assert session.context_window == 200_000


def test_missing_and_null_fields_do_not_crash(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            {
                "type": "system",
                "subtype": "compact_boundary",
                "compactMetadata": None,
                "uuid": None,
            },
            {"type": "system", "subtype": None},
            {"type": "summary", "summary": None, "leafUuid": None},
            {"type": "user"},
            {"type": "user", "message": None, "uuid": None, "isSidechain": None},
            {"type": "user", "message": {"content": None}},
            {
                "type": "user",
                "message": {"content": [None, 3, {"type": None}, {"type": "text", "text": None}]},
            },
            {"type": "user", "message": {"content": [{"type": "tool_result", "content": None}]}},
            {"type": "assistant"},
            {"type": "assistant", "message": None, "requestId": None},
            {
                "type": "assistant",
                "message": {"id": None, "model": None, "content": None, "usage": None},
            },
            {
                "type": "assistant",
                "message": {"content": [{"type": "tool_use", "name": None, "input": None}]},
            },
            {
                "type": "assistant",
                "message": {"content": "plain string reply", "usage": {"input_tokens": "7"}},
            },
            {
                "type": "user",
                "sessionId": None,
                "cwd": None,
                "timestamp": None,
                "message": {"content": "typed"},
            },
        ],
    )
    session = parse(path)
    assert session.skipped_lines == 0
    assert session.compactions == 1
    assert session.session_id is None
    assert session.cwd is None
    assert session.model is None
    assert [(m.role, m.content) for m in session.messages] == [
        ("tool", ""),
        ("tool", ""),
        ("assistant", "plain string reply"),
        ("user", "typed"),
    ]
    assert session.messages[1].tool_calls[0].name == ""
    assert session.tokens_estimated is True
    assert session.context_tokens == (18 + 5) // 4


# --- envelope, incremental feeding, I/O ----------------------------------------------


def test_session_id_and_cwd_are_the_last_ones_the_file_names(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Start."),
            prompt("u2", "Resumed.", sessionId="second-id", cwd="/home/dev/demo/sub"),
            {"type": "last-prompt", "session_id": "third-id"},
            {"type": "summary", "summary": "no ids here"},
        ],
    )
    session = parse(path)
    assert session.session_id == "third-id"
    assert session.cwd == "/home/dev/demo/sub"
    assert session.path == str(path)


def test_feeding_more_after_a_snapshot_gives_the_same_result_as_one_parse(tmp_path: Path) -> None:
    records: list[dict[str, Any] | str] = [
        prompt("u1", "First request."),
        reply("a1", [text("Working.")], message_id="msg_1", used=usage(read=1000, output=5)),
        reply(
            "a2", [tool_use("Read", file_path="/r.md")], message_id="msg_1", used=usage(read=1000)
        ),
        tool_result("t1", "contents"),
        reply("a3", [text("Read it.")], used=usage(read=1500)),
        boundary("b1"),
        prompt("c1", "Summary so far.", isCompactSummary=True),
        prompt("u2", "Next request."),
        "{broken",
        reply("a4", [text("Next answer.")], used=usage(read=800)),
    ]
    path = write_session(tmp_path, records)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    for split in range(len(lines) + 1):
        parser = ClaudeCodeParser(str(path))
        for line in lines[:split]:
            parser.feed(line.encode())
        first = parser.session()
        for line in lines[split:]:
            parser.feed(line.encode())
        assert parser.session() == parse(path), split
        assert parser.session() == parser.session()
        if split == 3:  # mid-response: the snapshot shows the response so far
            assert first.assistant_texts == ("Working.",)


def test_zstd_compressed_session_files_are_read(tmp_path: Path) -> None:
    plain = write_session(
        tmp_path, [prompt("u1", "Go."), reply("a1", [text("Ok.")], used=usage(read=4321))]
    )
    packed = plain.with_suffix(".jsonl.zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    session = parse(packed)
    assert session.context_tokens == 4321
    assert session.path == str(packed)


def test_missing_file_raises_session_format_error(tmp_path: Path) -> None:
    with pytest.raises(SessionFormatError, match="cannot read"):
        parse(tmp_path / "nope.jsonl")


# --- hostile content: never a crash ---------------------------------------------------

TOO_DEEP = "[" * 100_000 + "]" * 100_000
"""A JSON line nested far deeper than the decoder's recursion allows."""


def test_a_line_nested_too_deeply_is_skipped_and_counted(tmp_path: Path) -> None:
    path = write_session(
        tmp_path,
        [
            prompt("u1", "Go."),
            TOO_DEEP,
            '{"type":"user","nest":' + "[" * 5000 + "]" * 5000 + "}",
            reply("a1", [text("Ok.")], used=usage(read=100)),
        ],
    )
    session = parse(path)
    assert session.skipped_lines == 2
    assert session.assistant_texts == ("Ok.",)
    assert session.context_tokens == 100


def test_a_tool_input_string_nested_too_deeply_is_kept_as_text(tmp_path: Path) -> None:
    block = {"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": TOO_DEEP}
    path = write_session(tmp_path, [prompt("u1", "Go."), reply("a1", [block])])
    session = parse(path)
    assert [c.name for m in session.messages for c in m.tool_calls] == ["Bash"]
    assert session.skipped_lines == 0


@pytest.mark.parametrize(
    "bad",
    [math.nan, math.inf, -math.inf, -5000, -0.5, True, "5000", None, [5000], 10**400],
    ids=[
        "nan",
        "inf",
        "-inf",
        "negative",
        "negative-float",
        "bool",
        "string",
        "null",
        "list",
        "huge",
    ],
)
def test_a_usage_field_that_is_no_token_count_counts_as_absent(tmp_path: Path, bad: Any) -> None:
    # json.dumps writes NaN / Infinity / -Infinity and the 401-digit integer as such.
    used = {"input_tokens": bad, "cache_read_input_tokens": 1000, "output_tokens": 7}
    path = write_session(tmp_path, [prompt("u1", "Go."), reply("a1", [text("Ok.")], used=used)])
    session = parse(path)
    assert session.context_tokens == 1000
    assert session.messages[-1].token_count == 1000
    assert session.context_window == 200_000


def test_a_usage_made_only_of_bad_values_is_no_usage(tmp_path: Path) -> None:
    used = {
        "input_tokens": -9000,
        "cache_creation_input_tokens": math.nan,
        "cache_read_input_tokens": 10**400,
        "cache_creation": {"ephemeral_5m_input_tokens": math.inf, "ephemeral_1h": -3},
    }
    path = write_session(tmp_path, [prompt("u1", "Go."), reply("a1", [text("Ok.")], used=used)])
    session = parse(path)
    assert session.tokens_estimated
    assert session.context_tokens == estimate_tokens(session.messages)
    assert session.messages[-1].token_count is None


def test_a_truncated_zstd_session_is_a_format_error(tmp_path: Path) -> None:
    records: list[dict[str, Any] | str] = [prompt(f"u{n}", f"Prompt {n}.") for n in range(800)]
    plain = write_session(tmp_path, records)
    whole = zstandard.ZstdCompressor().compress(plain.read_bytes())
    packed = plain.with_suffix(".jsonl.zst")
    packed.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(SessionFormatError, match=f"{packed} is a truncated zstd file"):
        parse(packed)
