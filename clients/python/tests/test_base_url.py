"""
``base_url`` is where agentrun is mounted (docs/python.md, "Construct"): one written for the
published ``oz-agent-sdk`` clients, ending in ``/api/v1``, reaches the same routes instead of
``/api/v1/api/v1/…``. Checked on the stub server (stub_server.py), which records each path asked for.
"""

from __future__ import annotations

import json
import unittest
from typing import List, Tuple

import support  # noqa: F401  (puts the package on the path)
from stub_server import Scripted, StubServer

import agentrun

RUN = Scripted(200, json.dumps({"run_id": "r1", "task_id": "r1", "state": "QUEUED"}).encode(), {"content-type": "application/json"})


class BaseUrlTest(unittest.TestCase):
    def read_run(self, suffix: str) -> Tuple[str, List[str]]:
        """The client's ``base_url`` on the stub's origin + ``suffix``, and the paths a ``runs.get`` asked for."""
        server = StubServer([RUN])
        self.addCleanup(server.close)
        client = agentrun.Client(api_key="ar_stub_key_000000", base_url=server.url + suffix, max_retries=0)
        self.assertEqual(client.runs.get("r1")["run_id"], "r1")
        return client.base_url[len(server.url) :], [path for _, path, _ in server.seen]

    def test_a_url_ending_in_api_v1_is_taken_back_to_the_mount(self) -> None:
        cases = [
            ("", ""),
            ("/", ""),
            ("/api/v1", ""),
            ("/api/v1/", ""),
            ("/agents", "/agents"),
            ("/agents/api/v1//", "/agents"),
        ]
        for suffix, mount in cases:
            with self.subTest(base_url=suffix):
                self.assertEqual(self.read_run(suffix), (mount, [f"{mount}/api/v1/agent/runs/r1"]))

    def test_api_v1_elsewhere_in_the_url_is_kept(self) -> None:
        # Only a final /api/v1 of the path goes: another version, or a segment that merely ends alike, stays.
        self.assertEqual(self.read_run("/api/v2")[1], ["/api/v2/api/v1/agent/runs/r1"])
        self.assertEqual(self.read_run("/myapi/v1")[1], ["/myapi/v1/api/v1/agent/runs/r1"])
        # A host named api with the path /v1 is not a path ending in /api/v1.
        self.assertEqual(agentrun.Client(api_key="k", base_url="http://api/v1").base_url, "http://api/v1")


if __name__ == "__main__":
    unittest.main()
