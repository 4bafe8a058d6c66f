"""A real Gemini CLI 0.61.0 session through the commands: ``tests/fixtures/gemini/real-0.61``
(tests/fixtures/README.md; written by scripts/make_gemini_fixture.py against the fake model).

Five typed prompts: a passing ``ls -la``, a ``write_file``, a plain answer, a failing
``ls /nonexistent``, then ``npm test`` in a folder without a ``package.json``, run four
times until Gemini CLI's own loop detector refused the fifth and wrote its
``System: Potential loop detected…`` turn. The CLI recorded every failed command with
``status: "success"``; only the text it gave the model (``Exit Code: 254``) says otherwise.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES

from driftguard.cli import main

SESSION = (
    FIXTURES / "gemini/real-0.61/.gemini/tmp/proj/chats/session-2026-12-03T23-25-a578357c.jsonl"
)
PROMPTS = (
    "What is in this folder?",
    "Write a README.md that says this is a tiny Node project.",
    "Sum up what you have done so far.",
    "Is the data folder /nonexistent there?",
    "Run the tests.",
)
"""What scripts/make_gemini_fixture.py typed, one ``gemini -p`` run each."""


def test_score_names_the_loop_as_a_command_failing_in_a_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["score", "--json", str(SESSION)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["loop"]["kind"] == "failing"
    assert report["loop"]["count"] == 4
    assert report["loop"]["description"] == "`npm test` failed 4 times in a row"
    assert "`npm test` failed 4 times in a row" in report["recommendation"]
    assert report["session"]["cli"] == "gemini_cli"


def test_handoff_lists_the_errors_of_the_failed_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["handoff", "--json", str(SESSION)]) == 0
    handoff = json.loads(capsys.readouterr().out)
    assert handoff["last_errors"] == [
        "ls: cannot access '/nonexistent': No such file or directory",
        "npm error enoent Could not read package.json: Error: ENOENT: no such file or "
        "directory, open '/home/user/proj/package.json'",
    ]
    assert handoff["commands"] == ["ls -la", "ls /nonexistent", "npm test"]


def test_report_draws_a_turn_per_typed_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: each --resume's rewrite and the loop detector's turn drew a turn too (11).
    page = tmp_path / "page.html"
    assert main(["report", str(SESSION), "-o", str(page)]) == 0
    assert capsys.readouterr().out.startswith(f"Wrote {page}: 5 turns,")
    found = re.search(
        r'<script type="application/json" id="data">(.*?)</script>',
        page.read_text(encoding="utf-8"),
        re.S,
    )
    assert found is not None
    data = json.loads(found.group(1))
    assert len(data["turns"]) == len(PROMPTS)
    assert data["loops"] == [{"first": 5, "last": 5, "label": "npm test ×4"}]


def test_handoff_json_gives_factors_to_one_decimal_as_the_score_json_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["handoff", "--json", str(SESSION)]) == 0
    handoff = json.loads(capsys.readouterr().out)
    assert handoff["factors"] == handoff["report"]["factors"]
    assert all(value is None or value == round(value, 1) for value in handoff["factors"].values())
