"""What a compaction does to a session: the ledger of what each compaction dropped and kept
(:mod:`.ledger`), the room left before the host compacts (:mod:`.budget`), and the types
of where a host compacts (:mod:`.window`).

Pure: functions and frozen dataclasses over :mod:`driftguard.model`. May import the
ground modules (``driftguard.model``, ``errors``, ``text``, ``format``, ``terminal``,
``secrets``, …) and :mod:`driftguard.config`; never ``adapters``, ``sessions``,
``store``, ``scoring`` or anything above them (``tests/test_layout.py`` checks it).
"""

__all__: list[str] = []
