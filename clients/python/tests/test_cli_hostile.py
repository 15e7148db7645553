"""
``python -m agentrun`` against a broken or hostile server (docs/python.md,
"Command line"), on the stub server: escape sequences in the server's and the agent's text are
shown as U+FFFD, ``--json`` reads back exact, and a malformed answer (not JSON, the wrong shape, a
repeated page cursor) is one line on stderr and exit 3, never a traceback.
"""

from __future__ import annotations

import io
import json
import os
import re
import unittest
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

from stub_server import Scripted, StubServer, problem
from support import free_port

from agentrun._cli import main

OSC_TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def run_item(run_id: str = "r1", **extra: Any) -> Dict[str, Any]:
    item = {"run_id": run_id, "task_id": run_id, "title": f"{OSC_TITLE}deploy{CLEAR}", "state": "SUCCEEDED", "prompt": "p"}
    item.update({"created_at": "2026-11-25T04:00:00.000Z", "updated_at": "2026-11-25T04:00:00.000Z"})
    item.update(extra)
    return item


def json_answer(value: Any) -> Scripted:
    return Scripted(200, json.dumps(value).encode(), {"content-type": "application/json"})


def page(run_id: str, next_cursor: Optional[str]) -> Scripted:
    return json_answer({"runs": [run_item(run_id)], "page_info": {"has_next_page": next_cursor is not None, "next_cursor": next_cursor}})


class HostileServerTest(unittest.TestCase):
    def cli(self, script: List[Scripted], *argv: str) -> Tuple[int, str, str]:
        server = StubServer(script)
        self.addCleanup(server.close)
        return self.cli_at(server.url, *argv)

    def cli_at(self, url: str, *argv: str) -> Tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.dict(os.environ, {"AGENTRUN_API_KEY": "ar_stub_key_000000"}):
            code = main(["--base-url", url, "--timeout", "5", *argv], out, err)
        self.assertNotIn("Traceback", err.getvalue())
        self.assertNotRegex(out.getvalue() + err.getvalue(), RAW_CONTROL)
        return code, out.getvalue(), err.getvalue()

    def test_a_run_title_and_status_are_shown_not_run(self) -> None:
        code, out, _ = self.cli([json_answer(run_item(status_message={"message": f"failed {CLEAR}"}))], "runs", "get", "r1")
        self.assertEqual(code, 0)
        self.assertIn("\ufffd]0;pwned\ufffddeploy\ufffd[2J", out)
        self.assertIn("failed \ufffd[2J", out)

    def test_a_listed_title_is_shown_not_run(self) -> None:
        code, out, _ = self.cli([page("r1", None)], "runs", "list")
        self.assertEqual(code, 0)
        self.assertIn("\ufffd]0;pwned\ufffddeploy\ufffd[2J", out)

    def test_agent_output_of_a_followed_run(self) -> None:
        events = [
            {"id": 1, "at": "2026-11-25T04:00:01Z", "type": "output", "data": {"text": f"hello {OSC_TITLE}{CLEAR}world"}},
            {"id": 2, "at": "2026-11-25T04:00:02Z", "type": "state", "data": {"from": "INPROGRESS", "to": "SUCCEEDED"}},
        ]
        stream = "".join(f"id: {e['id']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
        script = [
            json_answer({"run_id": "r1", "task_id": "r1", "state": "QUEUED"}),
            Scripted(200, stream, {"content-type": "text/event-stream"}),
            json_answer(run_item()),
        ]
        code, out, _ = self.cli(script, "run", "hi", "--follow")
        self.assertEqual(code, 0)
        self.assertIn("hello \ufffd]0;pwned\ufffd\ufffd[2Jworld", out)

    def test_json_reads_back_exact(self) -> None:
        code, out, _ = self.cli([json_answer(run_item(note="\x7f\x9b"))], "runs", "get", "r1", "--json")
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out), run_item(note="\x7f\x9b"))

    def test_an_error_detail_is_shown_not_run(self) -> None:
        code, _, err = self.cli([problem(404, "not_found", detail=f"run {OSC_TITLE}gone", request_id=f"req{CLEAR}")], "runs", "get", "r1")
        self.assertEqual(code, 3)
        self.assertIn("run \ufffd]0;pwned\ufffdgone", err)
        self.assertIn("req\ufffd[2J", err)

    def test_a_200_that_is_not_json_exits_3(self) -> None:
        code, out, err = self.cli([Scripted(200, b"<html>proxy</html>", {"content-type": "text/html"})], "runs", "get", "r1")
        self.assertEqual((code, out), (3, ""))
        self.assertIn("not JSON", err)
        self.assertEqual(err.count("\n"), 1)

    def test_answers_of_the_wrong_shape_exit_3(self) -> None:
        cases = [
            ([json_answer({"id": "r1", "name": "not a run"})], ("runs", "get", "r1")),
            ([json_answer(["not", "a", "run"])], ("runs", "get", "r1")),
            ([json_answer({"runs": "none", "page_info": {}})], ("runs", "list")),
            ([json_answer({"runs": [{"run_id": 1}], "page_info": {"has_next_page": False}})], ("runs", "list")),
            ([json_answer({"run_id": "r1"})], ("run", "hi")),
        ]
        for script, argv in cases:
            with self.subTest(argv=argv, body=script[0].body):
                code, out, err = self.cli(script, *argv)
                self.assertEqual((code, out), (3, ""))
                self.assertIn("malformed", err)
                self.assertEqual(err.count("\n"), 1)

    def test_a_repeated_cursor_ends_the_listing(self) -> None:
        # The first page points at a, a at b, b at a again: without the check this pages forever.
        code, out, err = self.cli([page("r0", "a"), page("ra", "b"), page("rb", "a"), page("r?", "c")], "runs", "list", "--limit", "100")
        self.assertEqual((code, out), (3, ""))
        self.assertIn("cursor", err)

    def test_no_answer_exits_4_in_one_line(self) -> None:
        code, _, err = self.cli_at(f"http://127.0.0.1:{free_port()}", "runs", "get", "r1")
        self.assertEqual(code, 4)
        self.assertEqual(err.count("\n"), 1)


if __name__ == "__main__":
    unittest.main()
