"""Session discovery (driftguard/sessions/discovery.py): folder-name rules, roots, and picking the
current session of each CLI for a project without ever picking another project's.

Every file here is synthetic: tiny records of the right shape, written into the private
HOME that conftest's autouse fixture sets up, in the CLIs' real on-disk layouts. File
times are set explicitly with ``os.utime`` (no clocks, no sleeps).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import zstandard

from driftguard.adapters._scan import PassedOver, ProjectPaths
from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.adapters.claude_code import roots as claude_roots
from driftguard.adapters.claude_code._find import _base36
from driftguard.adapters.claude_code._find import passed_over as claude_passed_over
from driftguard.adapters.codex_cli import root as codex_root
from driftguard.adapters.gemini_cli import project_hash as gemini_project_hash
from driftguard.adapters.gemini_cli import root as gemini_root
from driftguard.errors import SessionNotFoundError, UnknownNameError
from driftguard.sessions.discovery import (
    find_session,
    find_sessions,
    newest_session,
    session_search_places,
)

DEMO = Path("/home/dev/demo")
OTHER = Path("/home/dev/other")
T0 = 1_795_000_000  # 2026-11-19, seconds since the epoch; later files get T0 + n


def write_jsonl(path: Path, records: list[dict[str, Any]], mtime: float) -> Path:
    """Write ``records`` as JSONL at ``path`` (parents created) and set its mtime."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


def touch(path: Path, text: str, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


# ---------------------------------------------------------------------------- Claude


def claude_records(cwd: Path | str, session_id: str, prompt: str = "add a test") -> list[Any]:
    return [
        {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}},
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": session_id,
            "cwd": str(cwd),
            "timestamp": "2026-11-30T09:15:00.000Z",
            "message": {"role": "user", "content": prompt},
        },
    ]


def claude_session(
    root: Path, folder: str, session_id: str, mtime: float, cwd: Path | str = DEMO
) -> Path:
    path = root / "projects" / folder / f"{session_id}.jsonl"
    return write_jsonl(path, claude_records(cwd, session_id), mtime)


SID_A = "0b7c1d2e-0000-4000-8000-00000000000a"
SID_B = "0b7c1d2e-0000-4000-8000-00000000000b"
SID_C = "0b7c1d2e-0000-4000-8000-00000000000c"


@pytest.mark.parametrize(
    ("cwd", "expected"),
    [
        ("/Users/foo/my_repo", "-Users-foo-my-repo"),
        ("/home/dev/demo", "-home-dev-demo"),
        ("/home/dev/.config/app.v2", "-home-dev--config-app-v2"),
        ("/srv/a b+c@d~e", "-srv-a-b-c-d-e"),
        ("C:\\Users\\x", "C--Users-x"),
        ("/tmp/café", "-tmp-caf-"),  # é is one UTF-16 unit → one dash
        ("/tmp/a\U0001f600b", "-tmp-a--b"),  # an astral character is two UTF-16 units
        ("/a/b-c", "-a-b-c"),
        ("/a/b/c", "-a-b-c"),  # lossy: same folder as /a/b-c
    ],
)
def test_claude_folder_name_turns_every_non_alphanumeric_utf16_unit_into_a_dash(
    cwd: str, expected: str
) -> None:
    assert claude_project_dir_name(cwd) == expected


def test_claude_folder_name_of_exactly_200_units_has_no_hash_suffix() -> None:
    cwd = "/" + "a" * 199
    assert claude_project_dir_name(cwd) == "-" + "a" * 199


# 25 segments "segment_NN/" under /home/dev, then "project.v2": 295 characters.
LONG_CWD = "/home/dev/" + "".join(f"segment_{n:02d}/" for n in range(1, 26)) + "project.v2"


def test_claude_folder_name_over_200_units_keeps_200_and_appends_the_base36_int32_hash() -> None:
    # Expected value from Node 20 running the §A.2 rule on LONG_CWD:
    #   k = cwd.replace(/[^a-zA-Z0-9]/g, "-"); h = 0;
    #   for (i...) { h = (h << 5) - h + cwd.charCodeAt(i); h |= 0 }
    #   → h = -294395188, Math.abs(h).toString(36) = "4v9ws4"
    name = claude_project_dir_name(LONG_CWD)
    assert len(LONG_CWD) == 295
    assert name == LONG_CWD.replace("/", "-").replace("_", "-").replace(".", "-")[:200] + "-4v9ws4"


def _reference_js_hash(text: str) -> int:
    """An independent JavaScript-semantics re-implementation: ``h << 5`` as an int32
    shift, then ``- h + unit``, then ``| 0``, with ctypes doing the 32-bit wrapping."""
    units = [int.from_bytes(pair, "little") for pair in _pairs(text.encode("utf-16-le"))]
    h = 0
    for unit in units:
        shifted = ctypes.c_int32(h << 5).value
        h = ctypes.c_int32(shifted - h + unit).value
    return h


