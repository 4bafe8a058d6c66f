"""The compaction ledger: per compaction, a small digest of what it
dropped — the files edited, the user's explicit constraints and the last errors that the
summary did not keep — told without a model, from the transcript. Also the transcript
facts the handoff shares with it (error lines, which tool results failed unfixed, paths
relative to the working directory).

The adapters build the ledger while they parse (:class:`LedgerBuilder`): at each
compaction the messages before it are still at hand, so the digest costs one pass over
them, and afterwards each new prompt, reply and tool call is checked against the few
candidates still open. The scored messages stay what the model remembers (docs/design.md §5.1);
only the digest of what was dropped is kept, never the messages. Pure: no I/O, nothing a
source's format names.

**The secret gate** sees each source whole before a constraint sentence or an error line is
cut from it (:func:`driftguard.secrets.gate` on the whole prompt, on the
:data:`SCAN_CHARS` searched of a failed result), so its rules that need the whole text (a
``.env`` dump or a private key file withheld whole, a private key block) decide what may be
shown: the digest keeps the excerpts cut from the gated text (redaction markers in place),
and of a source the gate withheld whole only the gate's reason
(:attr:`~driftguard.model.CompactionRecord.dropped_withheld`). The gate runs only on a
prompt that holds a constraint and on the few failed results picked, and is imported only
then. A candidate's matching form is that of its gated excerpt (a secret in it is never
named again, so it counts as dropped: the ledger errs towards saying too much); that of a
withheld one is taken from the text as typed, never shown.

**Candidates**, from what the model remembered just before the compaction: the candidates
of the compaction before it that it kept (named, carried over or targeted since: see below;
a rule the first summary restated is still before the model at the second compaction, so
the second drops it when its summary leaves it out), then those of the messages since:

- *files*: the ``target_path`` of each tool call of kind ``"edit"`` (the adapter tells
  kinds by tool name, as for the handoff), the :data:`FILE_LIMIT` edited last, each once;
- *constraints*: the sentences of the prompts the person typed (``role="user"``, not the
  summary; fenced code removed, docs/design.md §5.2) that state a rule: a sentence — split at
  ``.``/``!``/``?`` followed by a blank and at line ends, list markers dropped — of at
  least :data:`MIN_CONSTRAINT_WORDS` words in which *always*, *never*, *don't* (or
  *dont*, *do not*) or *must* (*must not*, *mustn't*) opens the sentence or a clause
  after ``,``/``;``/``:``, optionally after *and*, *but*, *so*, *also*, *please*,
  *remember*, *important*, *note* and a *you*/*we* subject ("Never touch migrations/.",
  "Please always run the tests first", "Fix it, but don't rename the API"), unless the
  word is followed by *mind*, *need(s)*, *have to*/*has to* or *worry* ("never mind",
  "you don't need to …" grant, not forbid), and which is not a question. Case does not
  matter. The :data:`CONSTRAINT_LIMIT` latest distinct ones are kept, each cut to
  :data:`SENTENCE_CHARS` characters (from the gated prompt: see below). Checked on the real
  prompts of the shared corpus and of the labelled runs (``../shared/validation``, 1,226
  prompts): every sentence it picks there is an instruction or a stated rule, bar
  fragments where a quoted text was wrapped mid-sentence (a line end is a break);
- *errors*: the :data:`ERROR_LIMIT` latest distinct error lines of failed tool results
  that no later run of the same action fixed (:func:`latest_errors`, :func:`error_line`:
  the handoff's rule, on the gated result), each cut to :data:`LINE_CHARS_KEPT`
  characters. An error kept
  by the compaction before stays a candidate unless the messages since hold a successful
  run of the same action.

Each list keeps its latest items when the two sources together hold more than its limit
(an item of both takes its later place). What a compaction dropped is not a candidate of
the next one: it is reported once, where it was lost.

**Did not survive** = a candidate named neither in the compaction summary, nor in what the
host carried over verbatim (the adapter passes it: a preserved segment, a replacement
history, a kept tail), nor in a prompt the person typed after the compaction (up to the
next one); a file also survives when a later tool call targets it. The model's own later
replies are not read: checking every reply would cost the parse a lower-cased copy of
most of the session, and a reply seldom repeats a rule or an error word for word. "Named"
is a case-insensitive match on whitespace-collapsed text, of whole words and whole paths:
a constraint (without its end punctuation) or an error line appears whole, with no word
character right before it and neither a word character nor ``-`` and a word character
right after it ("Never use print." is not named by "never use printf-style formatting");
a file's path (as the call named it, or relative to the working directory) appears with
no word character, ``.``, ``-``, ``~`` or ``/`` right before it and no word character,
``-``, ``~``, ``/`` or ``.`` and a word character right after it (``src/db.py`` is named by
"edited src/db.py." but not by ``src/db.py.bak``, ``src/db.py~`` or ``lib/src/db.py``).
Paraphrases are not recognised, so a constraint the summary reworded counts as dropped: the
ledger errs towards saying too much, not towards hiding a loss (a summary that quotes a
rule word for word inside a sentence that revokes it still counts as keeping it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from driftguard.model import CompactionRecord, CompactionTrigger, ParsedMessage, ToolCall
from driftguard.terminal import REDACTION_MARKER
from driftguard.text import remove_code

if TYPE_CHECKING:
    from driftguard.secrets import GatedText, Redaction

__all__ = [
    "CONSTRAINT_LIMIT",
    "ERROR_LIMIT",
    "ERROR_SCAN_LINES",
    "FILE_LIMIT",
    "LINE_CHARS_KEPT",
    "MIN_CONSTRAINT_WORDS",
    "SCAN_CHARS",
    "SENTENCE_CHARS",
    "LedgerBuilder",
    "constraint_sentences",
    "error_line",
    "latest_errors",
    "one_line",
    "relative",
]

FILE_LIMIT = 10
"""Files a compaction's digest holds at most: the ones edited last before it."""
CONSTRAINT_LIMIT = 5
"""Constraint sentences a digest holds at most: the latest ones."""
ERROR_LIMIT = 3
"""Error lines a digest holds at most: the latest ones."""
MIN_CONSTRAINT_WORDS = 3
"""Words a sentence needs to count as a constraint (``Never.`` alone says nothing)."""
SENTENCE_CHARS = 300
"""Characters kept of one constraint sentence, cut from the gated prompt (what is shown is
cut far shorter, never inside a redaction marker)."""
LINE_CHARS_KEPT = 1_000
"""Characters kept of one error line, cut from the gated result (shown lines are cut far
shorter, never inside a redaction marker)."""
SCAN_CHARS = 20_000
"""Characters of a failed tool result gated and searched for its error line."""
ERROR_SCAN_LINES = 200
"""Lines of an error output searched for the line that reads like an error."""

