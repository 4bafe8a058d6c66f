"""Text printed on a terminal cannot drive it."""

from __future__ import annotations

from driftguard.terminal import printable, short_markers


def test_control_characters_but_newline_and_tab_are_shown_as_symbols() -> None:
    assert printable("a\x1b[2Jb\x07c\x7fd\x9be\n\tf") == "a␛[2Jb␇c␡d�e\n\tf"


def test_plain_text_and_other_unicode_are_left_alone() -> None:
    text = "drift 41 warming · 38k to compact · goal “import CSV” ✓"
    assert printable(text) == text


def test_redaction_markers_shorten_for_a_narrow_line() -> None:
    assert (
        short_markers("key [REDACTED:aws-access-key:1a5d44a2] and more")
        == "key [redacted] and more"
    )
