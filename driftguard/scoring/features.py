"""What the factors read from a session's messages, kept up to date as messages arrive
.

Every factor reads a window of the latest replies (at most :data:`RECENT` of them) or of the
latest steps, except three things that depend on the whole conversation: the message
count, the hedging rate of the first and the last third of the replies, and the size of
what came before the first reply. :class:`Features` holds exactly what the factors read;
:meth:`Features.of` computes it from a message sequence, and :class:`FeatureIndex` keeps it
for a conversation that grows, so that a snapshot that shares its first messages with the
previous one (the same :class:`~driftguard.model.ParsedMessage` objects, as the parsers
hand out for messages that did not change) costs only its new messages:

- the message count and the characters before the first reply are sums over messages,
  wound back by the messages that changed;
- the hedge features of each reply — ``(hedge matches, words)`` with fenced code removed
  (:func:`driftguard.scoring.factors.hedge_features`) — are computed once per reply, and
  only for the replies the first or the last third holds: as the session grows both ends
  move forward, each reply enters and leaves them once, so the pooled counts of each third
  are running sums (the middle third of a long session is never read);
- the steps of :mod:`driftguard.scoring.loops` come from a resumable
  :class:`~driftguard.scoring.loops.StepScan`.

The result is the same, float for float, as computing every measure from the whole
message sequence: counts are integers, and the rates are formed from them as
:func:`driftguard.scoring.factors.hedge_rise` forms them. Tests check that equality on the
corpus and on files split at random places.

Pure: no I/O. A :class:`FeatureIndex` is mutable; guard it with a lock when threads share
it (:class:`driftguard.sessions.incremental.SessionCache` does), and hand out its :class:`Features`
snapshots, which are immutable.
"""

from __future__ import annotations

import bisect
import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from driftguard.model import ParsedMessage
from driftguard.scoring.factors import hedge_features
from driftguard.scoring.goal import GOAL_WINDOW
from driftguard.scoring.loops import ACTION_WINDOW, Step, StepScan

__all__ = ["RECENT", "FeatureIndex", "Features", "shared_prefix"]

RECENT = 20
"""Latest replies a :class:`Features` keeps: the widest window any factor reads
(uncertainty's 20; repetition reads 10, length collapse 15, goal distance 5)."""


@dataclass(frozen=True, slots=True)
class Features:
    """What the factors read from a session's messages (a snapshot; immutable).

    Attributes:
        messages: user and assistant messages, the summary apart (``Session.message_count``).
        replies: assistant replies, the summary apart (``len(Session.assistant_texts)``).
        recent: the text of the last :data:`RECENT` replies, oldest first.
        first: the text of the first :data:`~driftguard.scoring.goal.GOAL_WINDOW` replies.
        hedge_rise: :func:`driftguard.scoring.factors.hedge_rise` of all the replies,
            hedges per 100 words.
        steps: the steps since the last prompt the person typed, at most the last
            :data:`~driftguard.scoring.loops.ACTION_WINDOW`, the open one last (what
            :func:`~driftguard.scoring.loops.loop_in` reads).
        chars_before_first_reply: ``Σ len(content)`` of the messages before the first
            reply (of all messages when there is none), in characters.
    """

    messages: int
    replies: int
    recent: tuple[str, ...]
    first: tuple[str, ...]
    hedge_rise: float
    steps: tuple[Step, ...]
    chars_before_first_reply: int

    @classmethod
    def of(cls, messages: Sequence[ParsedMessage]) -> Features:
        """The features of ``messages``, computed afresh."""
        index = FeatureIndex()
        return index.sync(tuple(messages))


def _is_reply(message: ParsedMessage) -> bool:
    return message.role == "assistant" and not message.is_summary


def _is_counted(message: ParsedMessage) -> bool:
    return message.role in ("user", "assistant") and not message.is_summary


def shared_prefix(old: tuple[ParsedMessage, ...], new: tuple[ParsedMessage, ...]) -> int:
    """How many leading messages ``old`` and ``new`` share (equal, place for place).

    Made for snapshots of one growing conversation: the messages that did not change are
    the same objects, so comparing them costs an identity check in C. The changed tail is
    walked from the end; the rest is confirmed with one tuple comparison and, only when an
    earlier message changed too, a binary search of such comparisons.
    """
    shared = min(len(old), len(new))
    while shared > 0 and old[shared - 1] is not new[shared - 1]:
        if old[shared - 1] == new[shared - 1]:
            break
        shared -= 1
    if old[:shared] == new[:shared]:
        return shared
    low, high = 0, shared  # old[:low] == new[:low]; old[:high] != new[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle
    return low


class _Third:
    """Pooled hedge counts over a stretch ``[start, end)`` of the replies."""

    __slots__ = ("end", "hedges", "start", "words")

    def __init__(self) -> None:
        self.start = self.end = self.hedges = self.words = 0

    def rate(self) -> float:
        """Hedges per 100 words (0 with no word), as ``factors`` pools them."""
        return self.hedges / self.words * 100 if self.words else 0.0


