"""Property: for randomly generated valid configs, setup adds exactly driftguard's entry
and uninstall gives back the original ("install → uninstall is the identity on
the parsed content"; here also on the bytes, for the layouts JSON and TOML writers
produce).

The configs are built by hypothesis: JSON objects of random keys and nested values,
written compact or indented (two or four spaces, tabs), for JSONC with ``//`` and
``/* */`` comments at random places; TOML documents written by ``tomlkit`` with comment
lines between random lines. Each may or may not already hold a server table with other
servers (or an empty one). The edits run through the same safe-edit transaction as
``driftguard setup`` (backup, atomic write, read back).
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard.jsonc import parse as parse_jsonc
from driftguard.setup_scripts._base import OTHER_TRANSPORT_KEYS, SetupRequest, stdio_matches
from driftguard.setup_scripts._safe_edit import (
    JsonServers,
    ServersFormat,
    TomlServers,
    edit_servers_file,
)

ENTRY = {"command": "/opt/dg/bin/driftguard", "args": ["serve"], "env": {"DRIFTGUARD_HOST": "x"}}
INSTALL = SetupRequest(command=ENTRY["command"])
UNINSTALL = SetupRequest(command=ENTRY["command"], action="uninstall")
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# ---------------------------------------------------------------------------- JSON

json_keys = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6
)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_keys, inner, max_size=3),
    max_leaves=8,
)
json_servers = st.dictionaries(
    json_keys.filter(lambda key: key != "driftguard"),
    st.fixed_dictionaries(
        {"command": st.text(min_size=1, max_size=10)},
        optional={
            "args": st.lists(st.text(max_size=5), max_size=2),
            "env": st.dictionaries(json_keys, st.text(max_size=4), max_size=2),
        },
    ),
    max_size=3,
)


@st.composite
def json_configs(draw: st.DrawFn) -> dict[str, Any]:
    """A top-level object, with ``mcpServers`` (possibly empty) at a random place or none."""
    other_keys = json_keys.filter(lambda key: key != "mcpServers")
    others = draw(st.dictionaries(other_keys, json_values, max_size=4))
    servers = draw(st.none() | json_servers)
    if servers is None:
        return others
    items = list(others.items())
    items.insert(draw(st.integers(0, len(items))), ("mcpServers", servers))
    return dict(items)


def dump_json(value: Any, indent: str | None, rnd: random.Random | None, level: int = 0) -> str:
    """``value`` as JSON text; with ``rnd``, comments are sprinkled in (JSONC)."""
    if isinstance(value, dict) and value:
        pad = "" if indent is None else indent * (level + 1)
        parts = []
        for index, (key, item) in enumerate(value.items()):
            before = after = ""
            if rnd is not None and rnd.random() < 0.3:
                before = "/* note */ " if indent is None else f"// note\n{pad}"
            if rnd is not None and rnd.random() < 0.3:
                last = index == len(value) - 1
                after = " // tail" if (last and indent is not None) else " /* after */"
            rendered = dump_json(item, indent, rnd, level + 1)
            parts.append(f"{before}{json.dumps(key, ensure_ascii=False)}: {rendered}{after}")
        if indent is None:
            return "{" + ", ".join(parts) + "}"
        inner = ",\n".join(pad + part for part in parts)
        return "{\n" + inner + "\n" + indent * level + "}"
    if isinstance(value, list) and value:
        return "[" + ", ".join(dump_json(item, indent, rnd, level + 1) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _round_trip(fmt: ServersFormat, text: str, suffix: str) -> tuple[str, str]:
    """Install into a file holding ``text``, then uninstall: the two texts written."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"config{suffix}"
        path.write_bytes(text.encode("utf-8"))

        def matches(existing: Any) -> bool:
            return stdio_matches(existing, ENTRY)

        added = edit_servers_file("gemini_cli", path, fmt, INSTALL, ENTRY, matches=matches)
        assert added.status == "added", added
        installed = path.read_bytes().decode("utf-8")
        removed = edit_servers_file("gemini_cli", path, fmt, UNINSTALL, ENTRY, matches=matches)
        assert removed.status == "removed", removed
        return installed, path.read_bytes().decode("utf-8")


