"""The package's version is the TypeScript client's (the two are released in step), in the code and in pyproject.toml."""

from __future__ import annotations

import json
import re
import unittest

from support import PACKAGE_ROOT, REPO_ROOT

import agentrun


class VersionTest(unittest.TestCase):
    def test_matches_the_typescript_client(self) -> None:
        ts_version = json.loads((REPO_ROOT / "packages/client/package.json").read_text())["version"]
        self.assertEqual(agentrun.__version__, ts_version)
        pyproject = (PACKAGE_ROOT / "pyproject.toml").read_text()
        match = re.search(r'^version = "([^"]+)"$', pyproject, re.MULTILINE)
        self.assertIsNotNone(match)
        assert match is not None
        self.assertEqual(match.group(1), ts_version)


if __name__ == "__main__":
    unittest.main()