class FeatureIndex:
    """The :class:`Features` of one conversation, kept up to date (see the module doc).

    Memory: per message nothing but the reference the session already holds; per reply
    its text reference, its message index and two integers once its hedge features are
    known (``array`` slots, 8 bytes each); per step two integers (the last steps are rebuilt
    from the messages when asked for).
    """

    def __init__(self) -> None:
        self._messages: tuple[ParsedMessage, ...] = ()
        self._count = 0
        self._replies: list[str] = []
        self._reply_at = array("q")  # message index of each reply
        self._hedges = array("q")  # per reply; -1 until computed
        self._words = array("q")
        self._early = _Third()
        self._late = _Third()
        self._scan = StepScan()
        self._first_reply: int | None = None  # message index of the first reply
        self._chars = 0  # Σ len(content) before the first reply (of all, when none)

    def sync(self, messages: tuple[ParsedMessage, ...]) -> Features:
        """Bring the index up to ``messages`` (the conversation's latest snapshot) and
        return its features. Cost: the messages not shared with the previous snapshot,
        the replies entering or leaving a third, and the windows."""
        old = self._messages
        keep = shared_prefix(old, messages)
        rescan = self._rewind(old, keep) if keep < len(old) else keep
        self._fold(messages, keep, rescan)
        self._messages = messages
        return self._features()

    # -- winding back ----------------------------------------------------------------

    def _rewind(self, old: tuple[ParsedMessage, ...], keep: int) -> int:
        """Forget ``old[keep:]``; return where the step scan must be fed again (≤ keep)."""
        removed = old[keep:]
        self._count -= sum(1 for message in removed if _is_counted(message))
        if self._first_reply is None or self._first_reply >= keep:
            end = len(old) if self._first_reply is None else self._first_reply
            self._chars -= sum(len(message.content) for message in old[keep:end])
            self._first_reply = None
        replies = bisect.bisect_left(self._reply_at, keep)
        self._move(self._early, min(self._early.start, replies), min(self._early.end, replies))
        self._move(self._late, min(self._late.start, replies), min(self._late.end, replies))
        del self._replies[replies:], self._reply_at[replies:]
        del self._hedges[replies:], self._words[replies:]
        return self._scan.rewind(keep)

    # -- folding ---------------------------------------------------------------------

    def _fold(self, messages: tuple[ParsedMessage, ...], start: int, rescan: int) -> None:
        """Read ``messages[start:]``; the step scan also re-reads ``messages[rescan:start]``."""
        scan = self._scan
        for index in range(rescan, start):
            scan.feed(index, messages[index])
        for index in range(start, len(messages)):
            message = messages[index]
            scan.feed(index, message)
            if _is_counted(message):
                self._count += 1
            if _is_reply(message):
                if self._first_reply is None:
                    self._first_reply = index
                self._replies.append(message.content)
                self._reply_at.append(index)
                self._hedges.append(-1)
                self._words.append(-1)
            elif self._first_reply is None:
                self._chars += len(message.content)

    # -- the thirds ------------------------------------------------------------------

    def _feature(self, reply: int) -> tuple[int, int]:
        if self._hedges[reply] < 0:
            self._hedges[reply], self._words[reply] = hedge_features(self._replies[reply])
        return self._hedges[reply], self._words[reply]

    def _add(self, third: _Third, start: int, end: int, sign: int) -> None:
        for reply in range(start, end):
            hedges, words = self._feature(reply)
            third.hedges += sign * hedges
            third.words += sign * words

    def _move(self, third: _Third, start: int, end: int) -> None:
        """Make ``third`` pool the replies ``[start, end)``, adding and removing only the
        replies that enter or leave it (all of them when the stretches do not overlap)."""
        if end <= third.start or start >= third.end:
            third.hedges = third.words = 0
            self._add(third, start, end, 1)
        else:
            self._add(third, start, third.start, 1)
            self._add(third, third.start, start, -1)
            self._add(third, third.end, end, 1)
            self._add(third, end, third.end, -1)
        third.start, third.end = start, end

    def _hedge_rise(self) -> float:
        replies = len(self._replies)
        if replies < 6:
            return 0.0
        third = math.ceil(replies / 3)
        self._move(self._early, 0, third)
        self._move(self._late, replies - third, replies)
        return self._late.rate() - self._early.rate()

    def _features(self) -> Features:
        return Features(
            messages=self._count,
            replies=len(self._replies),
            recent=tuple(self._replies[-RECENT:]),
            first=tuple(self._replies[:GOAL_WINDOW]),
            hedge_rise=self._hedge_rise(),
            steps=tuple(self._scan.window(ACTION_WINDOW, self._messages, since_prompt=True)),
            chars_before_first_reply=self._chars,
        )
