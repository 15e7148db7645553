"""``python -m agentrun``: the small command line (``_cli.py``)."""

import sys

from ._cli import main

sys.exit(main())
