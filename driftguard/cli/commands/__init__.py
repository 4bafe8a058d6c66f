"""One module per ``driftguard`` command, each with ``DESCRIPTION``, ``add_arguments(parser)``
and ``run(args) -> int``; :data:`driftguard.cli.COMMANDS` names them by module path, so only
the command being run is imported.
"""

__all__: list[str] = []
