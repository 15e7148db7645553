"""
``client.agents.harnesses()`` against the reference server on the process executor (docs/python.md,
"Resources"): the agent CLIs it runs, each with the version its CLI reported, the default marked.
The CLI is a stand-in script that only answers ``--version``: no run is started, so nothing else
of it is asked. The demo executor's empty list is in test_live.py.
"""

from __future__ import annotations

import stat
import tempfile
import unittest
from pathlib import Path
from typing import ClassVar

from support import ReferenceServer

import agentrun
from agentrun.types import HarnessList


class HarnessesTest(unittest.TestCase):
    server: ClassVar[ReferenceServer]
    home: ClassVar[tempfile.TemporaryDirectory[str]]

    @classmethod
    def setUpClass(cls) -> None:
        cls.home = tempfile.TemporaryDirectory(prefix="agentrun-py-harness-")
        claude = Path(cls.home.name) / "claude"
        claude.write_text('#!/bin/sh\necho "9.8.7 (Claude Code)"\n')
        claude.chmod(claude.stat().st_mode | stat.S_IXUSR)
        cls.server = ReferenceServer(
            3_600_000,
            extra_env={
                "AGENTRUN_EXECUTOR": "process",
                "AGENTRUN_HARNESSES": "claude",
                "AGENTRUN_CLAUDE_PATH": str(claude),
                "AGENTRUN_DEFAULT_HARNESS": "claude",
                # The command harness too, which has no version to report.
                "AGENTRUN_AGENT_COMMAND": "true",
            },
        )
        try:
            cls.server.wait_until_listening()
        except BaseException:
            cls.home.cleanup()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()
        cls.home.cleanup()

    def test_lists_each_harness_with_its_version_and_the_default_marked(self) -> None:
        client = agentrun.Client(api_key=self.server.api_key, base_url=self.server.url)
        listed: HarnessList = client.agents.harnesses()
        self.assertEqual(listed, {"harnesses": [{"type": "claude", "version": "9.8.7", "default": True}, {"type": "command"}]})
        self.assertEqual([h["type"] for h in listed["harnesses"] if h.get("default")], ["claude"])


if __name__ == "__main__":
    unittest.main()
