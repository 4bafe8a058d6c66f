"""The shipped demo session (``driftguard score --demo``) checked as raw JSONL.

These tests read the file with nothing but ``json``: they pin the on-disk shape the Claude Code
adapter has to handle (docs/formats.md §A.3–A.6), independently of that adapter. The file is
synthetic, written by ``scripts/make_demo_session.py``; the last test checks that the script
still reproduces it byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from importlib.resources import files
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
GENERATOR = REPO_ROOT / "scripts" / "make_demo_session.py"
CONVERSATION_TYPES = {"user", "assistant", "attachment", "system"}


def demo_bytes() -> bytes:
    """The demo session as installed package data (what ``--demo`` reads)."""
    return (files("driftguard") / "demo" / "demo-session.jsonl").read_bytes()


def demo_records() -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(demo_bytes().decode("utf-8").split("\n")[:-1], start=1):
        record = json.loads(line)
        assert isinstance(record, dict), f"line {number} is not a JSON object"
        records.append(record)
    return records


def is_typed_prompt(record: dict[str, Any]) -> bool:
    """A user line holding text the person typed (not a tool result, not harness text)."""
    if record.get("type") != "user" or record.get("isMeta"):
        return False
    content = record["message"]["content"]
    if isinstance(content, str):
        return True
    return not any(block.get("type") == "tool_result" for block in content)


def test_demo_session_is_package_data_with_one_json_object_per_line() -> None:
    raw = demo_bytes()
    assert raw.endswith(b"\n")
    lines = raw.decode("utf-8").split("\n")[:-1]
    assert len(lines) > 300
    assert all(line.strip() for line in lines), "no blank lines"
    assert len(demo_records()) == len(lines)


def test_demo_session_has_at_least_thirty_typed_prompts() -> None:
    prompts = [record for record in demo_records() if is_typed_prompt(record)]
    assert len(prompts) >= 30
    records = demo_records()
    tool_results = [
        record for record in records if record.get("type") == "user" and not is_typed_prompt(record)
    ]
    assert tool_results, "tool results are there too, as user lines"
    assert all("toolUseResult" in record for record in tool_results)


def test_one_api_response_is_split_over_three_or_more_assistant_lines() -> None:
    lines_per_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in demo_records():
        if record.get("type") == "assistant":
            lines_per_message[record["message"]["id"]].append(record)
    split = [lines for lines in lines_per_message.values() if len(lines) >= 3]
    assert split
    for lines in split:
        assert len({line["requestId"] for line in lines}) == 1
        assert all(len(line["message"]["content"]) == 1 for line in lines)
        *early, last = lines
        assert all(line["message"]["stop_reason"] is None for line in early)
        assert last["message"]["stop_reason"] in {"tool_use", "end_turn"}
        final_output = last["message"]["usage"]["output_tokens"]
        assert all(line["message"]["usage"]["output_tokens"] < final_output for line in early)


def test_uuids_are_unique() -> None:
    uuids = [record["uuid"] for record in demo_records() if "uuid" in record]
    assert len(uuids) == len(set(uuids))


def test_every_parent_uuid_names_an_earlier_line() -> None:
    seen: set[str] = set()
    roots = 0
    for record in demo_records():
        if record.get("type") not in CONVERSATION_TYPES:
            assert "parentUuid" not in record, "metadata lines carry no envelope"
            continue
        assert record["isSidechain"] is False
        parent = record["parentUuid"]
        if parent is None:
            roots += 1
        else:
            assert parent in seen, f"{record['uuid']} points at a later or unknown line"
        seen.add(record["uuid"])
    assert roots == 1


def test_timestamps_never_go_backwards() -> None:
    stamps = [record["timestamp"] for record in demo_records() if "timestamp" in record]
    assert stamps == sorted(stamps)
    assert all(stamp.endswith("Z") and len(stamp) == 24 for stamp in stamps)


def test_context_grows_to_between_150k_and_200k_tokens_without_compaction() -> None:
    contexts = []
    for record in demo_records():
        assert record.get("subtype") != "compact_boundary"
        if record.get("type") == "assistant" and record["message"]["stop_reason"] is not None:
            usage = record["message"]["usage"]
            contexts.append(
                usage["input_tokens"]
                + usage["cache_creation_input_tokens"]
                + usage["cache_read_input_tokens"]
            )
    assert contexts == sorted(contexts)
    assert 150_000 <= contexts[-1] < 200_000


def test_generator_reproduces_the_shipped_file_byte_for_byte(tmp_path: Path) -> None:
    output = tmp_path / "demo-session.jsonl"
    subprocess.run(
        [sys.executable, str(GENERATOR), "--output", str(output)],
        check=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert output.read_bytes() == demo_bytes()
