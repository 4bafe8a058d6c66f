"""The speed-ups of phrase counting and hedge features change no result (docs/design.md §5.2).

``count_phrases`` skips the regex of a phrase whose words are absent from the folded text,
and ``confidence_drift`` memoises per-text hedge counts. Both must stay bit-identical to the
plain definitions: the naive sum of ``findall`` counts, and the pooled rate over all texts.
"""

from __future__ import annotations

import re
import string
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard import text
from driftguard.scoring import factors
from driftguard.scoring.factors import HEDGE_PHRASES, UNCERTAINTY_PHRASES, confidence_drift
from driftguard.text import count_phrases, phrase_pattern, remove_code, words

TRICKY = "İıſKkKsSiI \t\n\x1c\u00a0\u2003:_-'.,ΣσςéßẞŉǅΩ"
"""Characters where case-insensitive matching, lower-casing or splitting are subtle."""


def naive_count(sample: str, phrases: tuple[str, ...] | list[str]) -> int:
    return sum(len(phrase_pattern(phrase).findall(sample)) for phrase in phrases)


def naive_confidence_drift(texts: list[str]) -> float:
    """Factor 6 written out without the memo (docs/design.md §5.3)."""

    def rate(group: list[str]) -> float:
        hedges = sum(naive_count(remove_code(t), HEDGE_PHRASES) for t in group)
        total = sum(len(words(remove_code(t))) for t in group)
        return hedges / total * 100 if total else 0.0

    if len(texts) < 6:
        return 0.0
    third = -(-len(texts) // 3)
    return min(100.0, max(0.0, (rate(texts[-third:]) - rate(texts[:third])) * 20))


def test_only_the_folded_characters_match_ascii_letters_case_insensitively() -> None:
    # Pins what the shortcut relies on, for the running Python: re.IGNORECASE matches an
    # ASCII letter only to its two ASCII cases and to the characters the fold maps to it.
    everything = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    for letter in string.ascii_lowercase:
        found = set(re.findall(letter, everything, re.IGNORECASE))
        beyond_ascii = {char for char in found if not char.isascii()}
        assert beyond_ascii == {chr(c) for c, to in text._FOLD.items() if to == letter}, letter
    for char in string.punctuation + string.digits:
        assert set(re.findall(re.escape(char), everything, re.IGNORECASE)) == {char}


def test_folding_keeps_every_position_space_and_word_character() -> None:
    # What matching phrases case-sensitively in the folded text relies on (count_phrases).
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        fold = text.folded(char)
        assert len(fold) == 1, hex(code)
        assert (re.match(r"\w", char) is None) == (re.match(r"\w", fold) is None), hex(code)
        assert (re.match(r"\s", char) is None) == (re.match(r"\s", fold) is None), hex(code)


def test_folding_maps_to_an_ascii_letter_or_sign_exactly_what_ignorecase_matches_to_it() -> None:
    everything = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    folded_all = text.folded(everything)
    for char in string.ascii_lowercase + string.punctuation + string.digits:
        matched = set(re.findall(re.escape(char), everything, re.IGNORECASE))
        folds_to = {everything[i] for i, f in enumerate(folded_all) if f == char}
        assert folds_to == matched, char


words_and_noise = st.text(alphabet=string.ascii_letters + TRICKY, max_size=60)
VARIANTS = {"i": "iIİı", "s": "sSſ", "k": "kKK"}


def spellings(phrase: str) -> st.SearchStrategy[str]:
    """``phrase`` in any mix of cases, with the look-alikes the regex matches too."""
    return st.tuples(
        *(st.sampled_from(VARIANTS.get(c.lower(), c.lower() + c.upper())) for c in phrase)
    ).map("".join)


disguised = st.sampled_from(HEDGE_PHRASES + UNCERTAINTY_PHRASES).flatmap(spellings)
phrase_words = st.sampled_from(
    ["i", "think", "maybe", "MIGHT", "sure", "not", "correction:", "ſeems", "kK", "ı", "é"]
)


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(
        st.one_of(words_and_noise, disguised),
        max_size=8,
    ),
    extra=st.lists(st.lists(phrase_words, min_size=1, max_size=3).map(" ".join), max_size=3),
)
def test_count_phrases_equals_the_sum_of_every_phrase_s_matches(
    pieces: list[str], extra: list[str]
) -> None:
    sample = " ".join(pieces)
    for phrases in (HEDGE_PHRASES, UNCERTAINTY_PHRASES, tuple(extra)):
        assert count_phrases(sample, phrases) == naive_count(sample, phrases)


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(
        st.lists(
            st.one_of(words_and_noise, disguised, st.sampled_from(("```", "~~~"))),
            max_size=10,
        ).map(" ".join),
        max_size=14,
    )
)
def test_memoised_confidence_drift_equals_the_plain_definition(texts: list[str]) -> None:
    expected = naive_confidence_drift(texts)
    assert confidence_drift(texts) == expected
    assert confidence_drift(list(texts)) == expected  # again, from the memo


def test_rescoring_the_same_texts_reads_hedge_features_from_the_memo() -> None:
    texts = [f"Reply {n}: this might work, I think, but maybe not." for n in range(9)]
    factors._hedge_features.cache_clear()
    first = confidence_drift(texts)
    before = factors._hedge_features.cache_info()
    assert confidence_drift(texts) == first
    after = factors._hedge_features.cache_info()
    assert after.misses == before.misses
    assert after.hits == before.hits + 2 * 3  # first and last third, three texts each
