"""Which hosts run driftguard's hand-over hook: what `handoff --write` and
`handoff --status` both ask before they say how the next session gets a handoff."""

from __future__ import annotations

import json

from driftguard.setup_scripts.hooked import hooked_hosts, session_start_hooked


def _write_claude_settings(value: object) -> None:
    from driftguard.setup_scripts.claude_hooks import settings_file

    settings = settings_file()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(value), encoding="utf-8")


def test_no_host_is_hooked_without_any_settings() -> None:
    assert hooked_hosts() == ()
    assert not session_start_hooked("claude_code")


def test_a_host_is_hooked_once_its_settings_run_the_session_start_hook() -> None:
    from driftguard.setup_scripts.claude_hooks import HOOK_EVENTS, hook_group

    hooks = {spec.event: [hook_group("/opt/venv/bin/driftguard", spec)] for spec in HOOK_EVENTS}
    _write_claude_settings({"hooks": hooks})
    assert hooked_hosts() == ("claude_code",)
    assert session_start_hooked("claude_code")


def test_a_host_whose_settings_hold_only_other_hooks_is_not_hooked() -> None:
    _write_claude_settings({"hooks": {"SessionStart": [{"hooks": [{"command": "echo hi"}]}]}})
    assert hooked_hosts() == ()
