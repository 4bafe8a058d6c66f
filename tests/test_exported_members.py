"""Every public name a module declares in ``__all__`` exists (httpx's test_exported_members)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

# adapters/, presets/ and setup_scripts/ live outside driftguard/ in the source tree
# (package-dir), so an editable install walks them from their own __path__.
MAPPED = ("driftguard.adapters", "driftguard.presets", "driftguard.setup_scripts")


def _modules() -> list[str]:
    names = set(MAPPED)
    for package in ("driftguard", *MAPPED):
        path = importlib.import_module(package).__path__
        names.update(info.name for info in pkgutil.walk_packages(path, f"{package}."))
    return sorted(name for name in names if not name.endswith("__main__"))


MODULES = _modules()


def test_the_walk_reaches_every_layer() -> None:
    for expected in ("driftguard.adapters.codex_cli", "driftguard.setup_scripts.cursor"):
        assert expected in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_each_name_in_all_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        assert name.rsplit(".", 1)[-1].startswith("_"), f"{name} has no __all__"
        return
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    missing = [member for member in exported if not hasattr(module, member)]
    assert missing == [], f"{name}.__all__ names what it does not define"
