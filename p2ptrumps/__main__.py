"""``python -m p2ptrumps``: the same as the ``p2ptrumps`` command."""

import sys

from .commands.main import main

sys.exit(main())
