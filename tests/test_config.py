"""Config files ``~/.driftclirc`` and ``<project>/.driftcli`` (docs/design.md §2, §5.4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from driftguard.config import Config, load_config
from driftguard.errors import ConfigError, UnknownNameError
from driftguard.model import FACTOR_NAMES
from driftguard.presets import load_preset

CODING = dict(load_preset("coding").weights)
FACTORS = ", ".join(FACTOR_NAMES)


@pytest.fixture
def global_rc(isolated_home: Path) -> Path:
    """Where the global config lives in this test (``$HOME/.driftclirc``); not created."""
    return isolated_home / ".driftclirc"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    path = tmp_path / "proj"
    path.mkdir()
    return path


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


# --- defaults and precedence -----------------------------------------------------------


def test_without_any_config_file_the_coding_preset_and_the_defaults_apply(project: Path) -> None:
    assert load_config(project) == Config(
        preset="coding",
        weights=CODING,
        scoring="calibrated",
        warn_threshold=61,
        history_enabled=True,
        history_retention_days=30,
        sources=(),
        warnings=(),
    )


def test_the_default_warn_threshold_is_the_drifting_line_and_the_seed_keeps_60(
    project: Path,
) -> None:
    assert load_config(project).warn_threshold == 61
    assert load_config(project, preset="seed").warn_threshold == 60
    assert load_config(project, preset="seed").scoring == "seed"


def test_a_configured_warn_threshold_beats_the_scorings_default(project: Path) -> None:
    write_json(project / ".driftcli", {"warnThreshold": 45})
    assert load_config(project, preset="seed").warn_threshold == 45
    assert load_config(project).warn_threshold == 45


def test_context_window_comes_from_the_project_before_the_global_file(
    global_rc: Path, project: Path
) -> None:
    write_json(global_rc, {"contextWindow": 128_000})
    assert load_config(project).context_window == 128_000
    assert load_config(project).context_window_source == str(global_rc)
    path = write_json(project / ".driftcli", {"contextWindow": 32_000})
    assert load_config(project).context_window == 32_000
    assert load_config(project).context_window_source == str(path)


@pytest.mark.parametrize("value", ["128000", 0, -5, 1.5e5, True, 100_000_001])
def test_a_context_window_that_is_not_a_token_count_is_an_error(
    project: Path, value: object
) -> None:
    path = write_json(project / ".driftcli", {"contextWindow": value})
    with pytest.raises(ConfigError, match=r"contextWindow: must be an integer from 1 to") as err:
        load_config(project)
    assert str(err.value).startswith(str(path))


def test_the_global_preset_beats_the_coding_default(global_rc: Path, project: Path) -> None:
    write_json(global_rc, {"preset": "research"})
    config = load_config(project)
    assert config.preset == "research"
    assert config.weights == load_preset("research").weights


def test_the_project_preset_beats_the_global_preset(global_rc: Path, project: Path) -> None:
    write_json(global_rc, {"preset": "research"})
    write_json(project / ".driftcli", {"preset": "brainstorm"})
    config = load_config(project)
    assert config.preset == "brainstorm"
    assert config.weights == load_preset("brainstorm").weights


def test_the_preset_flag_beats_the_project_and_the_global_preset(
    global_rc: Path, project: Path
) -> None:
    write_json(global_rc, {"preset": "research"})
    write_json(project / ".driftcli", {"preset": "brainstorm"})
    config = load_config(project, preset="strict")
    assert config.preset == "strict"
    assert config.weights == load_preset("strict").weights


def test_without_a_project_only_the_global_file_is_read(global_rc: Path, project: Path) -> None:
    write_json(global_rc, {"warnThreshold": 70})
    write_json(project / ".driftcli", {"warnThreshold": 40})
    config = load_config(None)
    assert config.warn_threshold == 70
    assert config.sources == (str(global_rc),)


def test_project_settings_beat_global_ones_setting_by_setting(
    global_rc: Path, project: Path
) -> None:
    write_json(global_rc, {"warnThreshold": 70, "history": {"enabled": False, "retentionDays": 90}})
    write_json(project / ".driftcli", {"warnThreshold": 50, "history": {"retentionDays": 7}})
    config = load_config(project)
    assert config.warn_threshold == 50
    assert config.history_retention_days == 7
    assert config.history_enabled is False  # only the global file sets it


def test_weight_overrides_merge_global_then_project_then_command_line(
    global_rc: Path, project: Path
) -> None:
    write_json(global_rc, {"weights": {"repetition": 0.5, "uncertainty": 0.4}})
    write_json(project / ".driftcli", {"weights": {"uncertainty": 0.9, "goal_distance": 0}})
    config = load_config(project, weight_overrides={"confidence_drift": 0.3})
    assert dict(config.weights) == {
        "context_saturation": CODING["context_saturation"],  # coding
        "repetition": 0.5,  # global
        "length_collapse": CODING["length_collapse"],  # coding
        "goal_distance": 0.0,  # project
        "uncertainty": 0.9,  # project beats global
        "confidence_drift": 0.3,  # command line
    }


def test_command_line_weights_beat_the_project_weights(project: Path) -> None:
    write_json(project / ".driftcli", {"weights": {"repetition": 0.9}})
    config = load_config(project, weight_overrides={"repetition": 0.2})
    assert config.weights["repetition"] == 0.2


def test_global_weights_apply_on_top_of_the_preset_the_project_chose(
    global_rc: Path, project: Path
) -> None:
    write_json(global_rc, {"weights": {"repetition": 0.6}})
    write_json(project / ".driftcli", {"preset": "research"})
    config = load_config(project)
    assert dict(config.weights) == {**load_preset("research").weights, "repetition": 0.6}


def test_weights_keep_the_factor_order_and_are_not_normalised(project: Path) -> None:
    write_json(project / ".driftcli", {"weights": {"confidence_drift": 2, "repetition": 3}})
    config = load_config(project)
    assert tuple(config.weights) == FACTOR_NAMES
    assert config.weights["repetition"] == 3.0
    assert sum(config.weights.values()) > 1


def test_the_config_weights_cannot_be_changed(project: Path) -> None:
    config = load_config(project)
    with pytest.raises(TypeError):
        config.weights["repetition"] = 0.0  # type: ignore[index]


def test_sources_name_the_files_read_global_first(global_rc: Path, project: Path) -> None:
    write_json(global_rc, {})
    write_json(project / ".driftcli", {})
    assert load_config(project).sources == (str(global_rc), str(project / ".driftcli"))


def test_the_global_file_is_found_through_home_at_call_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    write_json(first / ".driftclirc", {"warnThreshold": 11})
    write_json(second / ".driftclirc", {"warnThreshold": 22})
    monkeypatch.setenv("HOME", str(first))
    assert load_config(None).warn_threshold == 11
    monkeypatch.setenv("HOME", str(second))
    assert load_config(None).warn_threshold == 22


def test_driftguard_home_does_not_move_the_global_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    write_json(state / ".driftclirc", {"warnThreshold": 5})
    monkeypatch.setenv("DRIFTGUARD_HOME", str(state))
    assert load_config(None) == load_config(None, preset="coding")
    assert load_config(None).warn_threshold == 61


def test_a_driftcli_directory_in_the_project_is_not_a_config(
    isolated_home: Path, global_rc: Path
) -> None:
    # the project is $HOME, so its .driftcli is driftguard's state folder (docs/design.md §2)
    (isolated_home / ".driftcli" / "history").mkdir(parents=True)
    write_json(global_rc, {"warnThreshold": 75})
    config = load_config(isolated_home)
    assert config.warn_threshold == 75
    assert config.sources == (str(global_rc),)


def test_a_project_directory_that_does_not_exist_has_no_config(tmp_path: Path) -> None:
    assert load_config(tmp_path / "gone").sources == ()


def test_a_project_path_that_is_a_file_has_no_config(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("text", encoding="utf-8")
    assert load_config(not_a_dir).sources == ()


@pytest.mark.parametrize(
    "content",
    [
        {"history": {"enabled": False, "retentionDays": 3}},
        {"history.enabled": False, "history.retentionDays": 3},
        {"history": {"enabled": False}, "history.retentionDays": 3},
    ],
    ids=["nested", "dotted", "mixed"],
)
def test_history_settings_may_be_nested_or_dotted(project: Path, content: object) -> None:
    write_json(project / ".driftcli", content)
    config = load_config(project)
    assert config.history_enabled is False
    assert config.history_retention_days == 3
    assert config.warnings == ()


def test_a_leading_byte_order_mark_is_tolerated(project: Path) -> None:
    (project / ".driftcli").write_bytes(b"\xef\xbb\xbf" + b'{"warnThreshold": 42}')
    assert load_config(project).warn_threshold == 42


# --- warnings -----------------------------------------------------------------------------


def test_an_unknown_top_level_key_is_a_warning_not_an_error(global_rc: Path, project: Path) -> None:
    write_json(global_rc, {"foo": 1, "warnThreshold": 70})
    config = load_config(project)
    assert config.warn_threshold == 70
    assert config.warnings == (f"{global_rc}: unknown key 'foo' ignored",)


def test_a_misspelt_key_warning_suggests_the_known_key(project: Path) -> None:
    path = write_json(project / ".driftcli", {"warnTreshold": 10})
    config = load_config(project)
    assert config.warn_threshold == 61
    assert config.warnings == (
        f"{path}: unknown key 'warnTreshold' ignored (did you mean 'warnThreshold'?)",
    )


def test_unknown_keys_inside_history_are_warnings(project: Path) -> None:
    path = write_json(
        project / ".driftcli", {"history": {"enabled": True, "x": 1, "retentiondays": 9}}
    )
    assert load_config(project).warnings == (
        f"{path}: unknown key 'history.x' ignored",
        f"{path}: unknown key 'history.retentiondays' ignored "
        "(did you mean 'history.retentionDays'?)",
    )


def test_warnings_come_from_both_files_global_first(global_rc: Path, project: Path) -> None:
    write_json(global_rc, {"a": 1})
    write_json(project / ".driftcli", {"b": 2})
    assert load_config(project).warnings == (
        f"{global_rc}: unknown key 'a' ignored",
        f"{project / '.driftcli'}: unknown key 'b' ignored",
    )


def test_session_folders_of_both_files_count_global_first_relative_to_each_file(
    global_rc: Path, project: Path, isolated_home: Path
) -> None:
    write_json(global_rc, {"sessionFolders": ["~/transcripts", "/srv/sessions"]})
    write_json(project / ".driftcli", {"sessionFolders": ["logs/sessions"]})
    assert load_config(project).session_folders == (
        isolated_home / "transcripts",
        Path("/srv/sessions"),
        project / "logs" / "sessions",
    )
    assert load_config(project).warnings == ()


def test_without_session_folders_there_are_none(project: Path) -> None:
    assert load_config(project).session_folders == ()


# --- errors -------------------------------------------------------------------------------

ALL_ZERO = dict.fromkeys(FACTOR_NAMES, 0)
BAD_VALUES = [
    ('{"weights": {"repetiton": 1}}', f"weights.repetiton: unknown factor (valid: {FACTORS})"),
    ('{"weights": {"repetition": -0.5}}', "weights.repetition: must not be negative, got -0.5"),
    ('{"weights": {"repetition": "high"}}', 'weights.repetition: must be a number, got "high"'),
    ('{"weights": {"repetition": true}}', "weights.repetition: must be a number, got true"),
    ('{"weights": {"repetition": null}}', "weights.repetition: must be a number, got null"),
    ('{"weights": {"repetition": [1]}}', "weights.repetition: must be a number, got an array"),
    ('{"weights": {"repetition": NaN}}', "weights.repetition: must be a finite number, got NaN"),
    (
        '{"weights": {"repetition": -Infinity}}',
        "weights.repetition: must be a finite number, got -Infinity",
    ),
    # Python's json reads 1e400 as float('inf')
    (
        '{"weights": {"repetition": 1e400}}',
        "weights.repetition: must be a finite number, got Infinity",
    ),
    (
        '{"weights": {"repetition": 1' + "0" * 400 + "}}",
        "weights.repetition: must be a finite number, got an integer too large",
    ),
    ('{"weights": [0.5]}', "weights: must be an object of factor weights, got an array"),
    (
        json.dumps({"weights": ALL_ZERO}),
        "weights: the weights sum to 0; at least one factor needs a positive weight",
    ),
    (
        json.dumps({"weights": dict.fromkeys(FACTOR_NAMES, 1e308)}),
        "weights: the weights are too large to add up",
    ),
    ('{"warnThreshold": 101}', "warnThreshold: must be an integer from 0 to 100, got 101"),
    ('{"warnThreshold": -1}', "warnThreshold: must be an integer from 0 to 100, got -1"),
    ('{"warnThreshold": 60.0}', "warnThreshold: must be an integer from 0 to 100, got 60.0"),
    ('{"warnThreshold": "60"}', 'warnThreshold: must be an integer from 0 to 100, got "60"'),
    ('{"warnThreshold": true}', "warnThreshold: must be an integer from 0 to 100, got true"),
    (
        '{"history": {"retentionDays": 0}}',
        "history.retentionDays: must be a positive integer (days), got 0",
    ),
    (
        '{"history.retentionDays": 1.5}',
        "history.retentionDays: must be a positive integer (days), got 1.5",
    ),
    (
        '{"history": {"retentionDays": "30"}}',
        'history.retentionDays: must be a positive integer (days), got "30"',
    ),
    (
        '{"history": {"retentionDays": false}}',
        "history.retentionDays: must be a positive integer (days), got false",
    ),
    ('{"history": {"enabled": "yes"}}', 'history.enabled: must be true or false, got "yes"'),
    ('{"history.enabled": 1}', "history.enabled: must be true or false, got 1"),
    (
        '{"history": true}',
        'history: must be an object such as {"enabled": true, "retentionDays": 30}, got true',
    ),
    (
        '{"history": {"enabled": true}, "history.enabled": false}',
        "history.enabled: given twice, as 'history.enabled' and inside 'history'",
    ),
    ('{"preset": 3}', "preset: must be a string naming a preset, got 3"),
    ('{"preset": null}', "preset: must be a string naming a preset, got null"),
    (
        '{"preset": "fast"}',
        "preset: unknown preset 'fast' (valid: brainstorm, coding, research, seed, strict)",
    ),
    ('{"warnThreshold": 50, "warnThreshold": 70}', "warnThreshold: key given twice in one object"),
    ('{"sessionFolders": "~/t"}', 'sessionFolders: must be an array of folder paths, got "~/t"'),
    (
        '{"sessionFolders": ["~/t", 3]}',
        "sessionFolders[1]: must be a folder path (a non-empty string), got 3",
    ),
    (
        '{"sessionFolders": [" "]}',
        'sessionFolders[0]: must be a folder path (a non-empty string), got " "',
    ),
]


@pytest.mark.parametrize(("text", "problem"), BAD_VALUES)
def test_a_bad_project_value_is_an_error_naming_the_file_and_the_key(
    project: Path, text: str, problem: str
) -> None:
    path = project / ".driftcli"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(project)
    assert str(caught.value) == f"{path}: {problem}"


@pytest.mark.parametrize(("text", "problem"), BAD_VALUES)
def test_a_bad_global_value_is_an_error_naming_the_global_file(
    global_rc: Path, text: str, problem: str
) -> None:
    global_rc.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(None)
    assert str(caught.value) == f"{global_rc}: {problem}"


def test_a_bad_value_is_an_error_even_when_a_higher_level_overrides_it(
    global_rc: Path, project: Path
) -> None:
    write_json(global_rc, {"preset": "fast"})
    write_json(project / ".driftcli", {"preset": "coding"})
    with pytest.raises(ConfigError, match=r"\.driftclirc: preset: unknown preset 'fast'"):
        load_config(project, preset="strict")


def test_weights_summing_to_zero_name_the_last_file_that_set_weights(
    global_rc: Path, project: Path
) -> None:
    write_json(global_rc, {"weights": dict.fromkeys(FACTOR_NAMES[:3], 0)})
    write_json(project / ".driftcli", {"weights": dict.fromkeys(FACTOR_NAMES[3:], 0)})
    with pytest.raises(ConfigError) as caught:
        load_config(project)
    assert str(caught.value).startswith(f"{project / '.driftcli'}: weights: the weights sum to 0")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'{"preset": "coding",}', "invalid JSON at line 1 column 21: "),
        (b'{\n  "preset": "coding"\n  "warnThreshold": 3\n}', "invalid JSON at line 3 column 3: "),
        (b"", "invalid JSON at line 1 column 1: "),
        (b"[1, 2]", "must hold a JSON object at the top level, got an array"),
        (b'"coding"', 'must hold a JSON object at the top level, got "coding"'),
        # 0xE9 (latin-1 "é") follows the 15 ASCII bytes of `{"preset": "caf`
        (b'{"preset": "caf\xe9"}', "not UTF-8 text (bad byte at offset 15)"),
    ],
    ids=["trailing-comma", "missing-comma", "empty", "array", "string", "latin-1"],
)
def test_an_unparseable_file_is_refused_and_left_byte_for_byte_unchanged(
    global_rc: Path, project: Path, content: bytes, problem: str
) -> None:
    for path, where in ((global_rc, None), (project / ".driftcli", project)):
        path.write_bytes(content)
        with pytest.raises(ConfigError) as caught:
            load_config(where)
        assert str(caught.value).startswith(f"{path}: {problem}")
        assert path.read_bytes() == content
        path.unlink()
    assert sorted(p.name for p in project.iterdir()) == []


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"warnThreshold": ' + "1" * 5000 + "}", "cannot read the JSON: Exceeds the limit"),
        ("[" * 100_000, "cannot read the JSON: nested too deeply"),
    ],
    ids=["huge-integer", "deep-nesting"],
)
def test_json_that_python_cannot_decode_is_a_config_error(
    project: Path, content: str, problem: str
) -> None:
    path = project / ".driftcli"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(project)
    assert str(caught.value).startswith(f"{path}: {problem}")


def test_reading_a_valid_config_never_writes_it(global_rc: Path, project: Path) -> None:
    global_text = '{ "preset": "research",  "unknown": [1, 2] }\n'
    project_text = '{"weights": {"repetition": 0.5}}'
    global_rc.write_text(global_text, encoding="utf-8")
    (project / ".driftcli").write_text(project_text, encoding="utf-8")
    load_config(project)
    assert global_rc.read_text(encoding="utf-8") == global_text
    assert (project / ".driftcli").read_text(encoding="utf-8") == project_text
    assert [p.name for p in project.iterdir()] == [".driftcli"]


def test_a_global_config_that_is_a_directory_is_an_unreadable_file(global_rc: Path) -> None:
    global_rc.mkdir()
    with pytest.raises(ConfigError) as caught:
        load_config(None)
    assert str(caught.value) == f"{global_rc}: cannot read the file: Is a directory"


def test_an_unknown_preset_flag_lists_the_valid_names(project: Path) -> None:
    with pytest.raises(UnknownNameError) as caught:
        load_config(project, preset="fast")
    assert (
        str(caught.value)
        == "unknown preset 'fast' (valid: brainstorm, coding, research, seed, strict)"
    )


def test_an_unknown_factor_on_the_command_line_lists_the_valid_names(project: Path) -> None:
    with pytest.raises(UnknownNameError) as caught:
        load_config(project, weight_overrides={"drift": 1.0})
    assert str(caught.value) == f"unknown factor 'drift' (valid: {FACTORS})"


def test_a_negative_command_line_weight_is_an_error_naming_the_command_line(
    project: Path,
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(project, weight_overrides={"repetition": -1.0})
    assert str(caught.value) == "command line: weights.repetition: must not be negative, got -1.0"


def test_command_line_weights_summing_to_zero_name_the_command_line(project: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(project, weight_overrides=dict.fromkeys(FACTOR_NAMES, 0.0))
    assert str(caught.value).startswith("command line: weights: the weights sum to 0")


# --- properties ---------------------------------------------------------------------------

weight_values = st.one_of(
    st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_infinity=False),
    st.integers(min_value=0, max_value=10**9),
)


@given(weights=st.dictionaries(st.sampled_from(FACTOR_NAMES), weight_values))
def test_any_valid_weights_round_trip_through_a_project_file(
    tmp_path_factory: pytest.TempPathFactory, weights: dict[str, float]
) -> None:
    expected = {**CODING, **{factor: float(value) for factor, value in weights.items()}}
    assume(sum(expected.values()) > 0)
    project = tmp_path_factory.mktemp("proj")
    write_json(project / ".driftcli", {"weights": weights})
    config = load_config(project)
    assert dict(config.weights) == expected
    assert tuple(config.weights) == FACTOR_NAMES


@given(
    factor=st.sampled_from(FACTOR_NAMES),
    value=st.floats(max_value=0, exclude_max=True, allow_nan=False, allow_infinity=False),
)
def test_any_negative_weight_is_refused_naming_the_file_and_the_factor(
    tmp_path_factory: pytest.TempPathFactory, factor: str, value: float
) -> None:
    project = tmp_path_factory.mktemp("proj")
    path = write_json(project / ".driftcli", {"weights": {factor: value}})
    with pytest.raises(ConfigError) as caught:
        load_config(project)
    assert str(caught.value).startswith(f"{path}: weights.{factor}: must not be negative")


def test_a_projects_session_folders_count_only_inside_the_project(
    global_rc: Path, project: Path, tmp_path: Path
) -> None:
    # a cloned repository's .driftcli must not widen what the model may read over MCP
    inside = project / "transcripts"
    inside.mkdir()
    path = write_json(project / ".driftcli", {"sessionFolders": ["/", "transcripts"]})
    config = load_config(project)
    assert config.session_folders == (inside,)
    assert config.warnings == (
        f"{path}: sessionFolders: / is outside the project, ignored (list folders outside it "
        "in ~/.driftclirc)",
    )
    write_json(global_rc, {"sessionFolders": [str(tmp_path / "elsewhere")]})
    assert load_config(project).session_folders == (tmp_path / "elsewhere", inside)


def test_calibration_is_auto_off_or_a_file_relative_to_the_config(tmp_path: Path) -> None:
    """``calibration`` names the user's calibration; project beats global."""
    project = tmp_path / "proj"
    project.mkdir()
    assert load_config(project).calibration == "auto"
    (project / ".driftcli").write_text('{"calibration": "mine.json"}', encoding="utf-8")
    assert load_config(project).calibration == str(project / "mine.json")
    (project / ".driftcli").write_text('{"calibration": "off"}', encoding="utf-8")
    assert load_config(project).calibration == "off"
    (project / ".driftcli").write_text('{"calibration": 3}', encoding="utf-8")
    with pytest.raises(ConfigError, match='calibration: must be "auto", "off" or a calibration'):
        load_config(project)
