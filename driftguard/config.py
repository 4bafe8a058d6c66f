"""Settings from the global ``~/.driftclirc`` and the project's ``.driftcli`` (docs/design.md §2,
§5.4).

Both files are optional JSON objects (UTF-8, a leading byte-order mark is tolerated) and
driftguard only ever reads them — never creates, fixes or rewrites one. The global file is
``~/.driftclirc`` with ``~`` taken from :meth:`Path.home` at call time; ``DRIFTGUARD_HOME``
does not move it (§2). The project file is ``<project>/.driftcli``; a ``.driftcli`` that is a
directory is driftguard's state folder (when the project is ``$HOME``), not a config, and is
skipped. A config file that does not exist is skipped too. Every key is optional::

    {
      "preset": "research",                        // a shipped preset (driftguard.presets)
      "weights": {"goal_distance": 0.5},           // per-factor overrides, finite numbers ≥ 0
      "warnThreshold": 70,                         // integer 0–100 (default 61; seed: 60)
      "contextWindow": 128000,                     // the model's window, tokens (1–100,000,000)
      "history": {"enabled": true, "retentionDays": 30},
      "sessionFolders": ["~/transcripts"],         // more folders MCP may read sessions from
      "otel": true,                                // send scores to OpenTelemetry (default: when
                                                   // OTEL_EXPORTER_OTLP_ENDPOINT is set)
      "otelIncludeProject": false,                 // name the project's folder in them
      "reinject": true,                            // hooks give a compaction's dropped rules back
      "calibration": "auto"                        // "auto", "off" or a calibration file
    }

``history`` may also be written with the flat dotted keys of docs/design.md §5.4,
``"history.enabled"`` and ``"history.retentionDays"``; one file may not give the same
setting both ways (that is an error, not a guess).

How the result is put together:

- ``preset``: the ``preset=`` argument (the command-line flag) > project > global > ``coding``.
- ``weights``: the chosen preset's six weights, then the global file's ``weights``, then the
  project's, then ``weight_overrides``, factor by factor. They are *not* normalised here: the
  scorer normalises over the factors that are active (§5.4).
- ``warnThreshold``, ``contextWindow``, ``history.enabled``, ``history.retentionDays``:
  project > global > default, each setting on its own (a project that sets only
  ``warnThreshold`` keeps the global ``history`` settings). ``contextWindow`` names the
  nominal window of a model driftguard cannot know (a proxy, a custom model); it beats the
  window the host reported and the one read from the file, and the usable window is derived
  from it by the host's rule (:mod:`driftguard.engine.window`).
- ``calibration``: project > global > ``"auto"``. ``"auto"``: the user's own
  calibration (``driftguard calibrate`` writes it to ``~/.driftcli/calibration.json``) once
  its host and model family has enough sessions; ``"off"``: the default scales always; any
  other string: that calibration file (``~`` expanded, a relative path taken relative to the
  folder of the file that names it).
- ``otel``, ``otelIncludeProject`` (:mod:`driftguard.telemetry`): the global file's; a
  project's ``.driftcli`` may only turn either off (a cloned repository cannot opt its user
  into sending telemetry, nor into naming the project in it); a ``true`` there is ignored
  with a warning.
- ``sessionFolders``: the global file's folders, then the project's (both count). Over MCP,
  a ``session`` argument naming a file must lie under the hosts' own session folders or
  under one of these (:mod:`driftguard.sessions.resolve`). ``~`` is expanded; a
  relative folder is taken relative to the folder of the file that names it.

Every value in every file found is checked, even one a higher level overrides. Errors are
:class:`~driftguard.errors.ConfigError` with the message ``<file>: <key>: <problem>``:

- a file that cannot be read, is not UTF-8, is not valid JSON (line and column given) or
  cannot be decoded (an integer of thousands of digits, nesting too deep), is not an object
  at the top level, or gives one key twice in an object;
- ``preset`` that is not a string or names no shipped preset (a ConfigError naming the file,
  not an UnknownNameError: the fix is in that file; the message still lists the valid names);
- ``weights`` that is not an object, an unknown factor name (valid names listed), a weight
  that is not a number (booleans are not numbers), not finite or negative;
- final weights that sum to 0 (or overflow); the message names the last file that set a
  weight;
- ``warnThreshold`` that is not an integer 0–100 (``60.0`` is refused: integers only);
- ``contextWindow`` that is not an integer from 1 to 100,000,000;
- ``history`` that is not an object, ``history.enabled`` that is not ``true``/``false``,
  ``history.retentionDays`` that is not a positive integer;
- ``sessionFolders`` that is not an array of non-empty strings (``sessionFolders[<i>]``
  names the bad entry);
- ``otel`` or ``otelIncludeProject`` that is not ``true``/``false``;
- ``calibration`` that is not a non-empty string.

Unknown keys (top level or inside ``history``) are not errors: each adds a line to
:attr:`Config.warnings` (``<file>: unknown key 'foo' ignored``, with a suggestion when the key
is close to a known one). The ``weight_overrides`` argument comes from the command line: an
unknown factor there is an :class:`~driftguard.errors.UnknownNameError`, a bad value a
ConfigError naming ``command line``.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from driftguard._fileio import is_within
from driftguard._values import describe, parse_weight
from driftguard.errors import ConfigError, DuplicateKeyError, UnknownNameError, from_os_error
from driftguard.model import FACTOR_NAMES, WARN_THRESHOLDS, Scoring
from driftguard.presets import PRESET_NAMES, load_preset

__all__ = [
    "DEFAULT_HISTORY_ENABLED",
    "DEFAULT_PRESET",
    "DEFAULT_RETENTION_DAYS",
    "DEFAULT_WARN_THRESHOLD",
    "GLOBAL_CONFIG_NAME",
    "PROJECT_CONFIG_NAME",
    "Config",
    "global_config_path",
    "load_config",
    "project_config_path",
]

GLOBAL_CONFIG_NAME = ".driftclirc"
"""The global config's file name, in the home directory (docs/design.md §2)."""
PROJECT_CONFIG_NAME = ".driftcli"
"""The project config's file name, in the project directory (docs/design.md §2)."""

