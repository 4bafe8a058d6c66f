"""The shipped presets and their loader (docs/design.md §5.4)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import driftguard.presets as presets_module
from driftguard.errors import ConfigError, UnknownNameError
from driftguard.model import FACTOR_NAMES
from driftguard.presets import PRESET_NAMES, Preset, load_preset

# docs/design.md §5.4, in the order saturation / repetition / length collapse / goal distance /
# uncertainty / confidence drift. The seed's coding weights are the preset "seed"; the other
# presets keep these emphases on the calibrated scales (benchmarks/VALIDITY.md §3).
DESIGN_WEIGHTS: dict[str, tuple[float, ...]] = {
    "coding": (0.37, 0.37, 0.15, 0.08, 0.02, 0.01),
    "research": (0.25, 0.25, 0.10, 0.35, 0.03, 0.02),
    "brainstorm": (0.45, 0.20, 0.22, 0.10, 0.02, 0.01),
    "strict": (1 / 6,) * 6,
}
SHIPPED = ("brainstorm", "coding", "research", "seed", "strict")

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


def test_the_four_design_presets_and_seed_ship_and_their_names_are_sorted() -> None:
    assert PRESET_NAMES == SHIPPED


def test_preset_names_are_discovered_from_the_packaged_toml_files() -> None:
    package_dir = Path(presets_module.__file__).parent
    assert tuple(sorted(p.stem for p in package_dir.glob("*.toml"))) == PRESET_NAMES


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_shipped_preset_has_exactly_the_six_factor_names_in_order(name: str) -> None:
    assert tuple(load_preset(name).weights) == FACTOR_NAMES


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_shipped_preset_weights_sum_to_one(name: str) -> None:
    assert abs(sum(load_preset(name).weights.values()) - 1) <= 1e-9


def test_the_seed_preset_is_the_design_coding_preset_on_the_seed_scoring() -> None:
    preset = load_preset("seed")
    assert preset.scoring == "seed"
    assert dict(preset.weights) == dict(zip(FACTOR_NAMES, DESIGN_WEIGHTS["coding"], strict=True))


@pytest.mark.parametrize("name", sorted(DESIGN_WEIGHTS))
def test_the_design_presets_use_the_calibrated_scoring(name: str) -> None:
    assert load_preset(name).scoring == "calibrated"


def test_coding_weighs_every_factor_it_keeps_the_same() -> None:
    weights = load_preset("coding").weights
    kept = {w for w in weights.values() if w > 0}
    assert len(kept) == 1
    assert weights["length_collapse"] == weights["uncertainty"] == 0.0


@pytest.mark.parametrize("name", ["research", "brainstorm"])
def test_research_and_brainstorm_keep_the_design_emphasis_among_the_kept_factors(
    name: str,
) -> None:
    coding = load_preset("coding").weights
    weights = load_preset(name).weights
    design = dict(zip(FACTOR_NAMES, DESIGN_WEIGHTS[name], strict=True))
    kept = [factor for factor in FACTOR_NAMES if coding[factor] > 0]
    assert all(weights[f] == 0.0 for f in FACTOR_NAMES if f not in kept)
    heaviest = max(kept, key=lambda f: design[f])
    assert max(kept, key=lambda f: weights[f]) == heaviest
    for factor in kept:
        ratio = weights[factor] / weights[heaviest]
        assert ratio == pytest.approx(design[factor] / design[heaviest], abs=2e-3)


def test_strict_weighs_all_six_factors_the_same() -> None:
    assert set(load_preset("strict").weights.values()) == {1 / 6}


def test_the_shipped_presets_are_the_design_presets_and_seed() -> None:
    assert set(PRESET_NAMES) == {*DESIGN_WEIGHTS, "seed"}


def test_a_preset_file_without_scoring_uses_the_calibrated_one(preset_dir: Path) -> None:
    (preset_dir / "mine.toml").write_text('description = "Mine."\n' + VALID_WEIGHTS, "utf-8")
    assert load_preset("mine").scoring == "calibrated"


def test_a_preset_naming_an_unknown_scoring_is_a_config_error(preset_dir: Path) -> None:
    (preset_dir / "mine.toml").write_text(
        'description = "Mine."\nscoring = "v3"\n' + VALID_WEIGHTS, "utf-8"
    )
    with pytest.raises(ConfigError, match=r"scoring: must be one of seed, calibrated"):
        load_preset("mine")


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
    assert load_preset("coding").weights["repetition"] == 0.25


def test_an_unknown_preset_name_raises_and_lists_the_valid_names() -> None:
    with pytest.raises(UnknownNameError) as caught:
        load_preset("fast")
    assert (
        str(caught.value)
        == "unknown preset 'fast' (valid: brainstorm, coding, research, seed, strict)"
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
        name="even",
        description="Even.",
        scoring="calibrated",
        weights=dict.fromkeys(FACTOR_NAMES, 1.0),
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
