"""The shipped weight presets and their loader (docs/design.md §5.4).

A preset is one TOML file in this package, installed as package data
(``pyproject.toml``: ``"driftguard.presets" = ["*.toml"]``) and read through
:mod:`importlib.resources`, so it works from a source tree, an editable install or a wheel.
The file's stem is the preset's name::

    description = "One line: what the preset is for."
    scoring = "calibrated"    # optional: "calibrated" (the default) or "seed"

    [weights]                 # exactly the six JSON factor names, driftguard.model.FACTOR_NAMES
    context_saturation = 0.37
    repetition = 0.37
    length_collapse = 0.15
    goal_distance = 0.08
    uncertainty = 0.02
    confidence_drift = 0.01

Shipped presets: ``coding`` (the default), ``research``, ``brainstorm``, ``strict`` on the
calibrated scoring (``benchmarks/VALIDITY.md`` says how their weights were set), and
``seed``: docs/design.md §5.3–5.4 as first written, exactly. Their weights sum to 1 (a test checks
it). The loader itself asks less of a file: every weight a finite number ≥ 0 (integers
allowed, booleans not) and not all of them 0, since the scorer normalises over the active
factors anyway. Any other shape — invalid TOML, a key other than ``description``,
``scoring`` and ``weights``, a scoring other than those of
:data:`~driftguard.model.SCORINGS`, a missing or unknown factor, a missing,
empty or multi-line description — is a :class:`~driftguard.errors.ConfigError`.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from types import MappingProxyType
from typing import Any, cast

from driftguard._values import describe, parse_weight
from driftguard.errors import ConfigError, UnknownNameError
from driftguard.model import FACTOR_NAMES, SCORINGS, Scoring

__all__ = ["DEFAULT_SCORING", "PRESET_NAMES", "Preset", "load_preset"]

_SUFFIX = ".toml"
_KEYS = ("description", "scoring", "weights")
DEFAULT_SCORING: Scoring = "calibrated"
"""The scoring of a preset file that names none."""


@dataclass(frozen=True, slots=True)
class Preset:
    """One preset, as loaded from its TOML file.

    Attributes:
        name: the file's stem (``coding``), the name users pass to ``--preset`` or ``preset``.
        description: one line saying what the preset is for.
        scoring: which scoring the weights apply to: ``"calibrated"`` or ``"seed"``.
        weights: factor name → weight for each of the six factors, in
            :data:`~driftguard.model.FACTOR_NAMES` order; read-only; not normalised.
    """

    name: str
    description: str
    scoring: Scoring
    weights: Mapping[str, float]


def _preset_root() -> Traversable:
    """The folder holding the preset files (this package)."""
    return resources.files(__name__)


def _discover(root: Traversable) -> tuple[str, ...]:
    """The names of the ``*.toml`` files in ``root``, sorted."""
    return tuple(
        sorted(
            entry.name.removesuffix(_SUFFIX)
            for entry in root.iterdir()
            if entry.name.endswith(_SUFFIX) and entry.is_file()
        )
    )


PRESET_NAMES: tuple[str, ...] = _discover(_preset_root())
"""The shipped presets' names, sorted (discovered from the package's ``*.toml`` files)."""


def load_preset(name: str) -> Preset:
    """Load the shipped preset called ``name`` (docs/design.md §5.4).

    Raises:
        UnknownNameError: no preset has that name (names are exact, case-sensitive); the
            message lists the valid names.
        ConfigError: the preset file cannot be read or is malformed; the message names the
            file and the key.
    """
    root = _preset_root()
    names = _discover(root)
    if name not in names:
        raise UnknownNameError(f"unknown preset {name!r} (valid: {', '.join(names)})")
    resource = root.joinpath(name + _SUFFIX)
    source = str(resource)
    try:
        text = resource.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the preset: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text (bad byte at offset {exc.start})") from exc
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from exc
    return _preset_from_table(name, table, source)


def _preset_from_table(name: str, table: dict[str, Any], source: str) -> Preset:
    """Check a parsed preset file and build the :class:`Preset`.

    Raises:
        ConfigError: the first problem found, as ``<file>: <key>: <problem>``.
    """
    for key in table:
        if key not in _KEYS:
            raise ConfigError(f"{source}: {key}: unknown key (valid: {', '.join(_KEYS)})")

    description = table.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ConfigError(
            f"{source}: description: must be a non-empty string, got {describe(description)}"
        )
    if "\n" in description or "\r" in description:
        raise ConfigError(f"{source}: description: must be one line")

    scoring = table.get("scoring", DEFAULT_SCORING)
    if scoring not in SCORINGS:
        raise ConfigError(
            f"{source}: scoring: must be one of {', '.join(SCORINGS)}, got {describe(scoring)}"
        )

    raw_weights = table.get("weights")
    if not isinstance(raw_weights, dict):
        raise ConfigError(
            f"{source}: weights: must be a table of the six factor weights, "
            f"got {describe(raw_weights)}"
        )
    for factor in raw_weights:
        if factor not in FACTOR_NAMES:
            raise ConfigError(
                f"{source}: weights.{factor}: unknown factor (valid: {', '.join(FACTOR_NAMES)})"
            )
    weights: dict[str, float] = {}
    for factor in FACTOR_NAMES:
        if factor not in raw_weights:
            raise ConfigError(f"{source}: weights.{factor}: missing (a preset sets all six)")
        try:
            weights[factor] = parse_weight(raw_weights[factor])
        except ValueError as exc:
            raise ConfigError(f"{source}: weights.{factor}: {exc}") from exc
    total = sum(weights.values())
    if total <= 0:
        raise ConfigError(f"{source}: weights: all six weights are 0")
    if not math.isfinite(total):
        raise ConfigError(f"{source}: weights: the weights are too large to add up")
    return Preset(
        name=name,
        description=description,
        scoring=cast(Scoring, scoring),
        weights=MappingProxyType(weights),
    )
