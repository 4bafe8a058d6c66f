"""What runs after every turn of a host's session: the hooks (:mod:`.hooks`), the status
line (:mod:`.statusline`), ``driftguard watch`` (:mod:`.watch`) and ``driftguard status``
(:mod:`.status`).

A shell: may import the engine and every wing below it; never another shell (``cli``,
``server``, ``setup_scripts``). The hooks and the status line run as short processes
after every turn, so each module imports numpy, the adapters and the engine only where it
scores (``tests/test_layout.py`` checks the layers).
"""

__all__: list[str] = []
