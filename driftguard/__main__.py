"""``python -m driftguard`` runs the command line."""

import sys

from driftguard.cli import main

sys.exit(main())
