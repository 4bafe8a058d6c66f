"""The ``config.toml`` edits of ``setup_scripts/_toml.py``: the table is appended and cut
out as text where that reads back exactly (comments and layout kept), with ``tomlkit``
as the fallback, and every result checked with :mod:`tomllib` (docs/host-configs.md §3.3)."""

from __future__ import annotations

import tomllib

import pytest

from driftguard.setup_scripts._toml import (
    TomlSyntaxError,
    add_table,
    load,
    remove_table,
    render_table,
    replace_table,
)

PATH = ("mcp_servers", "driftguard")
ENTRY = {"command": "/opt/dg/bin/driftguard", "args": ["serve"], "env": {"DRIFTGUARD_HOST": "x"}}


def test_the_table_has_only_the_given_keys_and_an_inline_env() -> None:
    assert render_table(PATH, ENTRY) == (
        "[mcp_servers.driftguard]\n"
        'command = "/opt/dg/bin/driftguard"\n'
        'args = ["serve"]\n'
        'env = {DRIFTGUARD_HOST = "x"}\n'
    )


def test_keys_that_are_not_bare_are_quoted() -> None:
    assert render_table(("a b", "c.d"), {"e f": 1}) == '["a b"."c.d"]\n"e f" = 1\n'


def test_a_file_that_is_not_toml_is_a_syntax_error() -> None:
    with pytest.raises(TomlSyntaxError, match="line 2"):
        load('a = 1\nb = "\n')


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        'model = "m"\n',
        '# only a comment\nmodel = "m"  # trailing\n',
        'model = "m"\n\n\n',
        '[mcp_servers]\n\n[profiles.a]\nmodel = "m"\n',
        '[mcp_servers.other]\ncommand = "x"\n\n[mcp_servers.other.env]\nK = "v"\n',
        "a = 1\r\n[t]\r\nb = 2\r\n",
        "[[tools]]\nname = 'a'\n\n[[tools]]\nname = 'b'\n",
    ],
)
def test_removing_the_table_add_appended_gives_back_the_original_text(text: str) -> None:
    added = add_table(text, PATH, ENTRY)
    assert tomllib.loads(added)["mcp_servers"]["driftguard"] == ENTRY
    assert added.startswith(text)  # appended: every original byte kept in place
    assert remove_table(added, PATH) == text


def test_a_file_without_a_final_newline_gets_one_back() -> None:
    added = add_table('model = "m"', PATH, ENTRY)
    assert added.startswith('model = "m"\n\n[mcp_servers.driftguard]\n')
    assert remove_table(added, PATH) == 'model = "m"\n'


def test_crlf_files_get_crlf_lines() -> None:
    added = add_table("a = 1\r\n", PATH, ENTRY)
    assert added == "a = 1\r\n\r\n" + render_table(PATH, ENTRY, "\r\n")


def test_lines_that_look_like_headers_inside_strings_and_arrays_are_not_headers() -> None:
    text = (
        'note = """\n[mcp_servers.driftguard]\ncommand = "nope"\n"""\n'
        "literal = '''\n[mcp_servers.driftguard]\n'''\n"
        "matrix = [\n  [1, 2],\n  [3],\n]\n"
        'inline = { a = "[mcp_servers.driftguard]" }\n'
    )
    added = add_table(text, PATH, ENTRY)
    assert remove_table(added, PATH) == text
    assert tomllib.loads(remove_table(added, PATH)) == tomllib.loads(text)


def test_remove_takes_the_sub_tables_and_keeps_the_comments_after_the_table() -> None:
    text = (
        'model = "m"\n\n'
        '[mcp_servers."driftguard"]\ncommand = "old"\n\n'
        '[mcp_servers.driftguard.env]\nA = "1"\n\n'
        '[mcp_servers.driftguard.tools.get_drift]\napproval_mode = "approve"\n\n'
        '# the fast profile\n[profiles.fast]\nmodel = "mini"\n'
    )
    assert remove_table(text, PATH) == (
        'model = "m"\n\n# the fast profile\n[profiles.fast]\nmodel = "mini"\n'
    )


def test_an_inline_mcp_servers_table_gets_an_inline_entry() -> None:
    text = 'mcp_servers = { other = { command = "x" } }  # inline\n'
    added = add_table(text, PATH, ENTRY)
    assert tomllib.loads(added)["mcp_servers"] == {"other": {"command": "x"}, "driftguard": ENTRY}
    assert "# inline" in added
    assert tomllib.loads(remove_table(added, PATH)) == tomllib.loads(text)


def test_an_entry_written_with_dotted_keys_is_removed_through_tomlkit() -> None:
    text = (
        '# servers\n[mcp_servers]\nother.command = "x"\n'
        'driftguard.command = "old"\ndriftguard.args = ["serve"]\n'
    )
    removed = remove_table(text, PATH)
    assert tomllib.loads(removed) == {"mcp_servers": {"other": {"command": "x"}}}
    assert removed.startswith("# servers\n[mcp_servers]\nother.command")


def test_replace_swaps_the_table_and_keeps_everything_else() -> None:
    text = (
        '# codex\n[mcp_servers.driftguard]\ncommand = "old"\nstartup_timeout_sec = 5\n\n'
        '[profiles.a]\nmodel = "m"  # keep\n'
    )
    replaced = replace_table(text, PATH, ENTRY)
    assert tomllib.loads(replaced) == {
        "mcp_servers": {"driftguard": ENTRY},
        "profiles": {"a": {"model": "m"}},
    }
    assert replaced.startswith('# codex\n\n[profiles.a]\nmodel = "m"  # keep\n\n[mcp_servers.')
