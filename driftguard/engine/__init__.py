"""The verbs both shells call: score a session with its config, goal and history
(:mod:`.drift`), its trend (:mod:`.trend`), its handoff (:mod:`.handoff`), where its host
compacts (:mod:`.window`) and its score after every turn (:mod:`.timeline`).

May import every wing below it (``render``, ``store``, ``sessions``, ``adapters``,
``scoring``, ``compaction``, ``config``, ``presets``, the ground modules); never a shell
(``cli``, ``server``, ``live``, ``setup_scripts``): what only a shell knows, such as
whether a host's hook is installed, is passed in (``tests/test_layout.py`` checks it).
"""

__all__: list[str] = []
