"""Who started a process (driftguard._process): the host a hook command runs under, even
through a shell, and a process told apart from a later one given the same pid."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from driftguard._process import ancestors, is_running, process_info

pytestmark = pytest.mark.skipif(os.name != "posix", reason="processes are looked at on POSIX")

PRINT_HOST = (
    "from driftguard._process import host_of_hook; "
    "host = host_of_hook(); print(host.pid if host else 0)"
)


@pytest.mark.parametrize(
    "through_shell",
    [True, False],
    ids=["through /bin/sh -c, as Claude Code runs hooks", "directly"],
)
def test_a_hook_finds_the_process_that_ran_it_past_the_shell_between(
    through_shell: bool,
) -> None:
    # `; exit $?` keeps sh alive as the hook's parent (a lone command may be exec-ed)
    command = f'"{sys.executable}" -c "{PRINT_HOST}"; exit $?'
    argv = ["/bin/sh", "-c", command] if through_shell else [sys.executable, "-c", PRINT_HOST]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert int(done.stdout) == os.getpid()


def test_the_ancestors_start_with_the_parent_and_have_start_times() -> None:
    found = ancestors()
    assert found[0].pid == os.getppid()
    assert all(info.start for info in found)


def test_a_process_is_running_only_with_its_own_start_time() -> None:
    me = process_info(os.getpid())
    assert me is not None
    assert is_running(os.getpid(), me.start)
    assert is_running(os.getpid(), None)
    assert not is_running(os.getpid(), "another process that had this pid")
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    assert not is_running(ended.pid, None)


def test_where_ps_cannot_be_asked_a_running_process_is_never_taken_for_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import driftguard._process as process

    monkeypatch.setattr(process.sys, "platform", "darwin")
    monkeypatch.setattr(process, "_from_ps", lambda pid: None)  # ps failed or timed out
    assert is_running(os.getpid(), "a start time ps would have told")
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    assert not is_running(ended.pid, None)