_T = TypeVar("_T")

_ERROR_LINE = re.compile(
    r"(?:error|exception)(?:\[[^\]\n]{0,80}\])?:|\b(?:fatal|failed|failure):|\bERR!",
    re.IGNORECASE,
)
_WRAPPER_TAG = re.compile(r"</?(?:tool_use_error|untrusted_context)>")
"""Tags a CLI wraps a tool result in: Claude Code's ``<tool_use_error>``, Gemini CLI 0.61's
``<untrusted_context>`` (``wrapUntrusted``, ``packages/core/src/utils/textUtils.ts``)."""
_RESULT_HEADER = re.compile(
    r"(?:Exit code:? -?\d+|Process exited with code -?\d+|Chunk ID: \S+"
    r"|Wall time: [\d.]+ seconds?|Original token count: \d+|Total output lines: \d+|Output:"
    r"|Exit Code: -?\d+|Background PIDs: [\d, ]+|Process Group PGID: \d+"
    r"|Command: .*|Directory: .*)"
)
"""The lines a CLI puts around a command's own output: Claude Code's Bash error
``Exit code 1``; Codex's ``Exit code: 1`` / ``Wall time: … seconds`` / ``Output:`` and, for
unified exec, ``Chunk ID:``, ``Process exited with code 1``, ``Original token count:`` (the
strings in the Codex 0.171.0 binary); Gemini CLI's ``Exit Code: 1`` / ``Background PIDs:``
/ ``Process Group PGID:`` after the output, and ``Command:`` / ``Directory:`` before it in
its earlier versions (``ShellToolInvocation.execute``, ``packages/core/src/tools/shell.ts``).
They say that it failed, not what failed."""
_EMPTY_SECTION = re.compile(
    r"(?:Output|Stdout|Stderr|Error|Signal|Background PIDs|Process Group PGID): \((?:empty|none)\)"
)
"""A section of Gemini CLI's shell result that holds nothing (``Output: (empty)``; every
empty one in its earlier versions, ``Error: (none)`` …): it says nothing at all."""
_SECTION_LABEL = re.compile(r"(?:Output|Stdout|Stderr): (?=\S)")
"""The label Gemini CLI puts before the first line of a command's output (``Output: ls:
cannot access …``; ``Stdout:`` and ``Stderr:`` in its earlier versions)."""

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
_LIST_MARKER = re.compile(r"^(?:[-*•>]+|\d{1,3}[.)])\s+")
_CONSTRAINT = re.compile(
    r"(?:^|[,;:]\s+)"
    r"(?:(?:and|but|so|also|please|remember|important|note)\b[,:]?\s+)*"
    r"(?:(?:you|we)\s+)?"
    r"(?:always|never|don['’]?t|do\s+not|must(?:\s+not|n['’]t)?)\b"
    r"(?!\s+(?:mind|need|needs|have\s+to|has\s+to|worry)\b)",
    re.IGNORECASE,
)