DEFAULT_PRESET = "coding"
DEFAULT_WARN_THRESHOLD = WARN_THRESHOLDS["calibrated"]
"""The default ``warnThreshold`` of the default preset; ``seed`` keeps its 60."""
DEFAULT_HISTORY_ENABLED = True
DEFAULT_RETENTION_DAYS = 30
MAX_CONTEXT_WINDOW = 100_000_000
"""Largest ``contextWindow`` accepted (tokens): far above any model's window."""

_COMMAND_LINE = "command line"
"""How messages name the source of ``weight_overrides``."""

_TOP_KEYS = (
    "preset",
    "weights",
    "warnThreshold",
    "contextWindow",
    "history",
    "history.enabled",
    "history.retentionDays",
    "sessionFolders",
    "otel",
    "otelIncludeProject",
    "reinject",
    "calibration",
)
_HISTORY_KEYS = ("enabled", "retentionDays")

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Config:
    """The settings in force (docs/design.md §5.4), after every file and flag was applied.

    Attributes:
        preset: the name of the preset the weights start from.
        files_preset: the preset the config files (or the default) choose, a ``--preset``
            flag aside: a score with another preset is a try-out history does not keep.
        scoring: the scoring the preset names (``"calibrated"`` or ``"seed"``).
        weights: factor name → weight for each of the six factors
            (:data:`~driftguard.model.FACTOR_NAMES` order; read-only), the preset's weights
            after every override; not normalised (the scorer normalises over active factors).
        warn_threshold: the score (0–100) from which the handoff suggestion fires.
        context_window: the nominal context window (tokens) a config file names, or ``None``.
        context_window_source: the file that named it, or ``None``.
        history_enabled: whether scores are recorded in history (§7).
        history_retention_days: history files older than this many days are pruned (§7).
        sources: the config files read, global first (paths as strings); empty when none exist.
        warnings: one line per ignored unknown key, ``<file>: unknown key 'foo' ignored``.
        session_folders: the ``sessionFolders`` of the global file, then the project's, as
            absolute paths (``~`` expanded; symlinks not resolved).
        otel: ``otel`` as set (``None``: not set, the ``OTEL_*`` environment decides).
        otel_include_project: ``otelIncludeProject``: telemetry names the project's folder.
        reinject: ``reinject``: after a compaction, the hooks give the model back the rules,
            errors and files the compaction's summary dropped (default ``True``).
        calibration: ``"auto"``, ``"off"`` or the absolute path of a calibration file
            (:mod:`driftguard.engine.calibration`).
    """

    preset: str
    weights: Mapping[str, float]
    files_preset: str = DEFAULT_PRESET
    scoring: Scoring = "calibrated"
    warn_threshold: int = DEFAULT_WARN_THRESHOLD
    context_window: int | None = None
    context_window_source: str | None = None
    history_enabled: bool = DEFAULT_HISTORY_ENABLED
    history_retention_days: int = DEFAULT_RETENTION_DAYS
    sources: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    session_folders: tuple[Path, ...] = ()
    otel: bool | None = None
    otel_include_project: bool = False
    reinject: bool = True
    calibration: str = "auto"


