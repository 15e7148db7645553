"""
The package used from a checkout without installing it (docs/python.md, "From a checkout"): with
``PYTHONPATH=clients/python/src`` (the package's own folder), and with ``PYTHONPATH=clients/python``
(the shim clients/python/agentrun/__init__.py hands over to the same package), ``import agentrun``,
its submodules and ``python -m agentrun`` all work, and are the files under src/.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

from support import PACKAGE_ROOT, REPO_ROOT

PROBE = "import agentrun, agentrun.types, agentrun.resources.runs; print(agentrun.__file__); print(agentrun.types.__file__); print(agentrun.Client.__module__)"


def python(pythonpath: str, *args: str) -> "subprocess.CompletedProcess[str]":
    """A Python started from the repository's root with only ``pythonpath`` added to its path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = pythonpath
    return subprocess.run([sys.executable, *args], cwd=REPO_ROOT, capture_output=True, text=True, env=env, timeout=60)


class CheckoutTest(unittest.TestCase):
    def test_both_pythonpaths_import_the_package_under_src(self) -> None:
        src = PACKAGE_ROOT / "src" / "agentrun"
        for pythonpath in ("clients/python/src", "clients/python"):
            with self.subTest(PYTHONPATH=pythonpath):
                done = python(pythonpath, "-c", PROBE)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(
                    done.stdout.splitlines(),
                    [str(src / "__init__.py"), str(src / "types.py"), "agentrun._client"],
                )

    def test_both_pythonpaths_run_python_m_agentrun(self) -> None:
        version = python("clients/python/src", "-c", "import agentrun; print(agentrun.__version__)").stdout.strip()
        for pythonpath in ("clients/python/src", "clients/python"):
            with self.subTest(PYTHONPATH=pythonpath):
                done = python(pythonpath, "-m", "agentrun", "--version")
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn(version, done.stdout)

    def test_without_either_there_is_no_agentrun_to_import(self) -> None:
        # So the two passing cases above owe their success to the PYTHONPATH, not to an installed copy.
        done = python("", "-c", "import agentrun")
        if done.returncode == 0:
            self.skipTest("an agentrun is installed in this Python; the checkout's layouts are still checked above")
        self.assertIn("No module named 'agentrun'", done.stderr)


if __name__ == "__main__":
    unittest.main()
