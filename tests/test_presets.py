"""The shipped presets and their loader (design.md §5.4)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import driftguard.presets as presets_module
from driftguard.errors import ConfigError, UnknownNameError
from driftguard.model import FACTOR_NAMES
from driftguard.presets import PRESET_NAMES, Preset, load_preset

# design.md §5.4, in the order saturation / repetition / length collapse / goal distance /
# uncertainty / confidence drift.
DESIGN_WEIGHTS: dict[str, tuple[float, ...]] = {
    "coding": (0.37, 0.37, 0.15, 0.08, 0.02, 0.01),
    "research": (0.25, 0.25, 0.10, 0.35, 0.03, 0.02),
    "brainstorm": (0.45, 0.20, 0.22, 0.10, 0.02, 0.01),
    "strict": (1 / 6,) * 6,
}

VALID_WEIGHTS = """
[weights]
context_saturation = 0.5
repetition = 0.1
length_collapse = 0.1
goal_distance = 0.1
uncertainty = 0.1
confidence_drift = 0.1
"""


def test_factor_names_are_the_six_json_names_in_design_order() -> None:
    assert FACTOR_NAMES == (
        "context_saturation",
        "repetition",
        "length_collapse",
        "goal_distance",
        "uncertainty",
        "confidence_drift",
    )


def test_the_four_design_presets_ship_and_their_names_are_sorted() -> None:
    assert PRESET_NAMES == ("brainstorm", "coding", "research", "strict")


def test_preset_names_are_discovered_from_the_packaged_toml_files() -> None:
    package_dir = Path(presets_module.__file__).parent
    assert tuple(sorted(p.stem for p in package_dir.glob("*.toml"))) == PRESET_NAMES


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_shipped_preset_has_exactly_the_six_factor_names_in_order(name: str) -> None:
    assert tuple(load_preset(name).weights) == FACTOR_NAMES


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_shipped_preset_weights_sum_to_one(name: str) -> None:
    assert abs(sum(load_preset(name).weights.values()) - 1) <= 1e-9


@pytest.mark.parametrize("name", sorted(DESIGN_WEIGHTS))
def test_each_preset_weights_equal_the_design_values(name: str) -> None:
    preset = load_preset(name)
    assert preset.name == name
    assert dict(preset.weights) == dict(zip(FACTOR_NAMES, DESIGN_WEIGHTS[name], strict=True))


def test_the_shipped_presets_are_exactly_the_design_presets() -> None:
    assert set(PRESET_NAMES) == set(DESIGN_WEIGHTS)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_shipped_preset_has_a_one_line_description(name: str) -> None:
    description = load_preset(name).description
    assert description.strip()
    assert "\n" not in description


def test_a_loaded_preset_cannot_be_changed() -> None:
    preset = load_preset("coding")
    with pytest.raises(dataclasses.FrozenInstanceError):
        preset.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        preset.weights["repetition"] = 1.0  # type: ignore[index]
    assert load_preset("coding").weights["repetition"] == 0.37


def test_an_unknown_preset_name_raises_and_lists_the_valid_names() -> None:
    with pytest.raises(UnknownNameError) as caught:
        load_preset("fast")
    assert (
        str(caught.value) == "unknown preset 'fast' (valid: brainstorm, coding, research, strict)"
    )


@pytest.mark.parametrize("name", ["Coding", "coding.toml", "../presets/coding", "", "__init__"])
def test_names_that_are_not_exact_preset_names_are_unknown(name: str) -> None:
    with pytest.raises(UnknownNameError):
        load_preset(name)


@pytest.fixture
def preset_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make the loader read presets from an empty temporary folder instead of the package."""
    monkeypatch.setattr(presets_module, "_preset_root", lambda: tmp_path)
    return tmp_path


def test_only_toml_files_count_as_presets(preset_dir: Path) -> None:
    (preset_dir / "notes.txt").write_text("not a preset", encoding="utf-8")
    (preset_dir / "folder.toml").mkdir()
    (preset_dir / "mine.toml").write_text('description = "Mine."\n' + VALID_WEIGHTS, "utf-8")
    with pytest.raises(UnknownNameError) as caught:
        load_preset("notes")
    assert str(caught.value) == "unknown preset 'notes' (valid: mine)"
    with pytest.raises(UnknownNameError):
        load_preset("folder")


