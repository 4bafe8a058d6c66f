"""Which session file is meant, and reading it fast: discovery of a project's sessions
across the sources (:mod:`.discovery`), resolving the session a command or a tool call
names (:mod:`.resolve`, with the hooks' pointers, :mod:`.pointers`), the hosts' names and
environment markers (:mod:`.hosts`), and the incremental parse cache
(:mod:`.incremental`).

May import ``adapters``, ``scoring``, ``compaction``, ``config``, ``presets`` and the
ground modules; never ``store``, ``render``, ``engine`` or a shell (``tests/test_layout.py``
checks it).
"""

__all__: list[str] = []
