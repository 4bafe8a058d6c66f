"""The compaction ledger as driftguard shows it: in ``driftguard score``
(text and ``--json``), ``get_drift`` (structured content and text), ``watch``, the HTML
report and the handoff.

:func:`ledger_view` turns a session's :attr:`~driftguard.model.Session.compaction_ledger`
(built by its adapter, :mod:`driftguard.compaction.ledger`) into what is shown: per compaction its
number, time, trigger, context size and what it dropped — edited files relative to the
session's working directory, constraint sentences, error lines — or why that cannot be
told. The ledger cut each constraint and error from its source after the gate saw the
whole source (:mod:`driftguard.compaction.ledger`), and only counted a source it withheld whole;
here every excerpt passes :func:`driftguard.secrets.gate` (again, for constraints and errors:
an excerpt it withholds whole is counted, never shown), then
:func:`driftguard.terminal.printable`, and is cut to
:data:`CONSTRAINT_CHARS` / :data:`ERROR_CHARS` / :data:`PATH_CHARS` characters after the
gate (never inside a redaction marker), so a cut never leaves half a secret unrecognised.

The JSON object (``compactions`` in ``driftguard score --json`` and ``get_drift``)::

    {"count": int,                       # compactions in the session file
     "last_at": str|null,                # the latest one, ISO 8601 UTC
     "dropped": {"files": [str], "constraints": [str], "errors": [str],
                 "withheld": int},       # what the latest one dropped
     "dropped_unknown": str|null,        # why what it dropped cannot be told
     "ledger": [{"number": int, "at": str|null, "trigger": "auto"|"manual"|null,
                 "tokens_before": int|null, "dropped": {…}, "dropped_unknown": str|null}]}

``ledger`` holds the latest :data:`LEDGER_SHOWN` compactions, oldest first (``number`` is
1-based over the whole session). Views are cached per ledger entry, so a repeat
``get_drift`` gates nothing again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from driftguard.compaction.ledger import one_line, relative
from driftguard.format import iso_utc, plural, when_utc
from driftguard.model import CompactionRecord, CompactionTrigger, Session
from driftguard.terminal import clip, printable

if TYPE_CHECKING:
    from driftguard.secrets import GatedText

__all__ = [
    "CONSTRAINT_CHARS",
    "ERROR_CHARS",
    "LEDGER_SHOWN",
    "PATH_CHARS",
    "REMINDER_CHARS",
    "EntryView",
    "LedgerView",
    "gate_printable",
    "ledger_view",
    "numbered_records",
]

REMINDER_CHARS = 1_500
"""Characters of what a compaction dropped, as the hooks give it back to the model: a few
rules, errors and files, small beside any summary so it never crowds out what the
summary kept."""
LEDGER_SHOWN = 5
"""Compactions the JSON and the text list at most: the latest ones."""
CONSTRAINT_CHARS = 200
"""Characters shown of one constraint sentence."""
ERROR_CHARS = 160
"""Characters shown of one error line (the handoff's line length)."""
PATH_CHARS = 200
"""Characters shown of one file path."""
FILES_NAMED = 3
"""Files a sentence names before saying how many more there are."""
GATE_CHARS = 20_000
"""Characters of one excerpt passed to the gate (here and in the handoff). Only the first
few hundred are ever shown, so a secret cut at this point lies far outside what is shown
(and a private key block cut in half is dropped as incomplete)."""

Gate = Callable[[str], str | None]
"""An excerpt → its gated, printable text, or ``None`` when the gate withholds it whole."""


def gate_printable(text: str) -> GatedText:
    """The first :data:`GATE_CHARS` of ``text`` through :func:`driftguard.secrets.gate`,
    the text it passes made :func:`~driftguard.terminal.printable`: the gate of every
    excerpt shown here and in the handoff (which counts its verdicts). The gate is
    imported here, the first time an excerpt is shown: a session without compactions
    never needs it (the server's first ``get_drift`` is faster without it)."""
    from driftguard.secrets import gate

    result = gate(text[:GATE_CHARS])
    if result.text is None:
        return result
    return dataclasses.replace(result, text=printable(result.text))


def _default_gate(text: str) -> str | None:
    """:func:`gate_printable`'s text."""
    return gate_printable(text).text


@dataclass(frozen=True, slots=True)
class EntryView:
    """One compaction as shown.

    Attributes:
        number: its place in the session, 1-based.
        timestamp: when, seconds since the epoch (UTC), or ``None``.
        trigger: ``"auto"``/``"manual"`` where the file says, else ``None``.
        tokens_before: the context size then, in tokens, where the file records it.
        files: files edited before it that it dropped, relative to the session's cwd.
        constraints: the person's rules it dropped, as typed (gated, cut).
        errors: the error lines it dropped (gated, cut).
        withheld: excerpts the secret gate withheld whole (not shown).
        unknown: why what it dropped cannot be told, else ``None``.
    """

    number: int
    timestamp: float | None
    trigger: CompactionTrigger | None
    tokens_before: int | None
    files: tuple[str, ...]
    constraints: tuple[str, ...]
    errors: tuple[str, ...]
    withheld: int
    unknown: str | None

    def detail(self) -> str:
        """``2026-11-30 10:05 UTC, automatic at 167,016 tokens``: when and how, as far as
        the file says (``""`` when it says nothing)."""
        parts = [when_utc(self.timestamp)] if self.timestamp is not None else []
        how = {"auto": "automatic", "manual": "manual (/compact)"}.get(self.trigger or "", "")
        if self.tokens_before is not None:
            how = f"{how or 'compacted'} at {self.tokens_before:,} tokens"
        return ", ".join([*parts, *([how] if how else [])])

    def phrases(self, *, code: Callable[[str], str] | None = None) -> tuple[str, ...]:
        """What it dropped, one phrase per item: ``the constraint “…”``, ``the edited
        file src/db.py``, ``the error “…”`` (``code`` formats a path or an error line, the
        handoff's Markdown code span; quoted or bare by default)."""
        path = code or (lambda text: text)
        error = code or (lambda text: f"“{text}”")
        return (
            *(f"the constraint “{c}”" for c in self.constraints),
            *(f"the edited file {path(f)}" for f in self.files),
            *(f"the error {error(e)}" for e in self.errors),
            *(
                [f"{plural(self.withheld, 'excerpt')} withheld by the secret gate"]
                if self.withheld
                else []
            ),
        )

    def dropped_text(
        self, *, code: Callable[[str], str] | None = None, files: int | None = FILES_NAMED
    ) -> str:
        """``dropped: the constraint “…”; the edited file src/db.py`` (at most ``files``
        files, the last ones, then how many more; every one when ``None``), ``dropped no
        edited file, constraint or error``, or ``what it dropped is unknown: …``."""
        if self.unknown is not None:
            return f"what it dropped is unknown: {self.unknown}"
        named = self.files if files is None else self.files[max(0, len(self.files) - files) :]
        phrases = list(dataclasses.replace(self, files=named).phrases(code=code))
        more = len(self.files) - len(named)
        if more:
            phrases.append(plural(more, "more edited file"))
        if not phrases:
            return "dropped no edited file, constraint or error"
        return "dropped: " + "; ".join(phrases)

    def headline(self, where: str = "") -> str:
        """``Last compaction (<where>) dropped: …`` in one line (``where`` left out when
        empty), ``Last compaction (…): what it dropped is unknown: …`` without a digest."""
        head = f"Last compaction ({where})" if where else "Last compaction"
        colon = ":" if self.unknown is not None else ""
        return f"{head}{colon} {self.dropped_text()}"

    def fitted(self, width: int) -> str:
        """:meth:`headline` (without ``where``) in at most ``width`` characters: as many of
        :meth:`phrases` as fit whole, then ``; +N more`` for the ``N`` left out
        (``Last compaction dropped: the constraint “…”; +2 more``); the first phrase is cut
        with "…" when even it does not fit. A headline without phrases is cut only. Cuts
        are :func:`~driftguard.terminal.clip`'s: never inside a redaction marker."""
        phrases = self.phrases()
        head = "Last compaction dropped: "
        if self.unknown is not None or not phrases:
            line = self.headline()
            return clip(line, width)
        for shown in range(len(phrases), 0, -1):
            rest = len(phrases) - shown
            line = head + "; ".join(phrases[:shown]) + (f"; +{rest} more" if rest else "")
            if len(line) <= width:
                return line
        suffix = f"; +{len(phrases) - 1} more" if len(phrases) > 1 else ""
        room = max(1, width - len(head) - len(suffix))
        first = clip(phrases[0], room)
        return (head + first + suffix)[:width]

    def reminder(self, limit: int = REMINDER_CHARS) -> str | None:
        """What this compaction dropped, as the hooks give it back to the model right after
        it: the rules the user typed, the errors not fixed before it and the files edited
        before it, each already gated and cut (never something its summary kept), in at
        most ``limit`` characters — items from the end give way to ``… and N more`` when
        they do not fit. ``None`` when it dropped none of these, or what it dropped is
        unknown."""
        if self.unknown is not None or not (self.constraints or self.errors or self.files):
            return None
        how = self.detail().split(", ")[-1] if self.trigger or self.tokens_before else ""
        head = (
            f"driftguard: the compaction just now ({how}) left these out of its summary; "
            if how
            else "driftguard: the compaction just now left these out of its summary; "
        ) + "they still hold:"
        items = [
            *(f"- the user's rule: “{c}”" for c in self.constraints),
            *(f"- an error not fixed yet: “{e}”" for e in self.errors),
            *(f"- a file edited before it: {f}" for f in self.files),
        ]
        tail = "Keep to the rules, and read a file again before you edit it."
        for shown in range(len(items), 0, -1):
            rest = len(items) - shown
            lines = [head, *items[:shown], *([f"- … and {rest} more"] if rest else []), tail]
            text = "\n".join(lines)
            if len(text) <= limit:
                return text
        return clip("\n".join([head, items[0], tail]), limit)

    def to_json(self) -> dict[str, Any]:
        """The entry's object in :class:`LedgerView`'s ``ledger`` list (module docstring)."""
        return {
            "number": self.number,
            "at": iso_utc(self.timestamp) if self.timestamp is not None else None,
            "trigger": self.trigger,
            "tokens_before": self.tokens_before,
            "dropped": _dropped_json(self),
            "dropped_unknown": self.unknown,
        }


def _compactions(numbers: Sequence[int]) -> str:
    """``compaction 2``, ``compactions 1–35``, ``compactions 3–4, 6``: ``numbers`` (in
    order) in words, runs of consecutive ones as a range."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    spans = ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
    return f"compaction{'s' * (len(numbers) != 1)} {spans}"


def _dropped_json(entry: EntryView | None) -> dict[str, Any]:
    if entry is None:
        return {"files": [], "constraints": [], "errors": [], "withheld": 0}
    return {
        "files": list(entry.files),
        "constraints": list(entry.constraints),
        "errors": list(entry.errors),
        "withheld": entry.withheld,
    }


@dataclass(frozen=True, slots=True)
class LedgerView:
    """A session's compactions as shown.

    Attributes:
        count: compactions in the session file.
        entries: the latest of them (all, or :data:`LEDGER_SHOWN`), oldest first.
    """

    count: int
    entries: tuple[EntryView, ...]

    @property
    def last(self) -> EntryView | None:
        """The latest compaction, or ``None`` without one."""
        return self.entries[-1] if self.entries else None

    def earlier(self) -> EntryView | None:
        """What the listed compactions before the latest dropped, merged into one entry
        (each item once, oldest first; ``number`` the first of them), or ``None`` when the
        latest is the only one listed. Each item is as its compaction's record has it:
        named neither by its summary nor by a prompt typed before the next compaction (a
        later mention is not checked). Compactions whose digest is unknown are left out
        (:meth:`earlier_sentence` says which)."""
        entries = self.entries[:-1]
        if not entries:
            return None
        entries = tuple(e for e in entries if e.unknown is None) or entries[:1]

        def merged(items: Callable[[EntryView], tuple[str, ...]]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(x for e in entries for x in items(e)))

        return EntryView(
            number=entries[0].number,
            timestamp=None,
            trigger=None,
            tokens_before=None,
            files=merged(lambda e: e.files),
            constraints=merged(lambda e: e.constraints),
            errors=merged(lambda e: e.errors),
            withheld=sum(e.withheld for e in entries),
            unknown=None,
        )

    def earlier_sentence(self, *, code: Callable[[str], str] | None = None) -> str:
        """What the compactions before the latest dropped, in one sentence: the rules, the
        edited files (:data:`FILES_NAMED`, then how many more) and the errors, ``code``
        formatting paths and errors as in :meth:`EntryView.phrases`:

        - ``Earlier compactions dropped: the constraint “…”; the edited file src/db.py.``
          when every earlier compaction is listed;
        - ``Earlier compactions 36–39 dropped: …; what compactions 1–35 dropped is not
          listed.`` when only the latest :data:`LEDGER_SHOWN` are (the report lists
          every one);
        - ``Earlier compaction 2 dropped …; what compaction 1 dropped is unknown: ….``
          when the file no longer tells what some of them dropped;
        - ``""`` when every earlier one is listed, each is known and none dropped
          anything, or the latest is the only compaction.
        """
        earlier = self.earlier()
        if earlier is None:
            return ""
        entries = self.entries[:-1]
        known = [e.number for e in entries if e.unknown is None]
        unknown = [e for e in entries if e.unknown is not None]
        hidden = entries[0].number - 1
        if not hidden and not unknown:
            return (
                f"Earlier compactions {earlier.dropped_text(code=code)}."
                if earlier.phrases()
                else ""
            )
        clauses = (
            [f"Earlier {_compactions(known)} {earlier.dropped_text(code=code)}"] if known else []
        )
        if unknown:
            reasons = "; ".join(dict.fromkeys(e.unknown or "" for e in unknown))
            numbers = _compactions([e.number for e in unknown])
            clauses.append(f"what {numbers} dropped is unknown: {reasons}")
        if hidden:
            clauses.append(f"what {_compactions(list(range(1, hidden + 1)))} dropped is not listed")
        text = "; ".join(clauses)
        return f"{text[:1].upper()}{text[1:]}."

    def sentence(self, *, code: Callable[[str], str] | None = None) -> str:
        """``The last compaction dropped: the constraint “…”.``, or ``What the last
        compaction dropped is unknown: ….`` (``""`` without a compaction)."""
        last = self.last
        if last is None:
            return ""
        if last.unknown is not None:
            return f"What the last compaction dropped is unknown: {last.unknown}."
        return f"The last compaction {last.dropped_text(code=code)}."

    def lines(self) -> list[str]:
        """The text report's lines: ``Last compaction (2 of 2, <when and how>) dropped:
        …``, then :meth:`earlier_sentence` when it says anything; none without a
        compaction."""
        last = self.last
        if last is None:
            return []
        where = ", ".join(x for x in (f"{last.number} of {self.count}", last.detail()) if x)
        earlier = self.earlier_sentence()
        return [f"{last.headline(where)}.", *([earlier] if earlier else [])]

    def to_json(self) -> dict[str, Any]:
        """The ``compactions`` object of the JSON report (module docstring)."""
        last = self.last
        return {
            "count": self.count,
            "last_at": (
                iso_utc(last.timestamp) if last is not None and last.timestamp is not None else None
            ),
            "dropped": _dropped_json(last),
            "dropped_unknown": last.unknown if last is not None else None,
            "ledger": [entry.to_json() for entry in self.entries[-LEDGER_SHOWN:]],
        }


def ledger_view(
    session: Session, *, gated: Gate | None = None, limit: int | None = LEDGER_SHOWN
) -> LedgerView:
    """The view of ``session``'s compaction ledger.

    Args:
        session: the parsed session (its ledger, compaction count and cwd are read).
        gated: the gate each excerpt passes (the handoff passes its own, which counts
            what it redacted); by default :func:`driftguard.secrets.gate` then
            :func:`~driftguard.terminal.printable`, cached per entry.
        limit: how many of the latest compactions to view; ``None`` for all (the report).
    """
    records: Sequence[CompactionRecord] = session.compaction_ledger
    numbered = numbered_records(session)
    if limit is not None:
        numbered = numbered[-limit:]
    if gated is None:
        entries = tuple(_cached_entry(r, n, session.cwd) for n, r in numbered)
    else:
        entries = tuple(_entry(r, n, session.cwd, gated) for n, r in numbered)
    return LedgerView(max(session.compactions, len(records)), entries)


def numbered_records(session: Session) -> list[tuple[int, CompactionRecord]]:
    """``session``'s compaction ledger, oldest first, each record with its compaction's
    1-based number in the session (a ledger shorter than the count holds the latest)."""
    records = session.compaction_ledger
    first = max(0, session.compactions - len(records)) + 1
    return list(enumerate(records, start=first))


@functools.lru_cache(maxsize=256)
def _cached_entry(record: CompactionRecord, number: int, cwd: str | None) -> EntryView:
    return _entry(record, number, cwd, _default_gate)


def _entry(record: CompactionRecord, number: int, cwd: str | None, gated: Gate) -> EntryView:
    withheld = 0

    def shown(texts: Sequence[str], limit: int) -> tuple[str, ...]:
        nonlocal withheld
        out: list[str] = []
        for text in texts:
            passed = gated(text)
            if passed is None:
                withheld += 1
                continue
            line = clip(one_line(passed), limit)
            if line:
                out.append(line)
        return tuple(dict.fromkeys(out))

    files = shown([relative(path, cwd) for path in record.dropped_files], PATH_CHARS)
    constraints = shown(record.dropped_constraints, CONSTRAINT_CHARS)
    errors = shown(record.dropped_errors, ERROR_CHARS)
    return EntryView(
        number=number,
        timestamp=record.timestamp,
        trigger=record.trigger,
        tokens_before=record.tokens_before,
        files=files,
        constraints=constraints,
        errors=errors,
        withheld=withheld + len(record.dropped_withheld),
        unknown=record.dropped_unknown,
    )