def one_line(text: str) -> str:
    """``text`` with every run of whitespace collapsed to one blank, ends stripped."""
    return " ".join(text.split())


def relative(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies under it (plain string prefix; POSIX or
    Windows separators), else unchanged."""
    if cwd:
        root = cwd.rstrip("/\\")
        for sep in ("/", "\\"):
            if root and path.startswith(root + sep) and len(path) > len(root) + 1:
                return path[len(root) + 1 :]
    return path


def error_line(text: str, cwd: str | None) -> str:
    """The one line of a failed tool result's ``text`` that says what failed, whitespace
    collapsed and not cut, with the ``cwd`` prefix of absolute paths dropped.

    The first line that reads like an error message (``…Error:``, ``error:``,
    ``error[…]:``, ``fatal:``, ``failed:``, ``ERR!``) within the first
    :data:`ERROR_SCAN_LINES` non-blank lines, else the first non-blank line that is not the
    CLI's own (Claude Code's ``Exit code 1``, Codex's ``Exit code: 1`` / ``Wall time:`` /
    ``Output:``, Gemini CLI's ``<untrusted_context>`` wrapper, its ``Output:`` label and
    its ``Exit Code: 1`` / ``Process Group PGID:`` sections), else the CLI's first such
    line; ``"(no error text)"`` for a blank text. Real tool errors
    often open with log noise (a ``level=info`` line, a ``WARN`` banner, a bare file path),
    so the first line alone rarely says what failed.
    """
    if cwd and cwd.rstrip("/\\"):
        root = cwd.rstrip("/\\")
        text = text.replace(root + "/", "").replace(root + "\\", "")
    lines = [line.strip() for line in _WRAPPER_TAG.sub("", text).splitlines()]
    lines = [line for line in lines if line and not _EMPTY_SECTION.fullmatch(line)]
    lines = lines[:ERROR_SCAN_LINES]
    if not lines:
        return "(no error text)"
    output = [
        _SECTION_LABEL.sub("", line, 1) for line in lines if not _RESULT_HEADER.fullmatch(line)
    ]
    lines = output or lines
    # a line the secret gate replaced whole (a private key's block) says nothing that failed
    lines = [line for line in lines if REDACTION_MARKER.sub("", line).strip()] or lines
    chosen = next((line for line in lines if _ERROR_LINE.search(line, 0, 1000)), lines[0])
    return one_line(chosen)


def _action_key(call: ToolCall) -> tuple[str, str]:
    """What makes two calls "the same run" for :func:`latest_errors`: the shell command
    (whitespace collapsed), the file an edit tool wrote, else the tool and its arguments."""
    if call.kind == "shell" and call.command:
        return ("shell", one_line(call.command))
    if call.kind == "edit" and call.target_path:
        return ("edit", call.target_path)
    return (call.name, call.args_digest)


def _tool_results(
    messages: Sequence[ParsedMessage],
) -> list[tuple[tuple[str, str] | None, ParsedMessage]]:
    """Each tool result, oldest first, with the action of the call it answers (``None``
    when it cannot be told). Calls of one response (one message, or consecutive call-only
    tool messages, as Codex and Gemini write parallel calls) are answered in order; a
    result is paired with its call by that order (the files link them by id, which the
    parsed session does not keep)."""
    out: list[tuple[tuple[str, str] | None, ParsedMessage]] = []
    calls: list[ToolCall] = []
    answered = 0
    for message in messages:
        if message.tool_calls:
            parallel = bool(calls) and answered == 0 and not message.content.strip()
            calls = [*calls, *message.tool_calls] if parallel else list(message.tool_calls)
            answered = 0
        elif message.role == "tool":
            call = (
                calls[0]
                if len(calls) == 1
                else (calls[answered] if answered < len(calls) else None)
            )
            out.append((_action_key(call) if call is not None else None, message))
            answered += 1
        else:
            calls, answered = [], 0
    return out


def latest_errors(
    messages: Sequence[ParsedMessage], describe: Callable[[str], str | None], limit: int
) -> tuple[str, ...]:
    """The latest ``limit`` distinct descriptions of failed tool results, oldest first.

    A failed result is one the CLI marked ``is_error``. It is left out when a later run
    of the same action succeeded (it was fixed) — the same shell command, an
    edit of the same file, or the same tool with the same arguments. ``describe`` turns a
    result's text into its line (both gate the text first; the handoff cuts the line
    short), or ``None`` to pass the result over (the handoff's gate withheld it); each line is
    listed once, however often it recurred.
    """
    return tuple(line for line, _ in _unfixed_failures(messages, describe, limit))


def _unfixed_failures(
    messages: Sequence[ParsedMessage], describe: Callable[[str], str | None], limit: int
) -> list[tuple[str, tuple[str, str] | None]]:
    """:func:`latest_errors` with the action of the call each line answers (``None`` when
    it cannot be told): ``[(line, action)]``, oldest first."""
    if not any(message.is_error for message in messages):
        return []
    fixed: set[tuple[str, str]] = set()
    picked: dict[str, tuple[str, str] | None] = {}
    for action, message in reversed(_tool_results(messages)):
        if not message.is_error:
            if action is not None:
                fixed.add(action)
            continue
        if action is not None and action in fixed:
            continue
        line = describe(message.content)
        if line is None:
            continue
        picked.setdefault(line, action)
        if len(picked) >= limit:
            break
    return list(reversed(picked.items()))


def _succeeded(messages: Sequence[ParsedMessage]) -> set[tuple[str, str]]:
    """The actions (:func:`_action_key`) of the tool results in ``messages`` that did not
    fail."""
    return {
        action
        for action, message in _tool_results(messages)
        if action is not None and not message.is_error
    }


def constraint_sentences(text: str) -> list[str]:
    """The sentences of one typed prompt that state an explicit constraint (module
    docstring), in order, whitespace collapsed and cut to :data:`SENTENCE_CHARS`."""
    if not _has_trigger(text):
        return []
    found: list[str] = []
    for raw in _SENTENCE_BREAK.split(remove_code(text)):
        sentence = _LIST_MARKER.sub("", one_line(raw))
        if (
            len(sentence.split()) < MIN_CONSTRAINT_WORDS
            or sentence.endswith("?")
            or not _CONSTRAINT.search(sentence)
        ):
            continue
        found.append(sentence[:SENTENCE_CHARS])
    return found


_TRIGGER_WORDS = ("always", "never", "don", "do", "must")


def _has_trigger(text: str) -> bool:
    """A cheap test before the sentence split: does any trigger word occur at all?"""
    lowered = text.lower()
    return any(word in lowered for word in _TRIGGER_WORDS)


def _key(text: str) -> str:
    """A candidate's or a haystack's matching form: lower-cased, whitespace collapsed."""
    return " ".join(text.lower().split())


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _named_whole(key: str, haystack: str) -> bool:
    """Whether ``key`` occurs in ``haystack`` (both in :func:`_key` form) as whole words:
    with no word character right before it, and neither a word character nor ``-`` and a
    word character right after it ("never use print" is not named by "never use
    printf-style" nor by "never use print-debugging")."""
    start = haystack.find(key)
    while start >= 0:
        end = start + len(key)
        after = haystack[end : end + 2]
        if (start == 0 or not _word_char(haystack[start - 1])) and not (
            after
            and (
                _word_char(after[0])
                or (after[0] == "-" and len(after) > 1 and _word_char(after[1]))
            )
        ):
            return True
        start = haystack.find(key, start + 1)
    return False


def _constraint_key(sentence: str) -> str:
    """A constraint's matching form: :func:`_key` without end punctuation or quotes."""
    return _key(sentence).strip(" \"'“”‘’`").rstrip(".!?;:").strip(" \"'“”‘’`")


@dataclass(frozen=True, slots=True)
class _Excerpt:
    """A constraint or error candidate as it may be shown: ``text`` cut from its gated
    source (``None`` when the gate withheld the source whole, ``withheld`` then saying
    why) and the secrets the gate replaced in it."""

    text: str | None
    withheld: str | None = None
    redactions: tuple[Redaction, ...] = ()


def _gate(text: str) -> GatedText:
    """:func:`driftguard.secrets.gate`, imported only when a source needs it (a session
    without compactions never does)."""
    from driftguard.secrets import gate

    return gate(text)


def _withheld(verdict: GatedText) -> _Excerpt:
    return _Excerpt(None, verdict.dropped_reason or "credential-file contents")


def _cut(text: str, verdict: GatedText) -> _Excerpt:
    """The excerpt ``text`` cut from the gated ``verdict.text``, with the redactions whose
    marker it holds."""
    return _Excerpt(
        text,
        redactions=tuple(
            r for r in verdict.redactions if f"[REDACTED:{r.rule}:{r.digest}]" in text
        ),
    )


@dataclass(frozen=True, slots=True)
class _Path:
    """A file candidate: the path as the call named it, and the forms that name it (the
    path and the path relative to the working directory, in :func:`_key` form)."""

    path: str
    keys: tuple[str, ...]

    def named_in(self, haystack: str) -> bool:
        """Whether ``haystack`` (in :func:`_key` form) names the file (module docstring);
        the pattern is built only when a key occurs at all (the ``re`` cache keeps it)."""
        if not any(key in haystack for key in self.keys):
            return False
        alternatives = "|".join(re.escape(k) for k in sorted(self.keys, key=len, reverse=True))
        return re.search(rf"(?<![\w./~-])(?:{alternatives})(?![\w/~-]|\.\w)", haystack) is not None


def _base_name(path: str) -> str:
    """The last segment of ``path`` (POSIX or Windows separators), lower-cased."""
    return path[max(path.rfind("/"), path.rfind("\\")) + 1 :].lower()


def _path_keys(path: str, cwd: str | None) -> tuple[str, ...]:
    """The forms that name ``path``: itself and relative to ``cwd``, in :func:`_key` form."""
    return tuple(dict.fromkeys(k for k in (_key(path), _key(relative(path, cwd))) if k))


@dataclass(frozen=True, slots=True)
class _Candidates:
    """What a compaction's digest checks, oldest first: ``files`` (path as the call named
    it → :class:`_Path`), ``constraints`` (matching form → the sentence) and ``errors``
    (matching form → (the error line, the action that failed or ``None``))."""

    files: dict[str, _Path]
    constraints: dict[str, _Excerpt]
    errors: dict[str, tuple[_Excerpt, tuple[str, str] | None]]


def _latest(older: dict[str, _T], newer: dict[str, _T], limit: int) -> dict[str, _T]:
    """``older`` then ``newer`` (an item in both takes its place in ``newer``), the last
    ``limit`` items."""
    merged = dict(older)
    for key, value in newer.items():
        merged.pop(key, None)
        merged[key] = value
    return dict(list(merged.items())[-limit:])


@dataclass(slots=True)
class _Open:
    """The latest compaction while later messages may still name its candidates."""

    timestamp: float | None
    trigger: CompactionTrigger | None
    tokens_before: int | None
    cwd: str | None
    unknown: str | None
    files: list[_Path] = field(default_factory=list)
    constraints: dict[str, _Excerpt] = field(default_factory=dict)
    """Matching form → the sentence."""
    errors: dict[str, _Excerpt] = field(default_factory=dict)
    """Matching form → the error line."""
    actions: dict[str, tuple[str, str] | None] = field(default_factory=dict)
    """Matching form of each error candidate → the action (:func:`_action_key`) that
    failed, or ``None`` when it cannot be told: a later success of it fixed the error."""
    candidates: _Candidates | None = None
    """The candidates as the compaction found them, before anything named one (``None``
    while they are not known): what :meth:`survivors` subtracts the dropped from."""
    base_names: frozenset[str] = frozenset()
    """The :func:`_base_name` of each file candidate: a later tool call on a file of
    another name targets none of them (the test that keeps :meth:`targeted` cheap)."""
    probes: tuple[str, ...] = ()
    """The longest blank-free piece of each candidate's matching form: a text whose
    lower-cased form holds none of them names no candidate (the test that keeps
    :meth:`named_in` from collapsing the whitespace of every later text)."""

    def pending(self) -> bool:
        """Whether a later message may still name a candidate."""
        return bool(self.probes)

    def found(self) -> None:
        """The candidates are set: note them (:attr:`candidates`) and index them."""
        self.candidates = _Candidates(
            {f.path: f for f in self.files},
            dict(self.constraints),
            {k: (line, self.actions.get(k)) for k, line in self.errors.items()},
        )
        self.changed()

    def survivors(self) -> _Candidates:
        """The candidates that were named or targeted since (the summary, what the host
        carried over, a later prompt or call): the model still had them at the next
        compaction."""
        if self.candidates is None:
            return _Candidates({}, {}, {})
        dropped = {f.path for f in self.files}
        had = self.candidates
        return _Candidates(
            {p: f for p, f in had.files.items() if p not in dropped},
            {k: c for k, c in had.constraints.items() if k not in self.constraints},
            {k: e for k, e in had.errors.items() if k not in self.errors},
        )

    def record(self) -> CompactionRecord:
        excerpts = (*self.constraints.values(), *self.errors.values())
        return CompactionRecord(
            timestamp=self.timestamp,
            trigger=self.trigger,
            tokens_before=self.tokens_before,
            dropped_files=tuple(f.path for f in self.files),
            dropped_constraints=tuple(e.text for e in self.constraints.values() if e.text),
            dropped_errors=tuple(e.text for e in self.errors.values() if e.text),
            dropped_unknown=self.unknown,
            kept_files=tuple(self.survivors().files),
            dropped_withheld=tuple(e.withheld for e in excerpts if e.withheld),
            dropped_redactions=tuple(r for e in excerpts for r in e.redactions),
        )

    def changed(self) -> None:
        """The candidates changed: recompute :attr:`base_names` and :attr:`probes`."""
        self.base_names = frozenset(_base_name(f.path) for f in self.files)
        keys = [*(k for f in self.files for k in f.keys), *self.constraints, *self.errors]
        self.probes = tuple(dict.fromkeys(max(k.split(), key=len) for k in keys if k.strip()))

    def named_in(self, text: str) -> bool:
        """Drop the candidates ``text`` names; whether any was dropped."""
        lowered = text.lower()
        if not any(probe in lowered for probe in self.probes):
            return False
        haystack = " ".join(lowered.split())
        before = len(self.files) + len(self.constraints) + len(self.errors)
        self.files = [f for f in self.files if not f.named_in(haystack)]
        for table in (self.constraints, self.errors):
            for key in [k for k in table if _named_whole(k, haystack)]:
                del table[key]
        if len(self.files) + len(self.constraints) + len(self.errors) == before:
            return False
        self.changed()
        return True

    def targeted(self, path: str) -> bool:
        """Drop the file candidate a later tool call on ``path`` names; whether one was."""
        if _base_name(path) not in self.base_names:
            return False
        keys = set(_path_keys(path, self.cwd))
        kept = [f for f in self.files if f.path != path and not keys.intersection(f.keys)]
        if len(kept) == len(self.files):
            return False
        self.files = kept
        self.changed()
        return True


class LedgerBuilder:
    """The compaction ledger of one conversation, built while its session is parsed.

    The adapter calls :meth:`compacted` at each compaction with the messages the model
    remembered just before it, then :meth:`named` with each later text that counts (the
    summary when it comes on a later line, the prompts typed) and :meth:`targeted` with
    the path of each later tool call; :meth:`records` is the ledger so far. Only the
    latest compaction is still open: a compaction closes the one before it, and takes
    over the candidates it kept (module docstring). Per later
    prompt the work is nothing once no candidate is left, else one lower-cased copy of its
    text and a substring test per candidate (at most 18); per later tool call, one look-up
    of its file name.
    """

    __slots__ = ("_closed", "_fixed", "_let_go", "_open", "_records")

    def __init__(self) -> None:
        self._closed: list[CompactionRecord] = []
        self._open: _Open | None = None
        self._records: tuple[CompactionRecord, ...] | None = ()
        # What the messages let go since the latest compaction left as candidates of the
        # next one (:meth:`let_go`), and the actions that succeeded among them that fixed
        # an error the latest compaction kept.
        self._let_go = _Candidates({}, {}, {})
        self._fixed: set[tuple[str, str]] = set()

    def compacted(
        self,
        before: Iterable[ParsedMessage],
        *,
        timestamp: float | None,
        cwd: str | None,
        trigger: CompactionTrigger | None = None,
        tokens_before: int | None = None,
        kept: Iterable[str] = (),
        kept_paths: Iterable[str] = (),
        unknown: str | None = None,
    ) -> None:
        """A compaction happened.

        Args:
            before: the messages the model remembered just before it, oldest first, less
                what the host carried over verbatim (a preserved segment, a kept tail);
                a summary among them adds no candidate of its own (what it kept of the
                compaction before is carried over from that compaction's candidates).
            timestamp: when, seconds since the epoch, or ``None``.
            cwd: the session's working directory then (paths are matched relative to it).
            trigger: ``"auto"``/``"manual"`` where the file says.
            tokens_before: the context size at the compaction where the file records it.
            kept: the texts the model keeps: the summary (when it comes with the
                compaction) and what the host carried over verbatim.
            kept_paths: the targets of tool calls the host carried over verbatim.
            unknown: why the file no longer tells what this compaction dropped (then
                ``before`` is not read).
        """
        previous = self._open
        carried = _Candidates({}, {}, {})
        if previous is not None:
            self._closed.append(previous.record())
            carried = previous.survivors()
            if self._fixed:
                carried = _Candidates(
                    carried.files,
                    carried.constraints,
                    {k: e for k, e in carried.errors.items() if e[1] not in self._fixed},
                )
        carried = _merged(carried, self._let_go)
        self._let_go = _Candidates({}, {}, {})
        self._fixed = set()
        entry = _Open(timestamp, trigger, tokens_before, cwd, unknown)
        self._open = entry
        self._records = None
        if unknown is None:
            messages = list(before)
            files = _latest(carried.files, {f.path: f for f in _edited(messages, cwd)}, FILE_LIMIT)
            entry.files = list(files.values())
            entry.constraints = _latest(
                carried.constraints, _constraints(messages), CONSTRAINT_LIMIT
            )
            fixed = _succeeded(messages) if carried.errors else set()
            errors = _latest(
                {k: e for k, e in carried.errors.items() if e[1] is None or e[1] not in fixed},
                _errors(messages, cwd),
                ERROR_LIMIT,
            )
            entry.errors = {k: line for k, (line, _) in errors.items()}
            entry.actions = {k: action for k, (_, action) in errors.items()}
            entry.found()
        for text in kept:
            self.named(text)
        for path in kept_paths:
            self.targeted(path)

    def let_go(self, messages: Iterable[ParsedMessage], *, cwd: str | None) -> None:
        """The oldest messages since the latest compaction are let go without one (the
        parser keeps the remembered text within its bound:
        :data:`~driftguard.adapters._common.REMEMBERED_CHARS`): keep what the next
        compaction would have read of them, and nothing else.

        Their candidates (files, constraints, errors: module docstring) are taken now, as
        a compaction takes those of the messages before it, and become the oldest
        candidates of the next compaction, after what the latest one kept. Files and
        constraints come out as they would from the messages kept whole, since each list
        keeps its latest items; of the errors, at most :data:`ERROR_LIMIT` of these
        messages are kept, and one a later success fixes is let go with no older one
        taking its place. A success among them also fixes an error the latest compaction
        kept. ``messages`` must be whole responses (no tool result without the call it
        answers), oldest first; ``cwd`` is the session's working directory.
        """
        messages = list(messages)
        if not messages:
            return
        fixed = _succeeded(messages)
        entry = self._open
        if fixed and entry is not None and entry.candidates is not None:
            self._fixed.update(
                action
                for _, action in entry.candidates.errors.values()
                if action is not None and action in fixed
            )
        older = self._let_go
        newer = _Candidates(
            {f.path: f for f in _edited(messages, cwd)},
            _constraints(messages),
            _errors(messages, cwd),
        )
        unfixed = {k: e for k, e in older.errors.items() if e[1] is None or e[1] not in fixed}
        self._let_go = _merged(_Candidates(older.files, older.constraints, unfixed), newer)

    def named(self, text: str) -> None:
        """``text`` is seen by the model after the latest compaction (its summary, what the
        host carried over, a prompt typed since): the candidates it names survived."""
        entry = self._open
        if entry is not None and entry.pending() and entry.named_in(text):
            self._records = None

    def targeted(self, path: str | None) -> None:
        """A tool call after the latest compaction targets ``path``: that file survived."""
        entry = self._open
        if path and entry is not None and entry.files and entry.targeted(path):
            self._records = None

    def records(self) -> tuple[CompactionRecord, ...]:
        """One :class:`CompactionRecord` per compaction so far, oldest first (the same
        tuple while nothing changed)."""
        if self._records is None:
            closed = tuple(self._closed)
            self._records = closed if self._open is None else (*closed, self._open.record())
        return self._records


def _merged(older: _Candidates, newer: _Candidates) -> _Candidates:
    """The candidates of ``older`` then ``newer``, each list its latest items
    (:func:`_latest`)."""
    if not (newer.files or newer.constraints or newer.errors):
        return older
    return _Candidates(
        _latest(older.files, newer.files, FILE_LIMIT),
        _latest(older.constraints, newer.constraints, CONSTRAINT_LIMIT),
        _latest(older.errors, newer.errors, ERROR_LIMIT),
    )


def _edited(messages: Sequence[ParsedMessage], cwd: str | None) -> list[_Path]:
    """The :data:`FILE_LIMIT` files edited last, oldest first, each once."""
    last: dict[str, None] = {}
    for message in messages:
        for call in message.tool_calls:
            if call.kind == "edit" and call.target_path:
                last.pop(call.target_path, None)
                last[call.target_path] = None
    return [_Path(path, _path_keys(path, cwd)) for path in list(last)[-FILE_LIMIT:]]


def _constraints(messages: Sequence[ParsedMessage]) -> dict[str, _Excerpt]:
    """The :data:`CONSTRAINT_LIMIT` latest distinct constraint sentences, oldest first,
    each cut from its prompt after the whole prompt passed the gate (module docstring)."""
    found: dict[str, _Excerpt] = {}
    for message in messages:
        if message.role != "user" or message.is_summary:
            continue
        typed = constraint_sentences(message.content)
        if not typed:
            continue
        verdict = _gate(message.content)
        if verdict.text is None:
            picked = [(_constraint_key(s), _withheld(verdict)) for s in typed]
        else:
            picked = [
                (_constraint_key(s), _cut(s, verdict)) for s in constraint_sentences(verdict.text)
            ]
        for key, excerpt in picked:
            found.pop(key, None)
            found[key] = excerpt
    return dict(list(found.items())[-CONSTRAINT_LIMIT:])


def _errors(
    messages: Sequence[ParsedMessage], cwd: str | None
) -> dict[str, tuple[_Excerpt, tuple[str, str] | None]]:
    """The :data:`ERROR_LIMIT` latest distinct unfixed error lines (:func:`latest_errors`),
    oldest first, by matching form: each line picked from its result after the gate saw
    the :data:`SCAN_CHARS` searched of it (module docstring), with the action that
    failed."""
    excerpts: dict[str, _Excerpt] = {}

    def describe(text: str) -> str:
        source = text[:SCAN_CHARS]
        verdict = _gate(source)
        if verdict.text is None:
            line = error_line(source, cwd)[:LINE_CHARS_KEPT]
            excerpts.setdefault(line, _withheld(verdict))
        else:
            line = error_line(verdict.text, cwd)[:LINE_CHARS_KEPT]
            excerpts.setdefault(line, _cut(line, verdict))
        return line

    return {
        _key(line): (excerpts[line], action)
        for line, action in _unfixed_failures(messages, describe, ERROR_LIMIT)
    }