@dataclass(frozen=True, slots=True)
class _FileSettings:
    """What one config file sets (``None``: not set there), already checked."""

    source: str
    preset: str | None
    weights: Mapping[str, float]
    warn_threshold: int | None
    context_window: int | None
    history_enabled: bool | None
    retention_days: int | None
    warnings: tuple[str, ...]
    session_folders: tuple[Path, ...] = ()
    otel: bool | None = None
    otel_include_project: bool | None = None
    reinject: bool | None = None
    calibration: str | None = None


def global_config_path() -> Path:
    """``~/.driftclirc``, with the home directory of the moment (docs/design.md §2)."""
    return Path.home() / GLOBAL_CONFIG_NAME


def project_config_path(project: Path) -> Path:
    """``<project>/.driftcli`` (docs/design.md §2); it may not exist, or be the state folder."""
    return project / PROJECT_CONFIG_NAME


def load_config(
    project: Path | None,
    *,
    preset: str | None = None,
    weight_overrides: Mapping[str, float] | None = None,
) -> Config:
    """Read the global and the project config and resolve the settings (docs/design.md §5.4).

    Args:
        project: the project directory whose ``.driftcli`` applies (the session's cwd or
            ``--project``), or ``None`` for the global config only.
        preset: the ``--preset`` flag; beats every file.
        weight_overrides: per-factor weights from the command line; applied last.

    Raises:
        ConfigError: a config file that cannot be used, or a bad weight in
            ``weight_overrides``, or final weights summing to 0; the message names the file
            (or ``command line``) and the key.
        UnknownNameError: ``preset`` names no shipped preset, or ``weight_overrides`` names
            an unknown factor; the message lists the valid names.
    """
    files: list[_FileSettings] = []
    global_raw = _read_json_object(global_config_path(), directory_is_state=False)
    if global_raw is not None:
        files.append(_settings_from(*global_raw))
    project_file: _FileSettings | None = None
    if project is not None:
        project_raw = _read_json_object(project_config_path(project), directory_is_state=True)
        if project_raw is not None:
            project_file = _settings_from(*project_raw)
            files.append(project_file)

    overrides = _check_overrides(weight_overrides or {})

    files_preset = _latest([f.preset for f in files], DEFAULT_PRESET)
    chosen = files_preset if preset is None else preset
    base = load_preset(chosen)

    weights = dict(base.weights)
    last_weight_source = f"preset {chosen!r}"
    for settings in files:  # global, then project
        if settings.weights:
            weights.update(settings.weights)
            last_weight_source = settings.source
    if overrides:
        weights.update(overrides)
        last_weight_source = _COMMAND_LINE
    total = sum(weights.values())
    if total <= 0:
        raise ConfigError(
            f"{last_weight_source}: weights: the weights sum to 0; "
            "at least one factor needs a positive weight"
        )
    if not math.isfinite(total):
        raise ConfigError(f"{last_weight_source}: weights: the weights are too large to add up")

    window_files = [f for f in files if f.context_window is not None]
    folders, folder_warnings = _trusted_folders(files, project_file, project)
    otel, otel_warnings = _narrowed(files, project_file, "otel", lambda f: f.otel)
    include, include_warnings = _narrowed(
        files, project_file, "otelIncludeProject", lambda f: f.otel_include_project
    )
    return Config(
        preset=chosen,
        files_preset=files_preset,
        weights=MappingProxyType({factor: weights[factor] for factor in FACTOR_NAMES}),
        scoring=base.scoring,
        warn_threshold=_latest([f.warn_threshold for f in files], WARN_THRESHOLDS[base.scoring]),
        context_window=window_files[-1].context_window if window_files else None,
        context_window_source=window_files[-1].source if window_files else None,
        history_enabled=_latest([f.history_enabled for f in files], DEFAULT_HISTORY_ENABLED),
        history_retention_days=_latest([f.retention_days for f in files], DEFAULT_RETENTION_DAYS),
        sources=tuple(f.source for f in files),
        warnings=(
            *(line for f in files for line in f.warnings),
            *folder_warnings,
            *otel_warnings,
            *include_warnings,
        ),
        session_folders=folders,
        otel=otel,
        otel_include_project=bool(include),
        reinject=_latest([f.reinject for f in files], True),
        calibration=_latest([f.calibration for f in files], "auto"),
    )