def test_a_well_formed_preset_file_loads_with_integer_weights_as_floats(preset_dir: Path) -> None:
    weights = "\n".join(f"{name} = 1" for name in FACTOR_NAMES)
    (preset_dir / "even.toml").write_text(
        f'description = "Even."\n[weights]\n{weights}\n', encoding="utf-8"
    )
    preset = load_preset("even")
    assert preset == Preset(
        name="even", description="Even.", weights=dict.fromkeys(FACTOR_NAMES, 1.0)
    )
    assert all(type(value) is float for value in preset.weights.values())


def _with(factor: str, value: str) -> str:
    """VALID_WEIGHTS with one factor's value replaced by ``value`` (TOML source)."""
    lines = [
        f"{factor} = {value}" if line.startswith(f"{factor} =") else line
        for line in VALID_WEIGHTS.splitlines()
    ]
    return "\n".join(lines) + "\n"


FACTORS = ", ".join(FACTOR_NAMES)
MALFORMED_PRESETS = [
    ('description = "x"\n[weights\n', "invalid TOML: "),
    ('color = "red"\ndescription = "x"\n' + VALID_WEIGHTS, "color: unknown key"),
    (VALID_WEIGHTS, "description: must be a non-empty string, got null"),
    ('description = "  "\n' + VALID_WEIGHTS, 'description: must be a non-empty string, got "  "'),
    ("description = 3\n" + VALID_WEIGHTS, "description: must be a non-empty string, got 3"),
    ('description = """one\ntwo"""\n' + VALID_WEIGHTS, "description: must be one line"),
    ('description = "x"\n', "weights: must be a table of the six factor weights, got null"),
    ('description = "x"\nweights = [1]\n', "weights: must be a table of the six factor weights"),
    (
        'description = "x"\n' + VALID_WEIGHTS + "repetiton = 0.1\n",
        f"weights.repetiton: unknown factor (valid: {FACTORS})",
    ),
    (
        'description = "x"\n' + VALID_WEIGHTS.replace("confidence_drift = 0.1\n", ""),
        "weights.confidence_drift: missing (a preset sets all six)",
    ),
    (
        'description = "x"\n' + _with("uncertainty", "-0.1"),
        "weights.uncertainty: must not be negative, got -0.1",
    ),
    (
        'description = "x"\n' + _with("repetition", "true"),
        "weights.repetition: must be a number, got true",
    ),
    (
        'description = "x"\n' + _with("repetition", '"high"'),
        'weights.repetition: must be a number, got "high"',
    ),
    (
        'description = "x"\n' + _with("repetition", "nan"),
        "weights.repetition: must be a finite number, got NaN",
    ),
    (
        'description = "x"\n' + _with("repetition", "inf"),
        "weights.repetition: must be a finite number, got Infinity",
    ),
    (
        'description = "x"\n[weights]\n' + "\n".join(f"{n} = 0" for n in FACTOR_NAMES) + "\n",
        "weights: all six weights are 0",
    ),
    (
        'description = "x"\n[weights]\n' + "\n".join(f"{n} = 1e308" for n in FACTOR_NAMES),
        "weights: the weights are too large to add up",
    ),
]


@pytest.mark.parametrize(("text", "problem"), MALFORMED_PRESETS)
def test_a_malformed_preset_file_is_a_config_error_naming_file_and_key(
    preset_dir: Path, text: str, problem: str
) -> None:
    path = preset_dir / "broken.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_preset("broken")
    assert str(caught.value).startswith(f"{path}: {problem}")


def test_a_preset_file_that_is_not_utf8_is_a_config_error(preset_dir: Path) -> None:
    path = preset_dir / "latin.toml"
    path.write_bytes(b'description = "caf\xe9"\n' + VALID_WEIGHTS.encode())
    with pytest.raises(ConfigError) as caught:
        load_preset("latin")
    # the byte 0xE9 follows the 18 ASCII bytes of `description = "caf`.
    assert str(caught.value) == f"{path}: not UTF-8 text (bad byte at offset 18)"
