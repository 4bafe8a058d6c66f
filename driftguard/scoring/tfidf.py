"""TF-IDF cosine similarity equal, float for float, to scikit-learn's.

Goal distance compares texts with ``TfidfVectorizer()`` (default parameters) and
``cosine_similarity``. Importing scikit-learn takes 0.6–1 s here (measured: 1 077 ms for
``sklearn.feature_extraction.text`` on a loaded machine), far more than the two or three
short documents cost to compare, so this module computes the same numbers itself, in the
same order of floating-point operations, with scikit-learn as the oracle of its tests
(every corpus session, and random texts):

1. ``CountVectorizer``: each document lower-cased (:meth:`str.lower`) and cut into the
   tokens of ``(?u)\\b\\w\\w+\\b``; terms are numbered in order of first appearance across
   the documents, and each row of the count matrix is stored in that order
   (``X.sort_indices()``; renumbering the terms alphabetically afterwards keeps the stored
   order).
2. ``TfidfTransformer`` (``smooth_idf``, ``norm="l2"``): ``idf = ln((n + 1) / (df + 1)) + 1``
   computed by numpy exactly as scikit-learn computes it (one float64 array over the
   alphabetically sorted terms: ``full(n + 1) / (df + 1.0)``, ``np.log`` in place, ``+= 1.0``
   — numpy's ``log`` is not the C library's on every CPU); each stored count times its idf;
   each row divided by the square root of the sum of its squares, summed in stored order
   (``inplace_csr_row_normalize_l2``; a row of zeros is left as it is).
3. ``cosine_similarity(X[0], X[1:])``: both sides normalised again (a copy, the same
   way), then for each other row the sum, in the stored order of the first row, of the
   products of the values the two rows share (``csr_matmul_csr_to_dense``), from 0.0.

Pure; numpy is imported on first use.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

__all__ = ["TOKEN_PATTERN", "cosine_similarities"]

TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")
"""scikit-learn's default ``token_pattern``: words of two or more word characters."""

Row = list[tuple[int, float]]
"""One document: ``(term number, value)`` in stored order."""


def _normalised(row: Row) -> Row:
    """``row`` divided by its l2 norm, summed in stored order (unchanged when all zero)."""
    total = 0.0
    for _, value in row:
        total += value * value
    if total == 0.0:
        return row
    norm = math.sqrt(total)
    return [(term, value / norm) for term, value in row]


def _rows(documents: Sequence[str]) -> list[Row] | None:
    """The l2-normalised TF-IDF rows of ``documents``; ``None`` for an empty vocabulary."""
    vocabulary: dict[str, int] = {}
    counts: list[dict[int, int]] = []
    for document in documents:
        counter: dict[int, int] = {}
        for token in TOKEN_PATTERN.findall(document.lower()):
            term = vocabulary.setdefault(token, len(vocabulary))
            counter[term] = counter.get(term, 0) + 1
        counts.append(counter)
    if not vocabulary:
        return None
    import numpy as np

    order = sorted(vocabulary)  # scikit-learn's feature order: the terms sorted
    frequency = [0] * len(vocabulary)
    for counter in counts:
        for term in counter:
            frequency[term] += 1
    df = np.array([frequency[vocabulary[name]] for name in order], dtype=np.float64)
    df += 1.0
    idf = np.full_like(df, fill_value=len(documents) + 1, dtype=np.float64)
    idf /= df
    np.log(idf, out=idf)
    idf += 1.0
    by_term = [0.0] * len(vocabulary)
    for position, name in enumerate(order):
        by_term[vocabulary[name]] = float(idf[position])
    return [
        _normalised(
            [(term, float(count) * by_term[term]) for term, count in sorted(counter.items())]
        )
        for counter in counts
    ]


def cosine_similarities(documents: Sequence[str]) -> list[float] | None:
    """Cosine similarity of ``documents[0]`` to each of ``documents[1:]`` under TF-IDF fitted
    on all of them: ``cosine_similarity(m[0], m[1:])[0]`` for
    ``m = TfidfVectorizer().fit_transform(documents)``, exactly.

    Returns:
        One similarity (0–1) per later document, or ``None`` when no document holds a
        token (scikit-learn raises "empty vocabulary" there).
    """
    rows = _rows(documents)
    if rows is None:
        return None
    first = _normalised(rows[0])
    similarities: list[float] = []
    for row in rows[1:]:
        values = dict(_normalised(row))
        total = 0.0
        for term, value in first:
            other = values.get(term)
            if other is not None:
                total += value * other
        similarities.append(total)
    return similarities
