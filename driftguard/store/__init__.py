"""driftguard's own files: the score history and remembered goals (:mod:`.history`), the
status-line cache (:mod:`.livecache`), and saved handoffs (:mod:`.handoff_files`).

No policy: what is recorded, kept or handed over is the engine's to decide. May import
``sessions``, ``adapters``, ``scoring``, ``compaction``, ``config``, ``presets`` and the
ground modules; never ``render``, ``engine`` or a shell (``tests/test_layout.py`` checks
it).
"""

__all__: list[str] = []
