"""Fixtures of the real-host tests: the fake model server, a project folder, the pinned CLIs.

A test module loads them with ``pytest_plugins = ["e2e_fixtures"]``. They are not in a
``tests/e2e/conftest.py`` on purpose: without ``__init__.py`` files a second conftest
module replaces ``sys.modules["conftest"]``, and the ``from conftest import ...`` of the
other test modules would then find this one.

HOME is already a private temporary folder (the autouse ``isolated_home`` of
``tests/conftest.py``); everything a CLI writes lands there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from e2e_hosts import require_cli
from fake_model import FakeModel


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A started fake model server on 127.0.0.1 (no plan: it answers every prompt with text);
    shut down when the test ends."""
    with FakeModel() as server:
        yield server


@pytest.fixture
def host_project(tmp_path: Path) -> Path:
    """An empty project folder to run the CLIs in (resolved: the CLIs name it by realpath)."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder.resolve()


@pytest.fixture(scope="session")
def real_cli() -> Callable[[str], Path]:
    """``real_cli("claude")`` → the pinned binary; skips the test when it is missing or
    another version (the reason says how to install it)."""
    return require_cli