def _narrowed(
    files: list[_FileSettings],
    project_file: _FileSettings | None,
    key: str,
    value: Callable[[_FileSettings], bool | None],
) -> tuple[bool | None, list[str]]:
    """A setting that sends data out (``otel``, ``otelIncludeProject``): the global
    file's, which a project's ``.driftcli`` may turn off but never on (it came with the
    project, as ``sessionFolders`` did), and a warning for a ``true`` there."""
    chosen: bool | None = None
    warnings: list[str] = []
    for settings in files:
        setting = value(settings)
        if setting is None:
            continue
        if settings is project_file and setting:
            warnings.append(
                f"{settings.source}: {key}: a project's .driftcli can only turn this off, "
                f'ignored (set "{key}": true in ~/.driftclirc)'
            )
            continue
        chosen = setting
    return chosen, warnings


def _trusted_folders(
    files: list[_FileSettings], project_file: _FileSettings | None, project: Path | None
) -> tuple[tuple[Path, ...], list[str]]:
    """The ``sessionFolders`` that count, and a warning for each that does not.

    The global file's count whole: the user wrote them. A project's ``.driftcli`` came
    with the project — a cloned repository may carry one — so its folders count only
    inside the project: a repository cannot widen what the model may read through MCP
    (``["/"]`` in a cloned repo's ``.driftcli`` must not open the whole disk).
    """
    folders: list[Path] = []
    warnings: list[str] = []
    for settings in files:
        for folder in settings.session_folders:
            if settings is project_file and not (
                project is not None and is_within(folder, project)
            ):
                warnings.append(
                    f"{settings.source}: sessionFolders: {folder} is outside the project, "
                    "ignored (list folders outside it in ~/.driftclirc)"
                )
                continue
            folders.append(folder)
    return tuple(folders), warnings


def _latest(values: list[_T | None], default: _T) -> _T:
    """The last value that is set (project beats global), else ``default``."""
    return next((value for value in reversed(values) if value is not None), default)


