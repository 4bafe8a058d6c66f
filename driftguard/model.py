"""Plain data shared by adapters, scoring and the shells (docs/design.md §4).

Adapters turn a CLI's session file into one :class:`Session` holding the
:class:`ParsedMessage` list the model still remembers (what follows the last compaction,
docs/design.md §5.1). Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, get_args

if TYPE_CHECKING:
    from driftguard.secrets import Redaction

__all__ = [
    "AUDIENCES",
    "CALIBRATION_NONE",
    "CLI_NAMES",
    "FACTOR_NAMES",
    "GOAL_SOURCES",
    "NOT_IN_SESSION_FOLDER",
    "SCORINGS",
    "WARN_THRESHOLDS",
    "Audience",
    "CalibrationKind",
    "CalibrationUse",
    "CliName",
    "CompactionRecord",
    "CompactionTrigger",
    "GoalSource",
    "GoalUse",
    "LoopKind",
    "ParsedMessage",
    "ProjectSource",
    "Recording",
    "ResolvedBy",
    "Role",
    "Scoring",
    "Session",
    "State",
    "ToolCall",
    "ToolKind",
    "Trajectory",
    "WindowSource",
]

Role = Literal["user", "assistant", "tool"]
ToolKind = Literal["edit", "shell", "read", "other"]
"""What a tool call does, as the adapter that parsed it tells by the tool's name: creates
or edits a file, runs a shell command, only reads the workspace, or anything else (MCP
tools, web search, …)."""
CliName = Literal["claude_code", "gemini_cli", "codex_cli", "cursor"]
"""Every session source driftguard has an adapter for (:mod:`driftguard.adapters`): the
three coding CLIs, which write one file per session, and ``"cursor"``, Cursor's composer
chats in its SQLite stores."""
CLI_NAMES: tuple[CliName, ...] = get_args(CliName)
"""Every source's name, in the order they are listed and searched (``--cli`` choices; on
equal times the one listed first wins). The adapter registry holds one adapter per name."""

Scoring = Literal["seed", "calibrated"]
SCORINGS: tuple[Scoring, ...] = get_args(Scoring)
"""The scorings a preset can name (``scoring = "…"`` in its TOML file): ``"seed"``, design
§5.3–5.4 as first written, and ``"calibrated"``, the scales the labelled runs set
(``benchmarks/VALIDITY.md``)."""

WARN_THRESHOLDS: dict[Scoring, int] = {"seed": 60, "calibrated": 61}
"""The default ``warnThreshold`` of each scoring: the seed's 60 (docs/design.md §5.4), and the
Drifting line 61 on the calibrated scales (``benchmarks/VALIDITY.md`` rule v2, change 3),
so that the handoff is suggested whenever the state is drifting or polluted."""

Audience = Literal["cli", "mcp"]
AUDIENCES: tuple[Audience, ...] = get_args(Audience)
"""Who reads a text report: ``"cli"``, someone at a terminal, told to run
``driftguard`` commands; ``"mcp"``, the model in a session, told to call the tools."""

GoalSource = Literal["given", "remembered"]
GOAL_SOURCES: tuple[GoalSource, ...] = get_args(GoalSource)
"""Where the goal of a score came from: ``"given"`` with this call (the
``--goal`` flag, ``get_drift``'s ``goal``), or ``"remembered"`` from an earlier call that
kept it for the session (``~/.driftcli/sessions/``)."""

ProjectSource = Literal["DRIFTGUARD_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "roots", "cwd"]
"""Where the server took its project from (:func:`driftguard.sessions.resolve.choose_project`): an
environment variable the host set, the MCP client's roots, or the working directory."""

State = Literal["fresh", "warming", "drifting", "polluted"]
"""The drift state a score falls in (docs/design.md §5.4)."""

ResolvedBy = Literal[
    "path", "argument", "process_pointer", "env_session_id", "pointer", "newest_in_project"
]
"""How the session a score is about was chosen (docs/design.md §6, "Which session";
:mod:`driftguard.sessions.resolve`): a path the user gave, a ``session`` argument over MCP, the
pointer the ``SessionStart`` hook of the host process wrote, the host's
``CLAUDE_CODE_SESSION_ID``, the project's hook pointer, or the newest session of the
project."""

WindowSource = Literal["file", "assumed", "host", "config", "flag"]
"""Where the nominal context window came from: the session file and model name
(``"file"``: the model has one window, or the file proves which), an assumption about a
model that may run with either of two windows when nothing tells which (``"assumed"``:
the host's own choice for the environment driftguard sees, its adapter's
:meth:`~driftguard.adapters._base.Adapter.nominal_window`), the host's status line, a
config file's ``contextWindow``, or ``--context-window``."""

CompactionTrigger = Literal["auto", "manual"]
"""What started a compaction, where the file says: the host on its own (its usable window
was reached) or the user (``/compact``)."""

LoopKind = Literal["same_result", "failing", "same_call", "retried", "alternating"]
"""The kinds of tool-call loop (:mod:`driftguard.scoring.loops`)."""

Trajectory = Literal["climbing", "falling", "stable"]
"""Where a session's recorded scores are heading (:mod:`driftguard.render.trend`)."""

FACTOR_NAMES: tuple[str, ...] = (
    "context_saturation",
    "repetition",
    "length_collapse",
    "goal_distance",
    "uncertainty",
    "confidence_drift",
)
"""The six factors' JSON names in design order (docs/design.md §5.3, §5.5): the keys of a
report's ``factors`` and ``weights``, of a preset's ``[weights]`` table (§5.4) and of a
config file's ``weights`` object."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call the model made.

    Attributes:
        name: the tool's name as the CLI recorded it (``Edit``, ``run_shell_command``,
            ``shell``, ``apply_patch``, ``mcp__server__tool`` …).
        args_digest: first 16 hex digits of the sha256 of the arguments as canonical JSON
            (``sort_keys=True``, ``separators=(",", ":")``); equal arguments give equal digests.
        target_path: the file the call reads or writes, when its arguments name one
            (``file_path``, ``path``, ``filePath`` …), else ``None``.
        command: the shell command line, for shell-type tools, else ``None``.
        kind: what the call does (:data:`ToolKind`), set by the adapter while parsing from
            its CLI's tool names; a shell call that applies a patch (Codex's
            ``apply_patch`` body) is an ``"edit"``.
    """

    name: str
    args_digest: str
    target_path: str | None = None
    command: str | None = None
    kind: ToolKind = "other"


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """One message of the remembered conversation, normalised across CLIs.

    Attributes:
        role: ``"user"`` (a prompt the person typed), ``"assistant"`` (one model response
            with text) or ``"tool"`` (tool results fed back to the model).
        content: the text only, blocks joined with ``"\\n"``; no thinking, no tool input.
        token_count: the context size in tokens of the request that produced this message,
            measured as ``Session.context_tokens`` is (Claude input + cache tokens, Gemini
            ``tokens.input``, Codex ``last_token_usage.total_tokens``), or ``None`` where the
            file has no usage for it.
        timestamp: seconds since the epoch (UTC), or ``None``.
        tool_calls: the tool calls of this response (assistant) in file order.
        is_error: a tool result the CLI marked as an error (tool messages only).
        model: the model id that wrote this message (assistant), else ``None``.
        is_summary: this is the compaction summary the conversation continues from; it is
            neither a user nor an assistant message for the factors or the message count.
        refused: a tool result saying the person refused the call or stopped the turn
            (tool messages only; set by the adapters of hosts that write such a result:
            Claude Code's rejection and interruption markers).
    """

    role: Role
    content: str
    token_count: int | None = None
    timestamp: float | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    is_error: bool = False
    model: str | None = None
    is_summary: bool = False
    refused: bool = False


@dataclass(frozen=True, slots=True)
class CompactionRecord:
    """One compaction of a session and a small digest of what it dropped: the
    compaction ledger's entry, built by the adapter while the messages before the
    compaction are at hand (:class:`driftguard.compaction.ledger.LedgerBuilder`).

    "Dropped" means present in the messages the model remembered before the compaction,
    or kept by the compaction before it, but named neither in the compaction summary, nor
    in what the host carried over verbatim, nor in a later prompt or tool call up to the
    next compaction (:mod:`driftguard.compaction.ledger` gives the matching rule). The constraint
    sentences and error lines were cut from their source — the whole prompt, the whole
    failed result — after it passed :func:`driftguard.secrets.gate` (a secret in them is
    its redaction marker; a source the gate withheld whole is only counted, in
    ``dropped_withheld``), so a gate rule that needs the whole text (a ``.env`` dump, a
    private key block) saw it; file paths are as the calls named them
    (:mod:`driftguard.render.ledger` gates them, and passes every excerpt through the gate
    again, before anything is shown).

    Attributes:
        timestamp: when it happened, seconds since the epoch (UTC), or ``None``.
        trigger: ``"auto"`` or ``"manual"`` where the file says, else ``None``.
        tokens_before: the context size in tokens at the compaction where the file records
            it (Claude Code's ``preTokens``), else ``None``.
        dropped_files: files created or edited before it (tool calls of kind ``"edit"``,
            paths as the calls named them), at most 10, oldest first.
        dropped_constraints: the user's explicit constraint sentences ("always …",
            "never …", "don't …", "must …") from typed prompts, at most 5, oldest first
            (secret-gated, as above).
        dropped_errors: one line per failed tool result not fixed before it, at most 3,
            oldest first (secret-gated, as above).
        dropped_withheld: the gate's reason (``"a .env dump"`` …) for each dropped
            constraint or error whose whole source it withheld: counted, never shown (a
            withheld constraint counts towards the 5, a withheld error towards the 3).
        dropped_redactions: the secrets the gate replaced in ``dropped_constraints`` and
            ``dropped_errors`` (what the handoff counts as redacted).
        kept_files: the edited files among its candidates that it did not drop (named
            by its summary or what the host carried over, or named or targeted since),
            oldest first; with ``dropped_files`` at most 10.
        dropped_unknown: why what it dropped cannot be told (the file no longer holds the
            messages before it, e.g. a Gemini CLI ``.json`` rewritten whole), else ``None``.
    """

    timestamp: float | None = None
    trigger: CompactionTrigger | None = None
    tokens_before: int | None = None
    dropped_files: tuple[str, ...] = ()
    dropped_constraints: tuple[str, ...] = ()
    dropped_errors: tuple[str, ...] = ()
    dropped_unknown: str | None = None
    kept_files: tuple[str, ...] = ()
    dropped_withheld: tuple[str, ...] = ()
    dropped_redactions: tuple[Redaction, ...] = ()


@dataclass(frozen=True, slots=True)
class Session:
    """One session file, parsed.

    Attributes:
        cli: which CLI wrote the file.
        path: the file's path as given.
        session_id: the last session id the file names (``None`` when it names none);
            for Codex the file's own thread id (its first ``session_meta``), since a forked
            or subagent rollout names its parent's id after its own.
        cwd: the last working directory the file names, or ``None``.
        messages: what the model still remembers: the messages after the last compaction
            boundary, the compaction summary first (``is_summary=True``) when there is one.
        context_tokens: tokens in the context window at the latest real request after the
            last compaction, as the CLI itself reports them (docs/design.md §5.3), or the estimate
            ``floor(Σ len(content) / 4)`` when ``tokens_estimated``.
        context_window: the model's context window in tokens (docs/design.md §5.3).
        tokens_estimated: ``context_tokens`` is an estimate from characters, not usage.
        compactions: compaction boundaries seen in the whole file.
        skipped_lines: malformed, half-written or unknown records (counted, never fatal).
        model: the model of the latest real request, or ``None``.
        first_request_tokens: the context size of the first real request in the file,
            measured as ``context_tokens`` is (before any compaction: the host's system
            prompt, tool schemas and first prompt), or ``None`` when the file has no usage.
        compaction_ledger: one :class:`CompactionRecord` per compaction, oldest first; the
            adapters fill it so that ``len(compaction_ledger) == compactions``.
        peak_context_tokens: the largest context size of any real request in the whole
            file (before compactions too), measured as ``context_tokens`` is, or ``None``
            where the adapter does not track it (only Claude Code's does: a request past
            200,000 tokens proves its 1M window).
        messages_let_go: messages since the last compaction that the parser let go,
            oldest first, because their text passed what any model's window can hold
            (:data:`~driftguard.adapters._common.REMEMBERED_CHARS`, never reached by a
            real session); ``messages`` then holds the summary, the first prompt typed
            since the compaction and the latest messages. 0 otherwise.
    """

    cli: CliName
    path: str
    session_id: str | None
    cwd: str | None
    messages: tuple[ParsedMessage, ...]
    context_tokens: int
    context_window: int
    tokens_estimated: bool
    compactions: int
    skipped_lines: int
    model: str | None = None
    first_request_tokens: int | None = None
    compaction_ledger: tuple[CompactionRecord, ...] = ()
    peak_context_tokens: int | None = None
    messages_let_go: int = 0

    @property
    def message_count(self) -> int:
        """User + assistant messages (docs/design.md §5.1): the count shown to users."""
        return sum(1 for m in self.messages if m.role in ("user", "assistant") and not m.is_summary)

    @property
    def assistant_texts(self) -> tuple[str, ...]:
        """The remembered assistant messages' text, oldest first (what most factors read)."""
        return tuple(m.content for m in self.messages if m.role == "assistant" and not m.is_summary)


@dataclass(frozen=True, slots=True)
class GoalUse:
    """The goal a score used for goal distance, and where it came from.

    Attributes:
        text: the goal after the secret gate (what was scored, stored and shown).
        source: ``"given"`` with this call, or ``"remembered"`` from an earlier one.
        kept: later calls that give no goal use this one (it is stored for the session).
        set_at: when the stored goal was stored, seconds since the epoch; ``None`` for a
            goal given for this call only.
    """

    text: str
    source: GoalSource
    kept: bool
    set_at: float | None = None


NOT_IN_SESSION_FOLDER: Final = "not in a session folder"
"""Why a file has no history: the :attr:`Recording.reason` of its scores, and the
``not_recorded_reason`` of their reports. History and goals belong to a session file in a
session folder; a copy elsewhere would otherwise write into, or pick up the goal of, the
session it was copied from."""


@dataclass(frozen=True, slots=True)
class Recording:
    """Whether a score went into the session's history, and why not.

    Attributes:
        recorded: a snapshot was appended to the session's history.
        reason: why not, one line (``None`` when recorded): the file is not in a session
            folder, history is turned off, the score is a try-out with another preset,
            goal or context window than the ones in force, or the history could not be
            written.
    """

    recorded: bool
    reason: str | None = None


CalibrationKind = Literal["none", "personal"]
"""Which scales a score used: the default ones, or the user's own
(:mod:`driftguard.scoring.personal`)."""


@dataclass(frozen=True, slots=True)
class CalibrationUse:
    """The calibration a score used, and why not a personal one.

    Attributes:
        kind: ``"personal"`` (the user's own sessions set the scales and state lines) or
            ``"none"`` (the default scales).
        sessions: the sessions the reference was made from (personal; and for ``"none"``
            when a reference exists but has too few).
        needed: the sessions a reference needs before it applies by itself.
        host: the host of the reference (the session's), when one was looked for.
        model: the model family of the reference (the session's), when one was looked for.
        file: the calibration file, when one was read.
        reason: why the score is not calibrated (``None`` when it is), one line.
    """

    kind: CalibrationKind
    sessions: int | None = None
    needed: int | None = None
    host: str | None = None
    model: str | None = None
    file: str | None = None
    reason: str | None = None


CALIBRATION_NONE = CalibrationUse("none", reason="no calibration was asked for")
"""What a report says when its caller asked for no calibration at all."""