@SETTINGS
@given(
    config=json_configs(),
    indent=st.sampled_from([None, "  ", "    ", "\t"]),
    comments=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    crlf=st.booleans(),
)
def test_json_install_then_uninstall_is_the_identity(
    config: dict[str, Any], indent: str | None, comments: bool, seed: int, crlf: bool
) -> None:
    rnd = random.Random(seed) if comments else None
    text = dump_json(config, indent, rnd) + "\n"
    if comments:
        text = "// settings\n" + text
    if crlf:
        text = text.replace("\n", "\r\n")
    fmt = JsonServers(comments=comments)

    installed, restored = _round_trip(fmt, text, ".json")

    expected = json.loads(json.dumps(config))
    expected.setdefault("mcpServers", {})["driftguard"] = ENTRY
    assert parse_jsonc(installed, comments=comments).value == expected
    for comment in ("// settings", "// note", "/* note */", " // tail", "/* after */"):
        assert installed.count(comment) == text.count(comment)
    assert parse_jsonc(restored, comments=comments).value == config
    assert restored == text


# ---------------------------------------------------------------------------- TOML

toml_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789 .é", min_size=1, max_size=6)
toml_scalars = (
    st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)
)
toml_values = st.recursive(
    toml_scalars | st.lists(toml_scalars, max_size=3),
    lambda inner: st.dictionaries(toml_keys, inner, min_size=1, max_size=3),
    max_leaves=8,
)
toml_servers = st.dictionaries(
    toml_keys.filter(lambda key: key != "driftguard"),
    st.fixed_dictionaries(
        {"command": st.text(min_size=1, max_size=10).filter(lambda s: "\x7f" not in s)},
        optional={"args": st.lists(st.text(max_size=5), max_size=2)},
    ),
    max_size=3,
)


