"""`driftguard score`: arguments in, report out, exit codes and streams as docs/design.md §10."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import zstandard
from conftest import corpus_file, write_claude_session

import driftguard.cli
from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main


def test_score_prints_the_recommendation_first_and_the_score_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", [f"reply {i} is here" for i in range(4)])
    assert main(["score", str(session)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("Carry on")
    assert "Score: " in out
    assert " · 8 messages" in out
    assert lines[-1].startswith("Session: claude_code · ")
    assert "4,010 of 200,000 tokens" in lines[-1]
    assert err == ""


def test_score_json_has_the_design_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["same words again here"] * 6)
    assert main(["score", "--json", str(session)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["factors"]["repetition"] == 100.0
    assert report["factors"]["goal_distance"] is None
    assert report["weights"]["goal_distance"] == 0.0
    assert report["session"]["resolved_by"] == "path"
    assert report["session"]["context_tokens"] == 6010
    assert report["handoff_suggested"] is True


def test_goal_and_preset_flags_change_the_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["bananas are yellow"] * 3)
    assert (
        main(["score", "--json", "--preset", "strict", "--goal", "rate limits", str(session)]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["factors"]["goal_distance"] == 100.0
    assert all(w == 0.1667 for w in report["weights"].values())  # 1/6 to 4 decimals


def test_a_session_with_one_message_is_not_enough_to_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "one.jsonl"
    session.write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "u1",
                "sessionId": "x",
                "message": {"role": "user", "content": "hello"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["score", str(session)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "Not enough messages to score yet: 1 message so far, scoring starts at 2"
        " (0/100, fresh, until then).\n"
    )
    assert "Score:" not in out


def test_a_missing_path_exits_2_with_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.jsonl"
    assert main(["score", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert str(missing) in err


def test_a_file_of_no_known_format_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "notes.txt"
    odd.write_text('{"hello": "world"}\n', encoding="utf-8")
    assert main(["score", str(odd)]) == 2
    assert "pass --cli" in capsys.readouterr().err


def test_a_file_of_one_line_nested_too_deeply_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    assert main(["score", str(deep)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert str(deep) in err


def test_a_corrupt_or_truncated_zstd_file_exits_2_with_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = write_claude_session(tmp_path / "s.jsonl", [f"reply {i} is here" for i in range(400)])
    whole = zstandard.ZstdCompressor().compress(plain.read_bytes())
    corrupt = tmp_path / "x.jsonl.zst"
    corrupt.write_bytes(b"\x28\xb5\x2f\xfd" + bytes((n * 73 + 41) % 256 for n in range(200)))
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(whole[: len(whole) // 2])
    for path in (corrupt, cut):
        assert main(["score", "--cli", "claude_code", str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.count("\n") == 1
        assert str(path) in err


def test_a_bad_project_config_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["one reply", "two reply"])
    project = tmp_path / "proj"
    project.mkdir()
    config = project / ".driftcli"
    config.write_text("{not json", encoding="utf-8")
    assert main(["score", "--project", str(project), str(session)]) == 2
    assert str(config) in capsys.readouterr().err
    assert config.read_text(encoding="utf-8") == "{not json"


def test_an_unknown_flag_value_is_a_usage_error_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "--cli", "windsurf"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("driftguard score: error: argument --cli: invalid choice: 'windsurf'")
    assert err.endswith("(see `driftguard score --help`)\n")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["score", "--bogus"], "driftguard score: error: unrecognized arguments: --bogus"),
        (["trend", "-x"], "driftguard trend: error: unrecognized arguments: -x"),
        (["--bogus"], "driftguard: error: unrecognized arguments: --bogus"),
        (["score", "--preset"], "driftguard score: error: argument --preset: expected one"),
    ],
)
def test_a_bad_flag_gives_one_line_naming_the_commands_help_not_the_usage(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(said)
    assert "usage:" not in err


def test_a_project_folder_that_does_not_exist_is_named_as_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-project"
    for command in ("score", "trend", "handoff", "watch"):
        assert main([command, "--project", str(missing)]) == 2
        assert capsys.readouterr().err == (
            f"driftguard: error: --project {missing}: no such folder\n"
        )
    assert main(["score", "--demo", "--project", str(missing)]) == 2
    assert capsys.readouterr().err == f"driftguard: error: --project {missing}: no such folder\n"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    assert main(["score", "--project", str(a_file)]) == 2
    assert capsys.readouterr().err == f"driftguard: error: --project {a_file}: not a folder\n"


def test_without_path_the_newest_session_of_the_current_project_is_scored(
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = tmp_path / "work" / "app"
    project.mkdir(parents=True)
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(project))
    write_claude_session(
        folder / "aaaaaaaa-0000-4000-8000-000000000000.jsonl",
        ["first reply here", "second reply here"],
        cwd=str(project),
    )
    other = (
        isolated_home / ".claude" / "projects" / claude_project_dir_name(str(tmp_path / "other"))
    )
    write_claude_session(
        other / "bbbbbbbb-0000-4000-8000-000000000000.jsonl",
        ["not this one", "nor this"],
        cwd=str(tmp_path / "other"),
    )
    monkeypatch.chdir(project)
    assert main(["score", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["session"]["resolved_by"] == "newest_in_project"
    assert report["session"]["path"].startswith(str(folder))


def test_without_any_session_the_error_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["score"]) == 2
    first, *places = capsys.readouterr().err.splitlines()
    assert first == f"driftguard: error: no session found for {tmp_path}; looked in:"
    assert [place.split(":")[0] for place in places] == [
        "  Claude Code",
        "  Claude Code",
        "  Gemini CLI",
        "  Codex CLI",
        "  Cursor",
        "  Cursor",
    ]
    assert ".claude" in places[0]
    assert ".codex" in places[3]
    assert "workspaceStorage" in places[4]
    assert places[-1].endswith("chats in cursorDiskKV composerData:<id>)")


def test_demo_scores_a_session_that_is_not_fresh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--demo", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["state"] != "fresh"
    assert report["messages"] >= 60
    assert sum(1 for v in report["factors"].values() if v) >= 4
    assert report["session"]["tokens_estimated"] is False


def test_demo_and_path_together_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", "--demo", str(tmp_path / "x.jsonl")]) == 2
    assert "either PATH or --demo" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("relative", "cli"),
    [
        ("claude_code/cc_v2.0.28_small_5ed31c36.jsonl", "claude_code"),
        ("gemini/gemini_legacy-json_2026-03_vibecodingtracker.json", "gemini_cli"),
        ("gemini/gemini_jsonl_2026-04_vibecodingtracker.jsonl", "gemini_cli"),
        ("codex/codex_v0.39.0_vscode_vibecodingtracker.jsonl", "codex_cli"),
        ("generated/codex/codex-long-24turns-compact.jsonl", "codex_cli"),
        ("generated/gemini/gemini-long-24turns-compress.jsonl", "gemini_cli"),
        ("generated/claude/claude-long-26turns-compact.jsonl", "claude_code"),
    ],
)
def test_each_corpus_format_is_detected_and_scored(
    relative: str, cli: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = corpus_file(relative)
    assert main(["score", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["session"]["cli"] == cli
    assert 0 <= report["score"] <= 100


def test_an_empty_file_says_it_is_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert main(["score", str(empty)]) == 2
    err = capsys.readouterr().err
    assert f"{empty} is empty" in err
    assert "pass --cli" in err
    assert main(["score", "--cli", "claude_code", str(empty)]) == 0
    assert capsys.readouterr().out.startswith("Not enough messages to score yet: 0 messages")


# --- the context window and where the host compacts ----------------------------


def _report(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["score", "--json", *args]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert isinstance(payload, dict)
    return payload


def test_context_window_flag_sets_the_nominal_window_and_the_usable_one_follows_the_host(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", [f"reply {i} here" for i in range(4)])
    session_json = _report(["--context-window", "128,000", str(session)], capsys)["session"]
    assert isinstance(session_json, dict)
    assert session_json["context_window"] == 128_000
    assert session_json["context_window_source"] == "flag"
    assert session_json["usable_window"] == 95_000  # 128,000 − 20,000 − 13,000
    assert session_json["tokens_until_compaction"] == 95_000 - 4_010


def test_a_window_smaller_than_the_context_the_file_reports_is_questioned_and_room_is_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", [f"reply {i} here" for i in range(4)])
    assert main(["score", "--context-window", "3000", str(session)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Session: "))
    assert "4,010 of 3,000 tokens — more than the window (from --context-window): check it" in line
    assert "the host compacts next" in line
    assert "turn" not in line


def test_the_flag_beats_the_projects_context_window_which_beats_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["one reply", "two replies"])
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".driftcli").write_text('{"contextWindow": 64000}', encoding="utf-8")
    by_config = _report(["--project", str(project), str(session)], capsys)["session"]
    assert isinstance(by_config, dict)
    assert (by_config["context_window"], by_config["context_window_source"]) == (64_000, "config")
    by_flag = _report(
        ["--project", str(project), "--context-window", "32000", str(session)], capsys
    )["session"]
    assert isinstance(by_flag, dict)
    assert (by_flag["context_window"], by_flag["context_window_source"]) == (32_000, "flag")
    by_file = _report([str(session)], capsys)["session"]
    assert isinstance(by_file, dict)
    # claude-sonnet-4-5 may run with 1M: with nothing set, Claude Code's choice is assumed
    assert (by_file["context_window"], by_file["context_window_source"]) == (200_000, "assumed")


def test_the_report_names_the_compaction_override_the_environment_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")
    session = write_claude_session(tmp_path / "s.jsonl", ["one reply", "two replies"])
    session_json = _report([str(session)], capsys)["session"]
    assert isinstance(session_json, dict)
    assert session_json["usable_window"] == 90_000
    assert session_json["usable_window_overrides"] == [
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50 (environment)"
    ]
    assert "min(50% of 180,000" in str(session_json["usable_window_rule"])


@pytest.mark.parametrize("value", ["0", "-1", "lots", "100000001"])
def test_a_context_window_that_is_not_a_token_count_is_a_usage_error(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["one reply", "two replies"])
    with pytest.raises(SystemExit) as caught:
        main(["score", "--context-window", value, str(session)])
    assert caught.value.code == 2
    assert "--context-window" in capsys.readouterr().err


def test_preset_seed_scores_with_the_seed_design_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["same words again here"] * 6)
    report = _report(["--preset", "seed", str(session)], capsys)
    assert (report["scoring"], report["preset"]) == ("seed", "seed")
    assert report["weights"] == {  # the seed weights over the five active, to 4 decimals
        "context_saturation": 0.4022,  # .37 / .92
        "repetition": 0.4022,
        "length_collapse": 0.163,  # .15 / .92 = 0.16304…
        "goal_distance": 0.0,
        "uncertainty": 0.0217,
        "confidence_drift": 0.0109,
    }


# --- driftguard status --------------------------------------------------------


def test_status_prints_one_line_for_a_codex_session_and_reuses_the_cache(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = corpus_file("generated/codex/codex-long-24turns-compact.jsonl")
    assert main(["status", str(path)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("drift ")
    assert " to compact (~" in line
    assert "\n" not in line

    def no_parse(*_: object, **__: object) -> None:
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr("driftguard.adapters.parse_session", no_parse)
    assert main(["status", str(path)]) == 0
    assert capsys.readouterr().out.strip() == line


def test_status_colours_the_state_for_tmux_and_doubles_hashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["same words again here"] * 6)
    assert main(["status", "--format", "tmux", str(session)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("#[fg=")
    assert "#[default] · " in line


def test_status_of_a_gemini_session_as_json_has_the_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = corpus_file("gemini/gemini_jsonl_2026-04_vibecodingtracker.jsonl")
    assert main(["status", "--json", str(path)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["cli"] == "gemini_cli"
    assert record["usable_window"] == 524_288  # Gemini CLI compresses at half its limit
    assert record["tokens_until_compaction"] == 524_288 - record["context_tokens"]


def test_status_rescores_a_session_that_grew_since_it_was_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", [f"reply {i} here" for i in range(3)])
    assert main(["status", "--json", str(session)]) == 0
    before = json.loads(capsys.readouterr().out)
    write_claude_session(session, [f"reply {i} here" for i in range(6)])
    assert main(["status", "--json", str(session)]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["messages"] > before["messages"]


def test_status_without_a_session_is_one_line_on_stderr_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--project", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("driftguard: ")


def test_a_file_with_no_record_of_the_named_cli_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("".join(f"u{n}:x:{n}:{n}::/home/u{n}:/bin/sh\n" for n in range(25)), "utf-8")
    for command in ("score", "status", "trend", "handoff"):
        assert main([command, "--cli", "claude_code", str(passwd)]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err == (
            f"driftguard: error: {passwd}: not a Claude Code session file: none of its 25 "
            "lines is a Claude Code record\n"
        )
    assert main(["score", str(passwd)]) == 2  # without --cli: no CLI's record, as before
    assert capsys.readouterr().err.count("\n") == 1


def test_ctrl_c_while_a_command_loads_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(name: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(driftguard.cli.importlib, "import_module", interrupted)
    assert main(["score"]) == 130
    assert capsys.readouterr().err == "driftguard: interrupted\n"


def test_ctrl_c_while_a_session_is_read_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    from driftguard.cli.commands import score

    monkeypatch.setattr(score, "run", interrupted)
    assert main(["score", str(tmp_path / "s.jsonl")]) == 130
    out, err = capsys.readouterr()
    assert (out, err) == ("", "driftguard: interrupted\n")


def test_driftguard_mcp_version_prints_the_version_and_its_other_arguments_go_to_serve(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["driftguard-mcp", "--version"])
    with pytest.raises(SystemExit) as exit_info:
        driftguard.cli.serve_main()
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"driftguard {driftguard.__version__}\n"
    monkeypatch.setattr("sys.argv", ["driftguard-mcp", "--bogus"])
    with pytest.raises(SystemExit) as exit_info:
        driftguard.cli.serve_main()
    assert exit_info.value.code == 2
    assert "driftguard serve: error: unrecognized arguments: --bogus" in capsys.readouterr().err
