"""The installed distribution's version, for ``driftguard.__version__`` and for what
driftguard tells other programs about itself (OpenTelemetry's ``service.version``).

A ground module so that a wing below the package's public facade (``driftguard/__init__``)
can ask without importing upwards.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "driftguard-mcp"
"""The name ``pyproject.toml`` publishes the package under."""


def package_version() -> str:
    """The version ``pip`` installed (``"0.2.0"``), or ``"unknown"`` in a source tree that
    was never installed."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"
