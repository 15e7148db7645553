"""
The checkout's shim (docs/python.md, "From a checkout"): with ``PYTHONPATH=clients/python``,
``import agentrun`` lands here; it imports the real package from ``src/`` and puts it in its own
place, so ``agentrun`` is one module either way. Not part of the installed package.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
del sys.modules[__name__]
import agentrun  # noqa: E402  (the package under src/, now first on the path)

sys.modules[__name__] = agentrun