def _read_json_object(path: Path, *, directory_is_state: bool) -> tuple[str, dict[str, Any]] | None:
    """Read one config file: ``(source, object)``, or ``None`` when there is no config there.

    Absent files (and paths under a non-directory) are no config; so is a directory when
    ``directory_is_state`` (the project's ``.driftcli`` state folder, docs/design.md §2).

    Raises:
        ConfigError: unreadable, not UTF-8, invalid JSON (including an integer beyond
            Python's digit limit or nesting too deep to decode), a duplicate key, or not an
            object.
    """
    source = str(path)
    if directory_is_state and path.is_dir():
        return None
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise from_os_error(exc, f"{source}: cannot read the file", ConfigError) from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text (bad byte at offset {exc.start})") from exc
    try:
        value = json.loads(text, object_pairs_hook=_object_without_duplicates)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    except DuplicateKeyError as exc:
        raise ConfigError(f"{source}: {exc.key}: key given twice in one object") from exc
    except ValueError as exc:  # an integer beyond Python's digit limit
        raise ConfigError(f"{source}: cannot read the JSON: {exc}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{source}: cannot read the JSON: nested too deeply") from exc
    if not isinstance(value, dict):
        raise ConfigError(
            f"{source}: must hold a JSON object at the top level, got {describe(value)}"
        )
    return source, value


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` object hook that refuses a key given twice in one object."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(key)
        result[key] = value
    return result


def _settings_from(source: str, raw: dict[str, Any]) -> _FileSettings:
    """Check one parsed config file and pick out what it sets.

    Raises:
        ConfigError: the first bad value, as ``<file>: <key>: <problem>``.
    """
    warnings = [_unknown_key(source, key, _TOP_KEYS) for key in raw if key not in _TOP_KEYS]

    preset: str | None = None
    if "preset" in raw:
        preset = raw["preset"]
        if not isinstance(preset, str):
            raise ConfigError(
                f"{source}: preset: must be a string naming a preset, got {describe(preset)}"
            )
        if preset not in PRESET_NAMES:
            raise ConfigError(
                f"{source}: preset: unknown preset {preset!r} (valid: {', '.join(PRESET_NAMES)})"
            )

    weights: dict[str, float] = {}
    if "weights" in raw:
        raw_weights = raw["weights"]
        if not isinstance(raw_weights, dict):
            raise ConfigError(
                f"{source}: weights: must be an object of factor weights, "
                f"got {describe(raw_weights)}"
            )
        for factor, value in raw_weights.items():
            if factor not in FACTOR_NAMES:
                raise ConfigError(
                    f"{source}: weights.{factor}: unknown factor (valid: {', '.join(FACTOR_NAMES)})"
                )
            try:
                weights[factor] = parse_weight(value)
            except ValueError as exc:
                raise ConfigError(f"{source}: weights.{factor}: {exc}") from exc

    warn_threshold: int | None = None
    if "warnThreshold" in raw:
        value = raw["warnThreshold"]
        if not _is_int(value) or not 0 <= value <= 100:
            raise ConfigError(
                f"{source}: warnThreshold: must be an integer from 0 to 100, got {describe(value)}"
            )
        warn_threshold = value

    context_window: int | None = None
    if "contextWindow" in raw:
        value = raw["contextWindow"]
        if not _is_int(value) or not 1 <= value <= MAX_CONTEXT_WINDOW:
            raise ConfigError(
                f"{source}: contextWindow: must be an integer from 1 to "
                f"{MAX_CONTEXT_WINDOW:,} (tokens), got {describe(value)}"
            )
        context_window = value

    history = _history_values(source, raw, warnings)
    enabled: bool | None = None
    if "enabled" in history:
        value = history["enabled"]
        if not isinstance(value, bool):
            raise ConfigError(
                f"{source}: history.enabled: must be true or false, got {describe(value)}"
            )
        enabled = value
    retention_days: int | None = None
    if "retentionDays" in history:
        value = history["retentionDays"]
        if not _is_int(value) or value < 1:
            raise ConfigError(
                f"{source}: history.retentionDays: must be a positive integer (days), "
                f"got {describe(value)}"
            )
        retention_days = value

    otel = _optional_bool(source, raw, "otel")
    otel_include_project = _optional_bool(source, raw, "otelIncludeProject")
    reinject = _optional_bool(source, raw, "reinject")
    calibration: str | None = None
    if "calibration" in raw:
        value = raw["calibration"]
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f'{source}: calibration: must be "auto", "off" or a calibration file, '
                f"got {describe(value)}"
            )
        calibration = value.strip()
        if calibration not in ("auto", "off"):
            path = Path(calibration).expanduser()
            calibration = str(path if path.is_absolute() else Path(source).parent / path)

    return _FileSettings(
        source=source,
        preset=preset,
        weights=weights,
        warn_threshold=warn_threshold,
        context_window=context_window,
        history_enabled=enabled,
        retention_days=retention_days,
        warnings=tuple(warnings),
        session_folders=_session_folders(source, raw),
        otel=otel,
        otel_include_project=otel_include_project,
        reinject=reinject,
        calibration=calibration,
    )


def _optional_bool(source: str, raw: dict[str, Any], key: str) -> bool | None:
    """``raw[key]`` when it is set (``None`` when not).

    Raises:
        ConfigError: it is set to anything but ``true`` or ``false``.
    """
    if key not in raw:
        return None
    value = raw[key]
    if not isinstance(value, bool):
        raise ConfigError(f"{source}: {key}: must be true or false, got {describe(value)}")
    return value


def _session_folders(source: str, raw: dict[str, Any]) -> tuple[Path, ...]:
    """The ``sessionFolders`` of one file as absolute paths: ``~`` expanded, a relative
    folder taken relative to the folder of ``source`` (the config file).

    Raises:
        ConfigError: not an array, or an entry that is not a non-empty string.
    """
    if "sessionFolders" not in raw:
        return ()
    value = raw["sessionFolders"]
    if not isinstance(value, list):
        raise ConfigError(
            f"{source}: sessionFolders: must be an array of folder paths, got {describe(value)}"
        )
    base = Path(source).parent
    folders: list[Path] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, str) or not entry.strip():
            raise ConfigError(
                f"{source}: sessionFolders[{index}]: must be a folder path (a non-empty "
                f"string), got {describe(entry)}"
            )
        folder = Path(entry.strip()).expanduser()
        folders.append(folder if folder.is_absolute() else base / folder)
    return tuple(folders)


def _history_values(source: str, raw: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The ``history`` settings of one file, from the nested object and the dotted keys.

    Unknown keys inside ``history`` are appended to ``warnings`` as ``history.<key>``.

    Raises:
        ConfigError: ``history`` is not an object, or one setting is given both ways.
    """
    values: dict[str, Any] = {}
    if "history" in raw:
        nested = raw["history"]
        if not isinstance(nested, dict):
            raise ConfigError(
                f"{source}: history: must be an object such as "
                f'{{"enabled": true, "retentionDays": 30}}, got {describe(nested)}'
            )
        for key, value in nested.items():
            if key in _HISTORY_KEYS:
                values[key] = value
            else:
                warnings.append(
                    _unknown_key(
                        source, f"history.{key}", tuple(f"history.{k}" for k in _HISTORY_KEYS)
                    )
                )
    for key in _HISTORY_KEYS:
        dotted = f"history.{key}"
        if dotted in raw:
            if key in values:
                raise ConfigError(
                    f"{source}: {dotted}: given twice, as {dotted!r} and inside 'history'"
                )
            values[key] = raw[dotted]
    return values


def _check_overrides(overrides: Mapping[str, float]) -> dict[str, float]:
    """The command line's weight overrides, checked.

    Raises:
        UnknownNameError: an unknown factor name (the valid names are listed).
        ConfigError: a weight that is not a finite number ≥ 0 (``command line: weights.<f>``).
    """
    checked: dict[str, float] = {}
    for factor, value in overrides.items():
        if factor not in FACTOR_NAMES:
            raise UnknownNameError(f"unknown factor {factor!r} (valid: {', '.join(FACTOR_NAMES)})")
        try:
            checked[factor] = parse_weight(value)
        except ValueError as exc:
            raise ConfigError(f"{_COMMAND_LINE}: weights.{factor}: {exc}") from exc
    return checked


def _is_int(value: object) -> bool:
    """A JSON integer: an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def _unknown_key(source: str, key: str, known: tuple[str, ...]) -> str:
    """The warning for an ignored key, with a suggestion when one known key is close.

    Keys under ``history.`` are compared by what follows the prefix, so the shared prefix
    alone never makes a suggestion.
    """
    prefix = "history." if key.startswith("history.") else ""
    candidates = [k.removeprefix(prefix) for k in known if k.startswith(prefix)]
    close = difflib.get_close_matches(key.removeprefix(prefix), candidates, n=1)
    hint = f" (did you mean {prefix + close[0]!r}?)" if close else ""
    return f"{source}: unknown key {key!r} ignored{hint}"
