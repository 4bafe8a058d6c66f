"""What a person or a model reads: the text and JSON report (:mod:`.text`), the
compaction ledger as shown (:mod:`.ledger`), the trend (:mod:`.trend`) and the HTML page
(:mod:`.html`).

Pure: strings from reports. May import ``scoring``, ``compaction``, ``config``,
``presets`` and the ground modules; never ``adapters``, ``sessions``, ``store``, the
engine or a shell (``tests/test_layout.py`` checks it).
"""

__all__: list[str] = []