@st.composite
def toml_documents(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A config and its text: written by tomlkit, with comment lines added between lines
    (tomlkit writes no multi-line values here, so any line boundary is safe)."""
    config = draw(
        st.dictionaries(toml_keys.filter(lambda k: k != "mcp_servers"), toml_values, max_size=4)
    )
    servers = draw(st.none() | toml_servers)
    if servers is not None:
        config["mcp_servers"] = servers
    text = tomlkit.dumps(config)
    # Lines end at "\n" only: str.splitlines() would also split at U+0085 or U+2028
    # inside a string.
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), "# a comment\n")
    return config, "".join(lines)


@SETTINGS
@given(document=toml_documents())
def test_toml_install_then_uninstall_is_the_identity(document: tuple[dict[str, Any], str]) -> None:
    config, text = document
    parsed = tomllib.loads(text)
    assert parsed == config  # the generator wrote what it meant to

    installed, restored = _round_trip(TomlServers(), text, ".toml")

    expected = tomllib.loads(text)
    expected.setdefault("mcp_servers", {})["driftguard"] = ENTRY
    assert tomllib.loads(installed) == expected
    assert installed.count("# a comment") == text.count("# a comment")
    assert tomllib.loads(restored) == parsed
    assert restored == text


# ------------------------------------------------------- --update keeps the user's keys

OWN_KEYS = ("command", "args", "env")
# A user's own keys: not driftguard's, and not a key that makes the entry another
# transport's (such an entry is replaced as a whole: setup_scripts/_base.py).
NOT_USER_KEYS = (*OWN_KEYS, *OTHER_TRANSPORT_KEYS, "type")
UPDATE = SetupRequest(command=ENTRY["command"], update=True)


def _updated(
    fmt: ServersFormat, text: str, suffix: str, defaults: dict[str, Any] | None = None
) -> str:
    """Run ``--update`` on a file holding ``text`` (with the host ``defaults``, as Codex's
    ``required``); the text written."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"config{suffix}"
        path.write_bytes(text.encode("utf-8"))

        def matches(existing: Any) -> bool:
            return stdio_matches(existing, ENTRY, defaults)

        result = edit_servers_file(
            "gemini_cli", path, fmt, UPDATE, ENTRY, matches=matches, defaults=defaults
        )
        assert result.status == "updated", result
        return path.read_bytes().decode("utf-8")


def _merged(users: dict[str, Any]) -> dict[str, Any]:
    """What --update must make of the user's entry: driftguard's keys and variable set,
    everything else kept."""
    merged = {**users, "command": ENTRY["command"], "args": ENTRY["args"]}
    merged["env"] = {**users.get("env", {}), **ENTRY["env"]}
    return merged


@st.composite
def json_user_entries(draw: st.DrawFn) -> dict[str, Any]:
    """An older driftguard entry the user extended: another path, maybe other args, keys
    and variables of their own."""
    extra = draw(st.dictionaries(json_keys.filter(lambda k: k not in NOT_USER_KEYS), json_values))
    entry: dict[str, Any] = {"command": "/old/venv/bin/driftguard", **extra}
    if draw(st.booleans()):
        entry["args"] = draw(st.lists(st.text(max_size=5), max_size=2))
    if draw(st.booleans()):
        entry["env"] = draw(st.dictionaries(json_keys, st.text(max_size=4), max_size=3))
    return entry


@SETTINGS
@given(
    config=json_configs(),
    users=json_user_entries(),
    indent=st.sampled_from([None, "  ", "\t"]),
    comments=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_json_update_keeps_every_key_and_comment_the_user_added(
    config: dict[str, Any],
    users: dict[str, Any],
    indent: str | None,
    comments: bool,
    seed: int,
) -> None:
    config.setdefault("mcpServers", {})["driftguard"] = users
    rnd = random.Random(seed) if comments else None
    text = dump_json(config, indent, rnd) + "\n"

    updated = _updated(JsonServers(comments=comments), text, ".json")

    expected = json.loads(json.dumps(config))
    expected["mcpServers"]["driftguard"] = _merged(users)
    assert parse_jsonc(updated, comments=comments).value == expected
    for comment in ("// note", "/* note */", " // tail", "/* after */"):
        assert updated.count(comment) == text.count(comment)


toml_user_keys = toml_keys.filter(lambda k: k not in NOT_USER_KEYS)


@SETTINGS
@given(
    document=toml_documents(),
    extra=st.dictionaries(toml_user_keys, toml_values, max_size=3),
    env=st.none() | st.dictionaries(toml_keys, st.text(max_size=4), max_size=3),
    env_table=st.booleans(),
)
def test_toml_update_keeps_every_key_and_comment_the_user_added(
    document: tuple[dict[str, Any], str],
    extra: dict[str, Any],
    env: dict[str, str] | None,
    env_table: bool,
) -> None:
    _, text = document
    users: dict[str, Any] = {"command": "driftguard", "args": ["serve", "-v"], **extra}
    if env is not None:
        users["env"] = env
    table: dict[str, Any] = {k: v for k, v in users.items() if k != "env"}
    block = tomlkit.dumps({"mcp_servers": {"driftguard": table}})
    if env is not None:
        # the user's variables as a [mcp_servers.driftguard.env] table or an inline table
        if env_table:
            block += "\n" + tomlkit.dumps({"mcp_servers": {"driftguard": {"env": env}}})
        else:
            inline = tomlkit.inline_table()
            inline.update(env)
            block = block.replace(
                "[mcp_servers.driftguard]\n",
                f"[mcp_servers.driftguard]\nenv = {inline.as_string()}\n",
                1,
            )
    text = text + ("\n" if text and not text.endswith("\n") else "") + "# mine\n" + block
    assert tomllib.loads(text)["mcp_servers"]["driftguard"] == users

    updated = _updated(TomlServers(), text, ".toml")

    expected = tomllib.loads(text)
    expected["mcp_servers"]["driftguard"] = _merged(users)
    assert tomllib.loads(updated) == expected
    assert updated.count("# a comment") == text.count("# a comment")
    assert "# mine" in updated


@SETTINGS
@given(
    document=toml_documents(),
    extra=st.dictionaries(toml_user_keys, toml_values, max_size=2),
    required=st.none() | toml_scalars,
)
def test_toml_update_keeps_the_users_value_of_a_default_key_and_adds_it_when_missing(
    document: tuple[dict[str, Any], str], extra: dict[str, Any], required: Any
) -> None:
    # Codex's `required` (setup_scripts/codex_cli.py DEFAULTS): the user's boolean stays,
    # an absent key or a value of another type becomes the default.
    _, text = document
    users: dict[str, Any] = {"command": "/old/venv/bin/driftguard", "args": ["serve"], **extra}
    if required is not None:
        users["required"] = required
    block = tomlkit.dumps({"mcp_servers": {"driftguard": users}})
    text = text + ("\n" if text and not text.endswith("\n") else "") + block

    updated = _updated(TomlServers(), text, ".toml", defaults={"required": True})

    expected = tomllib.loads(text)
    merged = _merged(users)
    merged["required"] = required if isinstance(required, bool) else True
    expected["mcp_servers"]["driftguard"] = merged
    assert tomllib.loads(updated) == expected
    assert updated.count("# a comment") == text.count("# a comment")