def _pairs(data: bytes) -> list[bytes]:
    return [data[i : i + 2] for i in range(0, len(data), 2)]


def _reference_base36(number: int) -> str:
    return (
        "0"
        if number == 0
        else _reference_base36(number // 36).lstrip("0")
        + ("0123456789abcdefghijklmnopqrstuvwxyz"[number % 36])
    )


LONG_CASES = [
    LONG_CWD,
    "/Users/someone/" + "Ärger-" * 40,  # non-ASCII BMP units
    "/data/" + "\U0001f680x" * 70,  # astral characters: two units and two dashes each
    "C:\\Users\\dev\\" + "deep\\" * 45,
    "/" + "z" * 400,
]


@pytest.mark.parametrize("cwd", LONG_CASES)
def test_claude_long_folder_name_matches_an_independent_js_semantics_reimplementation(
    cwd: str,
) -> None:
    units = len(cwd.encode("utf-16-le")) // 2
    dashed = "".join(
        ch if ch.isascii() and ch.isalnum() else "-" * (len(ch.encode("utf-16-le")) // 2)
        for ch in cwd
    )
    assert len(dashed) == units > 200
    expected = dashed[:200] + "-" + _reference_base36(abs(_reference_js_hash(cwd)))
    assert claude_project_dir_name(cwd) == expected


def test_base36_of_the_int32_minimum_magnitude_matches_javascript() -> None:
    # Math.abs(-2147483648) is 2147483648 in JavaScript (no int32 overflow);
    # (2147483648).toString(36) printed "zik0zk" under Node 20.
    assert _base36(2**31) == "zik0zk"
    assert _base36(0) == "0"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
@pytest.mark.parametrize("cwd", ["/home/dev/demo", "C:\\Users\\x", *LONG_CASES])
def test_claude_folder_name_equals_what_real_javascript_computes(cwd: str) -> None:
    script = (
        "const c=process.argv[1];const k=c.replace(/[^a-zA-Z0-9]/g,'-');"
        "if(k.length<=200){process.stdout.write(k)}else{let h=0;"
        "for(let i=0;i<c.length;i++){h=(h<<5)-h+c.charCodeAt(i);h|=0}"
        "process.stdout.write(k.slice(0,200)+'-'+Math.abs(h).toString(36))}"
    )
    node = shutil.which("node")
    assert node is not None
    out = subprocess.run(
        [node, "-e", script, cwd], capture_output=True, text=True, check=True, encoding="utf-8"
    ).stdout
    assert claude_project_dir_name(cwd) == out


def test_claude_newest_session_skips_legacy_agent_files_subagent_trees_and_empty_files(
    isolated_home: Path,
) -> None:
    root = isolated_home / ".claude"
    folder = root / "projects" / "-home-dev-demo"
    older = claude_session(root, "-home-dev-demo", SID_A, T0)
    current = claude_session(root, "-home-dev-demo", SID_B, T0 + 10)
    write_jsonl(folder / "agent-1a2b3c4d.jsonl", claude_records(DEMO, SID_B), T0 + 50)
    write_jsonl(
        folder / SID_B / "subagents" / "agent-a1b2c3d4e5f6.jsonl",
        claude_records(DEMO, SID_B),
        T0 + 60,
    )
    touch(folder / f"{SID_C}.jsonl", "", T0 + 70)  # a 0-byte transcript
    assert older.exists()
    assert find_session(DEMO, "claude_code") == current


def test_claude_config_dir_replaces_the_default_roots(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = isolated_home / "claude-work"
    claude_session(isolated_home / ".claude", "-home-dev-demo", SID_A, T0 + 100)
    inside = claude_session(custom, "-home-dev-demo", SID_B, T0)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(custom))
    assert claude_roots() == [custom]
    assert find_session(DEMO, "claude_code") == inside


def test_claude_config_dir_as_a_comma_list_searches_every_entry(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = isolated_home / "cfg-one", isolated_home / "cfg-two"
    claude_session(first, "-home-dev-demo", SID_A, T0)
    newer = claude_session(second, "-home-dev-demo", SID_B, T0 + 5)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{first}, {second},")
    assert claude_roots() == [first, second]
    assert find_session(DEMO, "claude_code") == newer


def test_claude_project_dir_name_override_applies_only_with_claude_config_dir(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = isolated_home / "claude-cfg"
    derived = claude_session(custom, "-home-dev-demo", SID_A, T0 + 100)
    named = claude_session(custom, "demo-sessions", SID_B, T0)
    monkeypatch.setenv("CLAUDE_CODE_PROJECT_DIR_NAME", "demo-sessions")
    # Without CLAUDE_CONFIG_DIR the override is ignored (docs/formats.md §A.1).
    claude_session(isolated_home / ".claude", "-home-dev-demo", SID_C, T0 + 1)
    assert find_session(DEMO, "claude_code") == isolated_home / ".claude" / "projects" / (
        f"-home-dev-demo/{SID_C}.jsonl"
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(custom))
    assert find_session(DEMO, "claude_code") == named
    assert derived.exists()


def test_claude_xdg_config_root_is_searched_when_claude_config_dir_is_unset(
    isolated_home: Path,
) -> None:
    xdg = claude_session(isolated_home / ".config" / "claude", "-home-dev-demo", SID_A, T0 + 1)
    claude_session(isolated_home / ".claude", "-home-dev-demo", SID_B, T0)
    assert isolated_home / ".config" / "claude" in claude_roots()
    assert find_session(DEMO, "claude_code") == xdg


def test_claude_uses_the_folder_name_of_the_project_as_given_and_resolved(
    isolated_home: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real_home" / "demo"
    real.mkdir(parents=True)
    link = tmp_path / "linked_home"
    link.symlink_to(tmp_path / "real_home")
    via_link = link / "demo"
    root = isolated_home / ".claude"
    # A session Claude recorded under the resolved (physical) path…
    physical = claude_session(root, claude_project_dir_name(str(real)), SID_A, T0, cwd=real)
    assert find_session(via_link, "claude_code") == physical
    # …and a newer one recorded under the symlinked path: both folders are searched.
    logical = claude_session(
        root, claude_project_dir_name(str(via_link)), SID_B, T0 + 1, cwd=via_link
    )
    assert find_session(via_link, "claude_code") == logical
    assert find_session(real, "claude_code") == physical


def test_claude_lossy_folder_never_yields_a_colliding_projects_session(
    isolated_home: Path,
) -> None:
    # /home/dev/b-c and /home/dev/b/c both map to -home-dev-b-c (docs/formats.md §A.2).
    root = isolated_home / ".claude"
    mine = claude_session(root, "-home-dev-b-c", SID_A, T0, cwd="/home/dev/b-c")
    claude_session(root, "-home-dev-b-c", SID_B, T0 + 10, cwd="/home/dev/b/c")
    assert find_session(Path("/home/dev/b-c"), "claude_code") == mine
    assert find_session(Path("/home/dev/b/c"), "claude_code") == root / "projects" / (
        f"-home-dev-b-c/{SID_B}.jsonl"
    )


def test_claude_session_started_in_a_subfolder_of_the_project_is_kept(isolated_home: Path) -> None:
    path = claude_session(isolated_home / ".claude", "-home-dev-demo", SID_A, T0, DEMO / "src")
    assert find_session(DEMO, "claude_code") == path


def test_claude_file_without_a_cwd_in_its_first_records_is_kept(isolated_home: Path) -> None:
    folder = isolated_home / ".claude" / "projects" / "-home-dev-demo"
    summary_only = write_jsonl(
        folder / f"{SID_A}.jsonl", [{"type": "summary", "summary": "x", "leafUuid": "u9"}], T0
    )
    assert find_session(DEMO, "claude_code") == summary_only


def test_claude_another_projects_newer_session_is_never_picked(isolated_home: Path) -> None:
    root = isolated_home / ".claude"
    mine = claude_session(root, "-home-dev-demo", SID_A, T0)
    claude_session(root, "-home-dev-other", SID_B, T0 + 1000, cwd=OTHER)
    claude_session(root, "-home-dev-demo-two", SID_C, T0 + 2000, cwd="/home/dev/demo-two")
    assert find_session(DEMO, "claude_code") == mine


def test_claude_files_passed_over_as_another_folders_are_counted_per_folder_as_plain_data(
    isolated_home: Path,
) -> None:
    root = isolated_home / ".claude"
    claude_session(root, "-home-dev-demo", SID_A, T0, cwd=OTHER)
    claude_session(root, "-home-dev-demo", SID_B, T0 + 10, cwd=OTHER)
    claude_session(root, "-home-dev-demo", SID_C, T0 + 20, cwd=DEMO / "src")  # ours: kept
    assert claude_passed_over(ProjectPaths.of(DEMO)) == [
        PassedOver(root / "projects" / "-home-dev-demo", 2, (str(OTHER),))
    ]


def test_no_claude_session_found_says_under_its_folder_how_many_files_there_were_skipped(
    isolated_home: Path,
) -> None:
    root = isolated_home / ".claude"
    claude_session(root, "-home-dev-demo", SID_A, T0, cwd=OTHER)
    claude_session(root, "-home-dev-demo", SID_B, T0 + 10, cwd=OTHER)
    with pytest.raises(SessionNotFoundError) as caught:
        newest_session(DEMO, ["claude_code"])
    folder = root / "projects" / "-home-dev-demo"
    assert list(caught.value.details) == [
        f"Claude Code: {folder} (*.jsonl, not agent-*.jsonl)",
        f"  2 files there were skipped: they belong to {OTHER} (their cwd)",
        f"Claude Code: {isolated_home / '.config' / 'claude' / 'projects' / '-home-dev-demo'}"
        " (*.jsonl, not agent-*.jsonl)",
    ]


def test_the_skipped_files_note_names_at_most_two_folders_each_clipped(
    isolated_home: Path,
) -> None:
    root = isolated_home / ".claude"
    cwds = ["/home/dev/z", "/home/dev/y", "/home/dev/x", LONG_CWD]  # oldest first
    for number, cwd in enumerate(cwds):
        session_id = f"0b7c1d2e-0000-4000-8000-00000000010{number}"
        claude_session(root, "-home-dev-demo", session_id, T0 + number, cwd=cwd)
    with pytest.raises(SessionNotFoundError) as caught:
        newest_session(DEMO, ["claude_code"])
    note = caught.value.details[1]
    assert note == (
        f"  4 files there were skipped: they belong to {LONG_CWD[:99]}…, /home/dev/x and 2 "
        "other folders (their cwds)"
    )


def test_a_single_skipped_file_is_told_in_the_singular(isolated_home: Path) -> None:
    claude_session(isolated_home / ".claude", "-home-dev-demo", SID_A, T0, cwd=OTHER)
    with pytest.raises(SessionNotFoundError) as caught:
        newest_session(DEMO, ["claude_code"])
    assert caught.value.details[1] == f"  1 file there was skipped: it belongs to {OTHER} (its cwd)"


# ---------------------------------------------------------------------------- Gemini


def gemini_records(session_id: str, project: Path = DEMO, kind: str = "main") -> list[Any]:
    return [
        {
            "sessionId": session_id,
            "projectHash": gemini_project_hash(str(project)),
            "startTime": "2026-11-30T09:15:00.000Z",
            "lastUpdated": "2026-11-30T09:15:00.000Z",
            "kind": kind,
        },
        {
            "id": "msg-1",
            "timestamp": "2026-11-30T09:15:01.000Z",
            "type": "user",
            "content": [{"text": "rename the helper"}],
        },
    ]


GSID_A = "abcd1234-1111-4111-8111-111111111111"
GSID_B = "ef015678-2222-4222-8222-222222222222"


def gemini_file(
    chats: Path, stamp: str, session_id: str, mtime: float, extra: int = 0, suffix: str = ".jsonl"
) -> Path:
    records = gemini_records(session_id)
    records += [
        {"id": f"msg-x{n}", "type": "gemini", "content": "done", "timestamp": "2026-11-30T09:16Z"}
        for n in range(extra)
    ]
    return write_jsonl(chats / f"session-{stamp}-{session_id[:8]}{suffix}", records, mtime)


def register(gemini: Path, project: Path, slug: str) -> Path:
    gemini.mkdir(parents=True, exist_ok=True)
    registry = gemini / "projects.json"
    registry.write_text(json.dumps({"projects": {str(project): slug}}), encoding="utf-8")
    marker = gemini / "tmp" / slug / ".project_root"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(str(project), encoding="utf-8")
    return gemini / "tmp" / slug / "chats"


def test_gemini_project_hash_is_sha256_hex_of_the_root() -> None:
    expected = hashlib.sha256(b"/home/dev/demo").hexdigest()
    assert gemini_project_hash("/home/dev/demo") == expected
    assert len(expected) == 64


def test_gemini_slug_folder_from_projects_json_is_found(isolated_home: Path) -> None:
    chats = register(isolated_home / ".gemini", DEMO, "demo")
    path = gemini_file(chats, "2026-11-30T09-15", GSID_A, T0)
    assert path == isolated_home / ".gemini/tmp/demo/chats/session-2026-11-30T09-15-abcd1234.jsonl"
    assert find_session(DEMO, "gemini_cli") == path


def test_gemini_projects_json_nested_too_deeply_is_ignored(isolated_home: Path) -> None:
    gemini = isolated_home / ".gemini"
    touch(gemini / "projects.json", '{"projects": ' + "[" * 100_000 + "]" * 100_000 + "}", T0)
    chats = gemini / "tmp" / gemini_project_hash(str(DEMO)) / "chats"
    path = gemini_file(chats, "2026-01-05T10-00", GSID_A, T0)
    assert find_session(DEMO, "gemini_cli") == path


def test_gemini_sha256_folder_is_found_without_a_registry(isolated_home: Path) -> None:
    chats = isolated_home / ".gemini" / "tmp" / gemini_project_hash(str(DEMO)) / "chats"
    path = gemini_file(chats, "2026-01-05T10-00", GSID_A, T0, suffix=".json")
    assert find_session(DEMO, "gemini_cli") == path


def test_gemini_project_root_marker_finds_a_folder_missing_from_the_registry(
    isolated_home: Path,
) -> None:
    marker = isolated_home / ".gemini" / "tmp" / "demo-1" / ".project_root"
    touch(marker, str(DEMO) + "\n", T0)
    path = gemini_file(marker.parent / "chats", "2026-11-30T09-15", GSID_A, T0)
    assert find_session(DEMO, "gemini_cli") == path


def test_gemini_cli_home_moves_the_root(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = isolated_home / "gemhome"
    register(isolated_home / ".gemini", DEMO, "demo")
    chats = register(elsewhere / ".gemini", DEMO, "demo")
    gemini_file(isolated_home / ".gemini/tmp/demo/chats", "2026-11-30T09-20", GSID_B, T0 + 100)
    path = gemini_file(chats, "2026-11-30T09-15", GSID_A, T0)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))
    assert gemini_root() == elsewhere / ".gemini"
    assert find_session(DEMO, "gemini_cli") == path


def test_gemini_resume_stub_loses_to_the_larger_file_of_the_same_session(
    isolated_home: Path,
) -> None:
    chats = register(isolated_home / ".gemini", DEMO, "demo")
    original = gemini_file(chats, "2026-11-30T09-15", GSID_A, T0 + 5, extra=6)
    gemini_file(chats, "2026-11-30T11-40", GSID_A, T0 + 9)  # the stub: header + one message
    older_session = gemini_file(chats, "2026-11-29T08-00", GSID_B, T0 + 7, extra=20)
    assert (
        original.stat().st_size > (chats / "session-2026-11-30T11-40-abcd1234.jsonl").stat().st_size
    )
    assert older_session.exists()
    # The session group's time is its newest file (the stub, T0+9), so session A is current
    # even though another session's file (T0+7) is newer than A's own largest file (T0+5).
    assert find_session(DEMO, "gemini_cli") == original


def test_gemini_jsonl_twin_is_preferred_over_a_larger_legacy_json(isolated_home: Path) -> None:
    chats = register(isolated_home / ".gemini", DEMO, "demo")
    legacy = {**gemini_records(GSID_A)[0], "messages": [{"id": "m", "content": "x" * 4000}]}
    touch(chats / "session-2026-03-01T10-00-abcd1234.json", json.dumps(legacy, indent=2), T0)
    twin = gemini_file(chats, "2026-03-01T10-00", GSID_A, T0)
    assert (chats / "session-2026-03-01T10-00-abcd1234.json").stat().st_size > twin.stat().st_size
    assert find_session(DEMO, "gemini_cli") == twin


def test_gemini_file_without_readable_metadata_is_grouped_by_its_name_suffix(
    isolated_home: Path,
) -> None:
    chats = register(isolated_home / ".gemini", DEMO, "demo")
    big = chats / "session-2026-11-30T09-15-abcd1234.jsonl"
    touch(big, '{"sessionId": "abcd1234-1111' + "\n" + '{"id": "m1"}\n' * 40, T0)  # torn header
    gemini_file(chats, "2026-11-30T10-00", GSID_A, T0 + 3)  # small stub with a good header
    assert find_session(DEMO, "gemini_cli") == big


def test_gemini_subagent_chats_and_artifacts_are_not_main_sessions(isolated_home: Path) -> None:
    chats = register(isolated_home / ".gemini", DEMO, "demo")
    main = gemini_file(chats, "2026-11-30T09-15", GSID_A, T0)
    write_jsonl(chats / GSID_A / f"{GSID_B}.jsonl", gemini_records(GSID_B, kind="subagent"), T0 + 9)
    write_jsonl(
        chats / "session-2026-11-30T09-30-ef015678.jsonl",
        gemini_records(GSID_B, kind="subagent"),
        T0 + 8,
    )
    touch(chats / "session-2026-11-30T09-40-99999999.jsonl.tmp-4242", "{}\n", T0 + 7)
    touch(chats / "session-2026-11-30T09-45-88888888.jsonl.unreadable-1764", "{}\n", T0 + 6)
    assert find_session(DEMO, "gemini_cli") == main


def test_gemini_another_projects_newer_session_is_never_picked(isolated_home: Path) -> None:
    gemini = isolated_home / ".gemini"
    gemini.mkdir()
    (gemini / "projects.json").write_text(
        json.dumps({"projects": {str(DEMO): "demo", str(OTHER): "other"}}), encoding="utf-8"
    )
    touch(gemini / "tmp/demo/.project_root", str(DEMO), T0)
    touch(gemini / "tmp/other/.project_root", str(OTHER), T0)
    mine = gemini_file(gemini / "tmp/demo/chats", "2026-11-30T09-15", GSID_A, T0)
    gemini_file(gemini / "tmp/other/chats", "2026-11-30T12-00", GSID_B, T0 + 500)
    hashed = gemini / "tmp" / gemini_project_hash(str(OTHER)) / "chats"
    gemini_file(hashed, "2026-11-30T13-00", GSID_B, T0 + 600)
    assert find_session(DEMO, "gemini_cli") == mine


def test_gemini_slug_whose_marker_names_another_path_is_not_used(isolated_home: Path) -> None:
    gemini = isolated_home / ".gemini"
    chats = register(gemini, DEMO, "demo")
    gemini_file(chats, "2026-11-30T09-15", GSID_A, T0)
    # A stale registry: the folder now belongs to /home/dev/other.
    (gemini / "tmp/demo/.project_root").write_text(str(OTHER), encoding="utf-8")
    assert find_session(DEMO, "gemini_cli") is None


# ---------------------------------------------------------------------------- Codex


def codex_records(cwd: Path | str, thread: str, source: Any = "cli") -> list[Any]:
    return [
        {
            "timestamp": "2026-11-30T09:15:00.000Z",
            "type": "session_meta",
            "payload": {
                "id": thread,
                "timestamp": "2026-11-30T09:15:00.000Z",
                "cwd": str(cwd),
                "originator": "codex_cli_rs",
                "cli_version": "0.171.0",
                "source": source,
            },
        },
        {
            "timestamp": "2026-11-30T09:15:01.000Z",
            "type": "turn_context",
            "payload": {"cwd": str(cwd), "model": "gpt-5-codex"},
        },
    ]


TH_A = "019ad000-0000-7000-8000-00000000000a"
TH_B = "019ad000-0000-7000-8000-00000000000b"
TH_C = "019ad000-0000-7000-8000-00000000000c"


def rollout(root: Path, day: str, thread: str, mtime: float, cwd: Path | str = DEMO) -> Path:
    year, month, dom = day.split("-")
    path = root / "sessions" / year / month / dom / f"rollout-{day}T09-15-00-{thread}.jsonl"
    return write_jsonl(path, codex_records(cwd, thread), mtime)


def test_codex_home_and_session_meta_cwd_select_the_projects_rollout(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = isolated_home / "codex-home"
    rollout(isolated_home / ".codex", "2026-11-30", TH_C, T0 + 100)
    mine = rollout(custom, "2026-11-30", TH_A, T0)
    rollout(custom, "2026-11-30", TH_B, T0 + 50, cwd=OTHER)
    rollout(custom, "2026-11-30", TH_C, T0 + 60, cwd="/home/dev/demo/sub")
    monkeypatch.setenv("CODEX_HOME", str(custom))
    assert codex_root() == custom
    assert mine == custom / f"sessions/2026/11/30/rollout-2026-11-30T09-15-00-{TH_A}.jsonl"
    assert find_session(DEMO, "codex_cli") == mine


def test_codex_resumed_rollout_in_an_older_date_folder_wins_by_mtime(isolated_home: Path) -> None:
    root = isolated_home / ".codex"
    rollout(root, "2026-11-30", TH_A, T0)
    resumed = rollout(root, "2025-12-31", TH_B, T0 + 10)  # appended to today, filed a year ago
    assert find_session(DEMO, "codex_cli") == resumed


def test_codex_archived_sessions_are_searched_and_the_active_copy_wins(
    isolated_home: Path,
) -> None:
    root = isolated_home / ".codex"
    archived = write_jsonl(
        root / "archived_sessions" / f"rollout-2026-10-01T08-00-00-{TH_A}.jsonl",
        codex_records(DEMO, TH_A),
        T0,
    )
    assert find_session(DEMO, "codex_cli") == archived
    active = rollout(root, "2026-11-30", TH_B, T0 - 50)
    copy = root / "archived_sessions" / active.name
    write_jsonl(copy, codex_records(DEMO, TH_B), T0 + 50)
    # The archived copy of the active rollout is dropped; the other archived one is newer.
    assert find_session(DEMO, "codex_cli") == archived


def test_codex_zstd_compressed_rollout_is_read(isolated_home: Path) -> None:
    root = isolated_home / ".codex"
    day = root / "sessions/2026/11/20"
    day.mkdir(parents=True)
    raw = "".join(json.dumps(r) + "\n" for r in codex_records(DEMO, TH_A)).encode()
    packed = day / f"rollout-2026-11-20T08-00-00-{TH_A}.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(raw))
    os.utime(packed, (T0, T0))
    other = day / f"rollout-2026-11-20T09-00-00-{TH_B}.jsonl.zst"
    other.write_bytes(
        zstandard.ZstdCompressor().compress(json.dumps(codex_records(OTHER, TH_B)[0]).encode())
    )
    os.utime(other, (T0 + 5, T0 + 5))
    assert find_session(DEMO, "codex_cli") == packed


def _codex_zst(root: Path, stem: str, thread: str, mtime: float, cut: float = 1.0) -> Path:
    """A zstd rollout of the DEMO project, padded to span several zstd blocks, keeping only
    the first ``cut`` of its compressed bytes."""
    padding = [
        {"timestamp": "2026-11-30T09:16:00.000Z", "type": "event_msg", "payload": {"n": n}}
        for n in range(20_000)
    ]
    raw = "".join(json.dumps(r) + "\n" for r in codex_records(DEMO, thread) + padding).encode()
    packed = zstandard.ZstdCompressor().compress(raw)
    path = root / "sessions/2026/11/20" / f"rollout-2026-11-20T{stem}-{thread}.jsonl.zst"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(packed[: int(len(packed) * cut)])
    os.utime(path, (mtime, mtime))
    return path


def test_codex_truncated_zstd_rollout_is_skipped(isolated_home: Path) -> None:
    root = isolated_home / ".codex"
    whole = _codex_zst(root, "08-00-00", TH_A, T0)
    # Newer, its head (session_meta, turn_context) intact, but cut before the frame's end.
    _codex_zst(root, "09-00-00", TH_B, T0 + 5, cut=0.6)
    assert find_session(DEMO, "codex_cli") == whole


def test_codex_corrupt_zstd_rollout_is_skipped(isolated_home: Path) -> None:
    root = isolated_home / ".codex"
    whole = _codex_zst(root, "08-00-00", TH_A, T0)
    corrupt = root / "sessions/2026/11/20" / f"rollout-2026-11-20T09-00-00-{TH_B}.jsonl.zst"
    corrupt.write_bytes(b"\x28\xb5\x2f\xfd" + bytes((n * 73 + 41) % 256 for n in range(200)))
    os.utime(corrupt, (T0 + 5, T0 + 5))
    assert find_session(DEMO, "codex_cli") == whole
    assert find_sessions(DEMO) == {"codex_cli": whole}


def test_codex_forked_rollout_is_judged_by_its_own_first_session_meta(
    isolated_home: Path,
) -> None:
    day = isolated_home / ".codex/sessions/2026/11/30"
    mine = rollout(isolated_home / ".codex", "2026-11-30", TH_A, T0)
    # A fork made in another project: its own session_meta first, then the parent's (ours).
    fork = codex_records(OTHER, TH_B)[:1] + codex_records(DEMO, TH_A)
    write_jsonl(day / f"rollout-2026-11-30T10-00-00-{TH_B}.jsonl", fork, T0 + 10)
    assert find_session(DEMO, "codex_cli") == mine
    assert find_session(OTHER, "codex_cli") == day / f"rollout-2026-11-30T10-00-00-{TH_B}.jsonl"


def test_codex_subagent_rollouts_are_not_main_sessions(isolated_home: Path) -> None:
    day = isolated_home / ".codex/sessions/2026/11/30"
    mine = rollout(isolated_home / ".codex", "2026-11-30", TH_A, T0)
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": TH_A, "depth": 1}}}
    write_jsonl(
        day / f"rollout-2026-11-30T09-20-00-{TH_B}.jsonl",
        codex_records(DEMO, TH_B, source=spawn),
        T0 + 10,
    )
    assert find_session(DEMO, "codex_cli") == mine


def test_codex_turn_context_cwd_decides_when_session_meta_has_none(isolated_home: Path) -> None:
    records = codex_records(DEMO, TH_A)
    del records[0]["payload"]["cwd"]
    day = isolated_home / ".codex/sessions/2026/11/30"
    path = write_jsonl(day / f"rollout-2026-11-30T09-15-00-{TH_A}.jsonl", records, T0)
    assert find_session(DEMO, "codex_cli") == path


def test_codex_fork_without_its_own_cwd_never_borrows_the_parents(isolated_home: Path) -> None:
    # Own session_meta without cwd, then the parent's session_meta and replayed turn_context
    # (both naming our project): the parent's records do not make the fork ours.
    own = codex_records(DEMO, TH_B)[:1]
    del own[0]["payload"]["cwd"]
    day = isolated_home / ".codex/sessions/2026/11/30"
    write_jsonl(
        day / f"rollout-2026-11-30T10-00-00-{TH_B}.jsonl", own + codex_records(DEMO, TH_A), T0
    )
    assert find_session(DEMO, "codex_cli") is None


def test_codex_temporary_and_unreadable_artifacts_are_skipped(isolated_home: Path) -> None:
    day = isolated_home / ".codex/sessions/2026/11/30"
    mine = rollout(isolated_home / ".codex", "2026-11-30", TH_A, T0)
    for name in (f"{mine.name}.tmp-777", f"{mine.name}.unreadable-1764000000"):
        write_jsonl(day / name, codex_records(DEMO, TH_A), T0 + 10)
    touch(day / f"rollout-2026-11-30T11-00-00-{TH_B}.jsonl", '{"timestamp": "2026-11', T0 + 20)
    assert find_session(DEMO, "codex_cli") == mine


def test_codex_rollout_rewritten_in_place_is_read_again(isolated_home: Path) -> None:
    path = rollout(isolated_home / ".codex", "2026-11-30", TH_A, T0, cwd=OTHER)
    assert find_session(DEMO, "codex_cli") is None
    write_jsonl(path, codex_records("/home/dev/demo", TH_A) * 2, T0 + 1)
    assert find_session(DEMO, "codex_cli") == path


# ---------------------------------------------------------------------------- all CLIs


def test_newest_session_picks_the_newest_file_among_the_clis(isolated_home: Path) -> None:
    claude = claude_session(isolated_home / ".claude", "-home-dev-demo", SID_A, T0 + 1)
    chats = register(isolated_home / ".gemini", DEMO, "demo")
    gemini = gemini_file(chats, "2026-11-30T09-15", GSID_A, T0 + 3)
    codex = rollout(isolated_home / ".codex", "2026-11-30", TH_A, T0 + 2)
    assert find_sessions(DEMO) == {"claude_code": claude, "gemini_cli": gemini, "codex_cli": codex}
    assert newest_session(DEMO) == ("gemini_cli", gemini)
    assert newest_session(DEMO, ["claude_code", "codex_cli"]) == ("codex_cli", codex)


def test_newest_session_never_returns_another_projects_newer_session(isolated_home: Path) -> None:
    mine = claude_session(isolated_home / ".claude", "-home-dev-demo", SID_A, T0)
    claude_session(isolated_home / ".claude", "-home-dev-other", SID_B, T0 + 900, cwd=OTHER)
    rollout(isolated_home / ".codex", "2026-11-30", TH_B, T0 + 901, cwd=OTHER)
    chats = register(isolated_home / ".gemini", OTHER, "other")
    gemini_file(chats, "2026-11-30T09-15", GSID_B, T0 + 902)
    assert newest_session(DEMO) == ("claude_code", mine)


def test_nothing_found_raises_session_not_found_naming_every_place(isolated_home: Path) -> None:
    rollout(isolated_home / ".codex", "2026-11-30", TH_B, T0, cwd=OTHER)
    with pytest.raises(SessionNotFoundError) as caught:
        newest_session(DEMO)
    assert str(caught.value) == "no session found for /home/dev/demo; looked in:"
    assert list(caught.value.details) == session_search_places(DEMO)
    message = caught.value.full_text()
    for place in session_search_places(DEMO):
        assert place in message
    assert str(isolated_home / ".claude" / "projects" / "-home-dev-demo") in message
    assert str(isolated_home / ".config" / "claude" / "projects" / "-home-dev-demo") in message
    hashed = isolated_home / ".gemini" / "tmp" / gemini_project_hash(str(DEMO)) / "chats"
    assert str(hashed) in message
    assert str(isolated_home / ".codex" / "sessions") in message
    assert str(isolated_home / ".codex" / "archived_sessions") in message
    assert find_sessions(DEMO) == {}


def test_search_places_name_the_registry_slug_folder(isolated_home: Path) -> None:
    register(isolated_home / ".gemini", DEMO, "demo")
    places = session_search_places(DEMO, ["gemini_cli"])
    assert places[0].startswith(f"Gemini CLI: {isolated_home / '.gemini/tmp/demo/chats'} ")


def test_unknown_cli_name_is_rejected_with_the_valid_names() -> None:
    with pytest.raises(UnknownNameError, match="claude_code, gemini_cli, codex_cli, cursor"):
        find_session(DEMO, "windsurf")  # type: ignore[arg-type]
