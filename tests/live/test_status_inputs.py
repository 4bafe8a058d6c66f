"""`driftguard status` and Claude Code's status line answer from the cache only while
nothing the score was made with has changed: the transcript, the remembered goal and the
config; with a config that cannot be used they say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import write_project_session

from driftguard.cli import main
from driftguard.live import hooks
from driftguard.live.statusline import statusline_output
from driftguard.store import livecache

SESSION_ID = "5b0e6a51-7f3c-4d2e-9a18-0c4f2b7d9e61"
REPLIES = [f"the importer now reads row {i} of the CSV file" for i in range(6)]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work" / "shop"
    root.mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def transcript(isolated_home: Path, project: Path) -> Path:
    """The project's Claude Code session, where Claude Code keeps it."""
    return write_project_session(isolated_home, project, REPLIES, session_id=SESSION_ID)


def _status(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["status", "--json"]) == 0, capsys.readouterr().err
    record = json.loads(capsys.readouterr().out)
    assert isinstance(record, dict)
    return record


def _line(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["status"]) == 0, capsys.readouterr().err
    return capsys.readouterr().out.strip()


def _forbid_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parse(*_: object, **__: object) -> None:
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr("driftguard.adapters.parse_session", no_parse)


def test_status_shows_a_goal_set_cleared_or_kept_since_it_was_cached(
    transcript: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _status(capsys)["goal"] is None
    assert main(["goal", "--set", "import CSV files"]) == 0
    capsys.readouterr()
    assert _line(capsys).endswith("goal “import CSV files”")
    with monkeypatch.context() as patched:  # unchanged since: the cache answers
        _forbid_parsing(patched)
        assert _line(capsys).endswith("goal “import CSV files”")
    assert main(["goal", "--clear"]) == 0
    capsys.readouterr()
    assert "goal" not in _line(capsys)
    assert main(["score", "--goal", "export the report", "--keep-goal"]) == 0
    capsys.readouterr()
    assert _status(capsys)["goal"] == "export the report"


@pytest.mark.parametrize(
    ("config", "field", "value"),
    [
        ({"contextWindow": 1_000_000}, "context_window", 1_000_000),
        ({"warnThreshold": 12}, "warn_threshold", 12),
        ({"preset": "seed"}, "warn_threshold", 60),  # the seed scoring's own threshold
    ],
)
def test_status_follows_a_config_change_since_it_was_cached(
    transcript: Path,
    project: Path,
    capsys: pytest.CaptureFixture[str],
    config: dict[str, Any],
    field: str,
    value: int,
) -> None:
    before = _status(capsys)
    assert before[field] != value
    (project / ".driftcli").write_text(json.dumps(config), "utf-8")
    assert _status(capsys)[field] == value
    (project / ".driftcli").unlink()
    assert _status(capsys)[field] == before[field]


def test_status_follows_the_global_config_too(
    transcript: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _status(capsys)["context_window"] != 500_000
    (isolated_home / ".driftclirc").write_text(json.dumps({"contextWindow": 500_000}), "utf-8")
    assert _status(capsys)["context_window"] == 500_000


def test_status_with_a_broken_config_shows_the_last_line_with_a_warning_and_exits_2(
    transcript: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _line(capsys)
    (project / ".driftcli").write_text('{"warnThreshold": 12,}', "utf-8")
    assert main(["status"]) == 2
    out, err = capsys.readouterr()
    head, _, rest = line.partition(" · ")
    assert out == f"{head} · config error: .driftcli · {rest}\n"  # tmux and PS1 show it
    assert err.startswith(f"driftguard: error: {project / '.driftcli'}: ")
    assert main(["status", "--format", "tmux"]) == 2
    assert "#[default] · config error: .driftcli · " in capsys.readouterr().out


def test_status_with_a_broken_config_and_nothing_cached_still_prints_the_warning(
    transcript: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".driftcli").write_text("{", "utf-8")
    assert main(["status"]) == 2
    out, err = capsys.readouterr()
    assert out == "drift – config error: .driftcli\n"
    assert "driftguard: error: " in err


# --- Claude Code's status line --------------------------------------------------------


def _payload(transcript: Path, project: Path) -> bytes:
    return json.dumps(
        {
            "session_id": SESSION_ID,
            "transcript_path": str(transcript),
            "cwd": str(project),
            "workspace": {"current_dir": str(project), "project_dir": str(project)},
        }
    ).encode()


def _stop_hook(transcript: Path, project: Path) -> None:
    payload = {"session_id": SESSION_ID, "transcript_path": str(transcript), "cwd": str(project)}
    hooks.stop(hooks.HookCall.of("claude_code", payload, {"CLAUDE_PROJECT_DIR": str(project)}))


def test_the_status_line_shows_a_goal_set_after_the_last_turn_was_cached(
    transcript: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stop_hook(transcript, project)
    assert "goal" not in statusline_output(_payload(transcript, project), {"NO_COLOR": "1"})
    assert main(["goal", "--set", "import CSV files"]) == 0
    line = statusline_output(_payload(transcript, project), {"NO_COLOR": "1"})
    assert line.endswith("goal “import CSV files”")
    cached = livecache.read_status(SESSION_ID)
    assert cached is not None
    assert cached.goal is None  # the stop hook stays the cache's one writer


def test_the_status_line_keeps_the_last_score_with_a_warning_when_the_config_breaks(
    transcript: Path, project: Path
) -> None:
    _stop_hook(transcript, project)
    before = statusline_output(_payload(transcript, project), {"NO_COLOR": "1"})
    (project / ".driftcli").write_text("not json", "utf-8")
    after = statusline_output(_payload(transcript, project), {"NO_COLOR": "1"})
    head, _, rest = before.partition(" · ")
    assert after == f"{head} · config error: .driftcli · {rest}"


def test_a_cache_record_of_an_older_driftguard_is_scored_again(
    transcript: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _status(capsys)
    cache_file = livecache.status_path(SESSION_ID)
    older = json.loads(cache_file.read_text("utf-8"))
    del older["inputs"], older["input_files"]  # what driftguard 0.2.0 wrote
    cache_file.write_text(json.dumps({**older, "score": 99}), "utf-8")
    assert _status(capsys)["score"] == record["score"]
