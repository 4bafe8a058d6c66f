"""The docs tell how to install driftguard from PyPI once it is published, where setup
keeps its backups, and how to remove every trace of driftguard again."""

from __future__ import annotations

from conftest import REPO_ROOT


def _section(page: str, title: str) -> str:
    text = (REPO_ROOT / page).read_text(encoding="utf-8")
    assert f"\n## {title}\n" in text, f"{page}: no section {title!r}"
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_set_up_section_names_the_pypi_distribution() -> None:
    assert "pip install driftguard-mcp" in _section("README.md", "Set up")


def test_removing_driftguard_covers_the_hosts_the_hooks_the_package_and_its_files() -> None:
    removing = _section("docs/hosts.md", "Removing driftguard")
    for step in (
        "driftguard setup --uninstall",
        "driftguard setup --hooks --uninstall",
        "pip uninstall driftguard-mcp",
        "~/.driftcli",
        ".driftguard/",
        ".driftguard-backup-",
    ):
        assert step in removing, step


def test_the_setup_section_says_where_backups_are_and_how_many_are_kept() -> None:
    setup = _section("docs/hosts.md", "Registering the server: `driftguard setup`")
    assert "<name>.driftguard-backup-<UTC time>" in setup
    assert "newest 3" in setup
