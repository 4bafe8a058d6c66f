"""The config keys of the OpenTelemetry export: ``otel`` and ``otelIncludeProject``
(driftguard/config.py). Only the user's own ``~/.driftclirc`` can turn either on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftguard.config import load_config
from driftguard.errors import ConfigError


def _write(path: Path, value: object) -> None:
    path.write_text(json.dumps(value), encoding="utf-8")


def test_neither_key_set_leaves_the_decision_to_the_environment(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.otel is None
    assert config.otel_include_project is False
    assert config.warnings == ()


def test_the_global_config_turns_the_export_and_the_project_name_on(
    isolated_home: Path, tmp_path: Path
) -> None:
    _write(isolated_home / ".driftclirc", {"otel": True, "otelIncludeProject": True})
    config = load_config(tmp_path)
    assert (config.otel, config.otel_include_project) == (True, True)


def test_the_global_config_can_turn_the_export_off(isolated_home: Path) -> None:
    _write(isolated_home / ".driftclirc", {"otel": False})
    assert load_config(None).otel is False


def test_a_project_can_turn_both_off(isolated_home: Path, tmp_path: Path) -> None:
    _write(isolated_home / ".driftclirc", {"otel": True, "otelIncludeProject": True})
    _write(tmp_path / ".driftcli", {"otel": False, "otelIncludeProject": False})
    config = load_config(tmp_path)
    assert (config.otel, config.otel_include_project) == (False, False)
    assert config.warnings == ()


def test_a_project_cannot_turn_either_on_and_is_told_so(tmp_path: Path) -> None:
    _write(tmp_path / ".driftcli", {"otel": True, "otelIncludeProject": True})
    config = load_config(tmp_path)
    assert (config.otel, config.otel_include_project) == (None, False)
    assert len(config.warnings) == 2
    assert all("can only turn this off" in line for line in config.warnings)
    assert any("otelIncludeProject" in line for line in config.warnings)


def test_a_project_turning_it_on_keeps_the_global_setting(
    isolated_home: Path, tmp_path: Path
) -> None:
    _write(isolated_home / ".driftclirc", {"otel": False})
    _write(tmp_path / ".driftcli", {"otel": True})
    assert load_config(tmp_path).otel is False


@pytest.mark.parametrize("key", ["otel", "otelIncludeProject"])
@pytest.mark.parametrize("value", [1, "true", None, [True]])
def test_a_value_other_than_true_or_false_is_an_error_naming_file_and_key(
    isolated_home: Path, key: str, value: object
) -> None:
    _write(isolated_home / ".driftclirc", {key: value})
    with pytest.raises(ConfigError, match=rf"\.driftclirc: {key}: must be true or false"):
        load_config(None)


def test_a_misspelt_key_is_a_warning_with_a_suggestion(isolated_home: Path) -> None:
    _write(isolated_home / ".driftclirc", {"otelIncludeProjects": True})
    (warning,) = load_config(None).warnings
    assert "did you mean 'otelIncludeProject'?" in warning
