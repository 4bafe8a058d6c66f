"""The background sender: one daemon thread per process that works through the recorded
scores handed to it, so that the caller (a hook, a tool call, ``driftguard score``) never
waits for a collector. At exit, the process waits for what is still being sent until the
last score's deadline (:data:`~driftguard.telemetry.settings.BUDGET_SECONDS` after it was
handed over), then exits anyway. Every problem costs one line on stderr per process, the
first; nothing here raises into the caller."""

from __future__ import annotations

import atexit
import contextlib
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

_PREFIX = "driftguard: warning: telemetry: "


@dataclass(frozen=True, slots=True)
class Job:
    """One recorded score to send: ``work`` does it, within ``deadline`` (a
    :func:`time.monotonic` time), and returns the problems to say (``[]``: none)."""

    work: Callable[[float], list[str]]
    deadline: float


class Sender:
    """The process's sender (module docstring)."""

    def __init__(self) -> None:
        self._jobs: deque[Job] = deque()
        self._lock = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None
        self._at_exit = False
        self._last_deadline = 0.0
        self.warned = False

    def submit(self, job: Job) -> None:
        """Queue ``job`` and return at once; the first call starts the thread and asks the
        interpreter to :meth:`flush` at exit."""
        with self._lock:
            self._jobs.append(job)
            self._last_deadline = max(self._last_deadline, job.deadline)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="driftguard-telemetry", daemon=True
                )
                self._thread.start()
            if not self._at_exit:
                _at_exit(self._flush_at_exit)
                self._at_exit = True
            self._lock.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued score is sent (or given up), at most ``timeout`` seconds
        (``None``: until the last deadline). Returns whether all were done."""
        end = self._last_deadline if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._jobs or self._busy:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def warn(self, line: str) -> None:
        """Say ``line`` on stderr unless this process already said one (never raises)."""
        with self._lock:
            if self.warned:
                return
            self.warned = True
        # a closed stderr leaves nothing else to tell it with
        with contextlib.suppress(OSError, ValueError):
            print(_PREFIX + line, file=sys.stderr, flush=True)

    def _flush_at_exit(self) -> None:
        if not self.flush():
            self.warn(
                "the collector did not answer in time; the process exited without waiting "
                "longer (scores are not affected)"
            )

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._jobs:
                    self._lock.wait()
                job = self._jobs.popleft()
                self._busy = True
            try:
                problems = job.work(job.deadline)
            except Exception as exc:  # noqa: BLE001 - sending must never break the process
                problems = [f"could not send ({type(exc).__name__}); scores are not affected"]
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()
            if problems:
                self.warn("; ".join(problems))


def _at_exit(flush: Callable[[], None]) -> None:
    """Run ``flush`` when the interpreter exits, *before* ``concurrent.futures`` shuts its
    executors down: the SDK runs its resource detectors in a thread pool, and a hook's
    process often exits while the score is still being sent. Threading's exit functions
    run before ``atexit``'s, last registered first, so ``concurrent.futures.thread`` (which
    registers one when imported) is imported before ``flush`` is registered. Without that
    private hook (another Python), ``atexit``."""
    import concurrent.futures.thread  # noqa: F401 - registers its exit function first

    register = getattr(threading, "_register_atexit", None)
    if register is None:
        atexit.register(flush)
        return
    try:
        register(flush)
    except RuntimeError:  # already exiting: nothing will wait, but nothing breaks either
        atexit.register(flush)
