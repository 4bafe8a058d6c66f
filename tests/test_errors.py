"""One exception root: every exception class driftguard defines is in the tree that
``driftguard.errors`` draws, and an OSError becomes an error in one way."""

from __future__ import annotations

import errno
import importlib
import inspect
from pathlib import Path

import pytest
from test_exported_members import MODULES

from driftguard import errors
from driftguard.errors import DriftguardError, SessionFormatError, from_os_error


def _exception_classes() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for name in MODULES:
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == name:
                found.append(value)
    return found


def test_every_exception_class_is_defined_in_the_errors_module() -> None:
    assert [
        cls.__qualname__ for cls in _exception_classes() if cls.__module__ != errors.__name__
    ] == []


@pytest.mark.parametrize("cls", _exception_classes(), ids=lambda cls: cls.__name__)
def test_every_exception_class_derives_from_the_root_and_is_drawn_in_the_tree(
    cls: type[BaseException],
) -> None:
    assert issubclass(cls, DriftguardError)
    drawn = {line.lstrip(" │├└─").split(" ", 1)[0] for line in (errors.__doc__ or "").splitlines()}
    assert cls.__name__ in drawn


def test_an_os_error_becomes_what_failed_and_why_as_the_kind_asked_for() -> None:
    path = Path("/nowhere/session.jsonl")
    failure = FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
    error = from_os_error(failure, f"cannot read {path}", SessionFormatError)
    assert isinstance(error, SessionFormatError)
    assert str(error) == f"cannot read {path}: No such file or directory"
    assert str(from_os_error(OSError("disk on fire"), "cannot write x")) == (
        "cannot write x: disk on fire"
    )
