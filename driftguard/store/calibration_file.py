"""The calibration file: what ``driftguard calibrate`` learnt from the user's own sessions
, one :class:`~driftguard.scoring.personal.Reference` per host and model family.

Where: :func:`driftguard.paths.calibration_path` (``~/.driftcli/calibration.json``) unless a
``--calibration FILE``, ``--out FILE`` or the config's ``calibration`` names another. Shape
(one JSON object, version 1)::

    {"version": 1, "made_at": 1764806400.0, "needed": 20,
     "references": [{"cli": "claude_code", "family": "claude-opus-4-7", "sessions": 34,
                     "final_depths": [41200, …],
                     "samples": [[depth, fill, loop, overlap, slope, corrections, hedge], …]}]}

``needed`` is the number of sessions a reference needs before it applies by itself
(:data:`driftguard.scoring.personal.MIN_SESSIONS` when the file was made). Numbers only: no
text of any session is kept.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftguard._fileio import write_json_atomic
from driftguard.errors import ConfigError
from driftguard.scoring.personal import MIN_SESSIONS, Reference, Sample

__all__ = ["FORMAT_VERSION", "CalibrationFile", "read_calibration", "write_calibration"]

FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class CalibrationFile:
    """A calibration file, read.

    Attributes:
        path: where it was read from.
        made_at: when ``driftguard calibrate`` wrote it, seconds since the epoch.
        needed: the sessions a reference needs before it applies.
        references: one per host and model family.
    """

    path: Path
    made_at: float
    needed: int
    references: tuple[Reference, ...]

    def reference_for(self, cli: str, family: str) -> Reference | None:
        """The reference of ``cli`` and model ``family``, or ``None``."""
        for reference in self.references:
            if reference.cli == cli and reference.family == family:
                return reference
        return None


def _reference_json(reference: Reference) -> dict[str, Any]:
    return {
        "cli": reference.cli,
        "family": reference.family,
        "sessions": reference.sessions,
        "final_depths": list(reference.final_depths),
        "samples": [sample.to_list() for sample in reference.samples],
    }


def write_calibration(
    path: Path, references: list[Reference], made_at: float, needed: int = MIN_SESSIONS
) -> None:
    """Write ``references`` to ``path`` atomically (mode 0600, folders made).

    Raises:
        OSError: it cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(
        path,
        {
            "version": FORMAT_VERSION,
            "made_at": made_at,
            "needed": needed,
            "references": [_reference_json(r) for r in references],
        },
    )


def _count(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{what} must be a count")
    return value


def read_calibration(path: Path) -> CalibrationFile:
    """Read the calibration file at ``path``.

    Raises:
        ConfigError: it is missing, unreadable, not JSON, or not a version-1 calibration
            (the message names the file).
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"{path}: calibration: cannot be read ({exc.strerror or exc}); "
            "run `driftguard calibrate` to make it"
        ) from exc
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
            raise ValueError(f"not a version-{FORMAT_VERSION} calibration file")
        made_at = data.get("made_at")
        if not isinstance(made_at, int | float) or isinstance(made_at, bool):
            raise ValueError("made_at must be a time")
        if not math.isfinite(made_at):
            raise ValueError("made_at must be a time")
        needed = _count(data.get("needed", MIN_SESSIONS), "needed")
        references = []
        for entry in data.get("references", []):
            if not isinstance(entry, dict):
                raise ValueError("a reference must be an object")
            cli, family = entry.get("cli"), entry.get("family")
            if not isinstance(cli, str) or not isinstance(family, str):
                raise ValueError("a reference names its cli and family")
            depths = entry.get("final_depths", [])
            samples = entry.get("samples", [])
            if not isinstance(depths, list) or not isinstance(samples, list):
                raise ValueError("final_depths and samples must be arrays")
            references.append(
                Reference(
                    cli=cli,
                    family=family,
                    sessions=_count(entry.get("sessions"), "sessions"),
                    final_depths=tuple(_count(d, "a final depth") for d in depths),
                    samples=tuple(
                        Sample.from_list(s if isinstance(s, list) else []) for s in samples
                    ),
                )
            )
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{path}: calibration: {exc}") from exc
    return CalibrationFile(path, float(made_at), needed, tuple(references))
