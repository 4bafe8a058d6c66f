"""Where each host compacts: the usable window, its overrides, and reading them.

Every expected value is computed by hand from the rules the pinned CLIs' code states
(Claude Code 2.1.197, Gemini CLI 0.61.0, Codex 0.171.0; see driftguard/engine/window.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftguard.compaction.window import HostSetting
from driftguard.engine.window import read_compaction_settings, usable_window


def env(**values: object) -> dict[str, HostSetting]:
    return {name: HostSetting(value, "environment") for name, value in values.items()}


# --- Claude Code ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("window", "expected"),
    [(200_000, 167_000), (1_000_000, 967_000), (128_000, 95_000)],
)
def test_claude_code_compacts_13000_below_the_window_less_the_output_reserve(
    window: int, expected: int
) -> None:
    usable = usable_window("claude_code", window)
    assert usable.tokens == expected
    assert usable.overrides == ()
    assert f"{window:,} − 20,000 reserved for output − 13,000 = {expected:,}" in usable.rule


@pytest.mark.parametrize(
    ("pct", "expected"),
    [
        ("50", 90_000),  # min(floor(180,000 × .5), 167,000)
        ("80.5", 144_900),  # floor(180,000 × .805)
        ("95", 167_000),  # 171,000 is above the default: the override only lowers it
        ("100", 167_000),
    ],
)
def test_the_autocompact_percentage_is_of_the_effective_window_and_only_lowers_it(
    pct: str, expected: int
) -> None:
    usable = usable_window(
        "claude_code", 200_000, settings=env(CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=pct)
    )
    assert usable.tokens == expected
    assert usable.overrides == (f"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE={pct} (environment)",)


@pytest.mark.parametrize("pct", ["0", "-5", "101", "abc", ""])
def test_an_autocompact_percentage_outside_0_to_100_is_ignored(pct: str) -> None:
    usable = usable_window(
        "claude_code", 200_000, settings=env(CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=pct)
    )
    assert usable.tokens == 167_000
    assert usable.overrides == ()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("150000", 117_000),  # 150,000 − 20,000 − 13,000
        ("50000", 67_000),  # raised to the 100,000 floor
        ("150k", 67_000),  # parseInt reads 150, raised to 100,000
    ],
)
def test_the_auto_compact_window_variable_lowers_the_window_within_its_bounds(
    value: str, expected: int
) -> None:
    usable = usable_window(
        "claude_code", 200_000, settings=env(CLAUDE_CODE_AUTO_COMPACT_WINDOW=value)
    )
    assert usable.tokens == expected
    assert usable.overrides == (f"CLAUDE_CODE_AUTO_COMPACT_WINDOW={value} (environment)",)


def test_an_auto_compact_window_above_the_models_changes_nothing_and_is_not_listed() -> None:
    # capped at 1,000,000, then at the model's 200,000: no change
    usable = usable_window(
        "claude_code", 200_000, settings=env(CLAUDE_CODE_AUTO_COMPACT_WINDOW="5000000")
    )
    assert (usable.tokens, usable.overrides) == (167_000, ())


@pytest.mark.parametrize("window", [10_000, 33_000])
def test_a_window_too_small_for_claude_codes_rule_counts_whole_and_never_negative(
    window: int,
) -> None:
    usable = usable_window("claude_code", window)
    assert usable.tokens == window
    assert "−" in usable.rule
    assert "= -" not in usable.rule
    assert "the whole window counts" in usable.rule


def test_an_override_that_is_not_text_is_named_as_json() -> None:
    settings = {"autoCompactEnabled": HostSetting(False, "/p/.claude/settings.json")}
    usable = usable_window("claude_code", 200_000, settings=settings)
    assert usable.overrides == ("autoCompactEnabled=false (/p/.claude/settings.json)",)


def test_the_settings_window_counts_only_from_100000_to_1000000() -> None:
    def with_setting(value: object) -> int:
        setting = {"autoCompactWindow": HostSetting(value, "/home/u/.claude/settings.json")}
        return usable_window("claude_code", 200_000, settings=setting).tokens

    assert with_setting(120_000) == 87_000
    assert with_setting(50_000) == 167_000
    assert with_setting("120000") == 167_000  # the schema wants a number
    assert with_setting(True) == 167_000


def test_the_environment_window_beats_the_settings_window() -> None:
    settings = env(CLAUDE_CODE_AUTO_COMPACT_WINDOW="150000") | {
        "autoCompactWindow": HostSetting(120_000, "settings.json")
    }
    assert usable_window("claude_code", 200_000, settings=settings).tokens == 117_000


@pytest.mark.parametrize(
    "settings",
    [
        env(DISABLE_AUTO_COMPACT="1"),
        env(DISABLE_COMPACT="true"),
        env(DISABLE_AUTO_COMPACT=" ON "),
        {"autoCompactEnabled": HostSetting(False, "/p/.claude/settings.json")},
    ],
)
def test_with_auto_compact_off_the_session_runs_to_the_blocking_limit(
    settings: dict[str, HostSetting],
) -> None:
    usable = usable_window("claude_code", 200_000, settings=settings)
    assert usable.tokens == 177_000  # 200,000 − 20,000 − 3,000
    assert usable.rule.startswith("auto-compact is off")
    assert len(usable.overrides) == 1


def test_a_switch_that_is_not_truthy_leaves_auto_compact_on() -> None:
    usable = usable_window("claude_code", 200_000, settings=env(DISABLE_AUTO_COMPACT="0"))
    assert usable.tokens == 167_000


def test_a_max_output_below_20000_shrinks_the_reserve() -> None:
    settings = env(CLAUDE_CODE_MAX_OUTPUT_TOKENS="8000")
    assert usable_window("claude_code", 200_000, settings=settings).tokens == 179_000
    settings = env(CLAUDE_CODE_MAX_OUTPUT_TOKENS="64000")
    assert usable_window("claude_code", 200_000, settings=settings).tokens == 167_000


# --- Gemini CLI and Codex -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [
        (None, 524_288),  # 0.5 × 1,048,576
        (0.2, 209_715),  # floor(209,715.2)
        (0.7, 734_003),
        (1, 1_048_576),
        (0, 524_288),  # 0 falls back to the default
        (1.5, 1_048_576),  # above 1 Gemini never compresses
        (70, 1_048_576),
        ("0.3", 524_288),
    ],
)
def test_gemini_compresses_at_the_threshold_fraction_of_its_token_limit(
    threshold: object, expected: int
) -> None:
    settings = (
        {}
        if threshold is None
        else {"model.compressionThreshold": HostSetting(threshold, "settings.json")}
    )
    assert usable_window("gemini_cli", 1_048_576, settings=settings).tokens == expected


def test_codex_compacts_at_90_percent_of_the_window_its_rollout_reports_as_95() -> None:
    usable = usable_window("codex_cli", 258_400)
    assert usable.tokens == 244_800  # 272,000 × 90 %
    assert usable.rule == "Codex compacts at 90% of 272,000 = 244,800"


def test_codex_takes_a_window_the_user_names_as_the_models_own() -> None:
    assert usable_window("codex_cli", 128_000, window_from_file=False).tokens == 115_200


@pytest.mark.parametrize(("limit", "expected"), [(200_000, 200_000), (300_000, 258_400)])
def test_codex_compacts_at_its_configured_limit_but_never_past_the_95_percent_cap(
    limit: int, expected: int
) -> None:
    settings = {"model_auto_compact_token_limit": HostSetting(limit, "/h/.codex/config.toml")}
    usable = usable_window("codex_cli", 258_400, settings=settings)
    assert usable.tokens == expected
    assert usable.overrides == (f"model_auto_compact_token_limit={limit} (/h/.codex/config.toml)",)


# --- reading the settings -------------------------------------------------------------------


def test_claude_settings_come_from_the_environment_and_the_settings_files(
    isolated_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude" / "settings.json").write_text(
        json.dumps({"autoCompactWindow": 150_000}), "utf-8"
    )
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoCompactWindow": 120_000}), "utf-8"
    )
    found = read_compaction_settings(
        "claude_code", project=project, env={"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "70", "PATH": "x"}
    )
    assert found["CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"] == HostSetting("70", "environment")
    assert found["autoCompactWindow"] == HostSetting(
        120_000, str(project / ".claude" / "settings.local.json")
    )
    assert "PATH" not in found


def test_claude_settings_follow_claude_config_dir_and_the_legacy_global_config(
    tmp_path: Path,
) -> None:
    config = tmp_path / "cfg"
    config.mkdir()
    (config / ".claude.json").write_text(json.dumps({"autoCompactEnabled": False}), "utf-8")
    found = read_compaction_settings(
        "claude_code", project=None, env={"CLAUDE_CONFIG_DIR": str(config)}
    )
    assert found["autoCompactEnabled"] == HostSetting(False, str(config / ".claude.json"))


def test_a_settings_file_that_does_not_parse_is_passed_over(isolated_home: Path) -> None:
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude" / "settings.json").write_text("{broken", "utf-8")
    assert read_compaction_settings("claude_code", project=None, env={}) == {}


def test_gemini_reads_user_settings_with_comments_and_a_trusted_projects_settings(
    tmp_path: Path,
) -> None:
    home = tmp_path / "gh"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(
        '{\n  // compress early\n  "model": {"compressionThreshold": 0.3}\n}\n', "utf-8"
    )
    project = tmp_path / "proj"
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "settings.json").write_text(
        json.dumps({"model": {"compressionThreshold": 0.6}}), "utf-8"
    )
    environ = {"GEMINI_CLI_HOME": str(home)}
    found = read_compaction_settings("gemini_cli", project=project, env=environ)
    assert found["model.compressionThreshold"].value == 0.6  # folder trust off: all trusted
    (home / ".gemini" / "settings.json").write_text(
        '{\n  // compress early\n  "model": {"compressionThreshold": 0.3},\n'
        '  "security": {"folderTrust": {"enabled": true}}\n}\n',
        "utf-8",
    )
    found = read_compaction_settings("gemini_cli", project=project, env=environ)
    assert found["model.compressionThreshold"].value == 0.3  # folder trust on, not trusted
    assert (
        read_compaction_settings(
            "gemini_cli", project=project, env=environ | {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
        )["model.compressionThreshold"].value
        == 0.6
    )
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(project): "TRUST_FOLDER"}), "utf-8"
    )
    found = read_compaction_settings("gemini_cli", project=project, env=environ)
    assert found["model.compressionThreshold"] == HostSetting(
        0.6, str(project / ".gemini" / "settings.json")
    )


def test_gemini_system_settings_beat_the_users(tmp_path: Path) -> None:
    system = tmp_path / "system.json"
    system.write_text(json.dumps({"model": {"compressionThreshold": 0.9}}), "utf-8")
    home = tmp_path / "gh"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({"model": {"compressionThreshold": 0.3}}), "utf-8"
    )
    found = read_compaction_settings(
        "gemini_cli",
        project=None,
        env={"GEMINI_CLI_HOME": str(home), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(system)},
    )
    assert found["model.compressionThreshold"] == HostSetting(0.9, str(system))


def test_codex_reads_its_limit_from_config_toml_under_codex_home(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        'model = "gpt-5"\nmodel_auto_compact_token_limit = 180000\n', "utf-8"
    )
    found = read_compaction_settings("codex_cli", project=None, env={"CODEX_HOME": str(tmp_path)})
    assert found["model_auto_compact_token_limit"] == HostSetting(
        180_000, str(tmp_path / "config.toml")
    )
    (tmp_path / "config.toml").write_text("model = [broken", "utf-8")
    assert (
        read_compaction_settings("codex_cli", project=None, env={"CODEX_HOME": str(tmp_path)}) == {}
    )


# --- Cursor ------------------------------------------------------------------------------


def test_cursors_usable_window_is_its_whole_window_with_the_reason() -> None:
    usable = usable_window("cursor", 272_000)
    assert usable.tokens == 272_000
    assert "Cursor summarises" in usable.rule
    assert "no earlier point is documented" in usable.rule
    assert read_compaction_settings("cursor", project=None) == {}
