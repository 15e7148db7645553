"""
What the reference server cannot be made to answer on purpose, on a stub HTTP server
(stub_server.py): a 403 (the real server's 403 needs a key minted in its process; on PostgreSQL
test_live.py inserts one and gets the real answer), 422, 429, 5xx and other statuses, the retry
headers, a refused connection, a silent server, and a stream that is not an event stream.
"""

from __future__ import annotations

import json
import unittest
from typing import List

from stub_server import Scripted, StubServer, problem
from support import free_port

import agentrun
from agentrun import (
    AgentRunError,
    APIConnectionError,
    APIConnectionTimeoutError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)

RUN = {"run_id": "r1", "task_id": "r1", "state": "QUEUED"}
OK = Scripted(200, json.dumps(RUN).encode(), {"content-type": "application/json"})


class StubTestCase(unittest.TestCase):
    def stub(self, script: List[Scripted]) -> StubServer:
        server = StubServer(script)
        self.addCleanup(server.close)
        return server

    def client(self, server: StubServer, **options: object) -> agentrun.Client:
        return agentrun.Client(api_key="ar_stub_key_000000", base_url=server.url, **options)  # type: ignore[arg-type]


class ErrorClassesTest(StubTestCase):
    def test_each_status_has_its_class_with_the_problem_fields(self) -> None:
        cases = [
            (400, "invalid_request", BadRequestError),
            (401, "unauthorized", AuthenticationError),
            (403, "forbidden", PermissionDeniedError),
            (404, "not_found", NotFoundError),
            (409, "conflict", ConflictError),
            (422, "unprocessable", UnprocessableEntityError),
            (429, "rate_limited", RateLimitError),
            (500, "internal_error", InternalServerError),
            (503, "unavailable", InternalServerError),
            (418, "teapot", APIError),
        ]
        for status, code, error_class in cases:
            with self.subTest(status=status):
                server = self.stub([problem(status, code, headers={"x-request-id": "hdr-id"}, errors=[{"path": "a.b", "detail": "bad"}])])
                with self.assertRaises(error_class) as caught:
                    self.client(server, max_retries=0).runs.get("r1")
                error = caught.exception
                self.assertIs(type(error), error_class)
                self.assertIsInstance(error, APIError)
                self.assertIsInstance(error, AgentRunError)
                self.assertEqual(error.status, status)
                self.assertEqual(error.error, code)
                self.assertEqual(error.type, f"urn:agentrun:error:{code}")
                self.assertEqual(error.detail, f"stub {code}")
                self.assertEqual(error.request_id, "req-stub")
                self.assertEqual(error.errors, [{"path": "a.b", "detail": "bad"}])
                self.assertEqual(error.headers["x-request-id"], "hdr-id")
                self.assertEqual(error.body["status"], status)
                self.assertIn(f"stub {code}", str(error))

    def test_a_body_that_is_not_json_is_kept_as_text_and_the_request_id_comes_from_the_header(self) -> None:
        server = self.stub([Scripted(502, b"Bad gateway from a proxy", {"x-request-id": "abc"})])
        with self.assertRaises(InternalServerError) as caught:
            self.client(server, max_retries=0).runs.get("r1")
        self.assertEqual(caught.exception.body, "Bad gateway from a proxy")
        self.assertIsNone(caught.exception.error)
        self.assertEqual(caught.exception.request_id, "abc")


class RetriesTest(StubTestCase):
    def test_429_and_5xx_are_retried_with_the_same_idempotency_key_then_raised(self) -> None:
        server = self.stub([problem(429, "rate_limited", headers={"retry-after": "0"})] * 3)
        with self.assertRaises(RateLimitError):
            self.client(server, max_retries=2).runs.create(prompt="x")
        self.assertEqual(len(server.seen), 3)
        keys = {headers["idempotency-key"] for _, _, headers in server.seen}
        self.assertEqual(len(keys), 1)

    def test_a_retried_call_that_then_succeeds_answers(self) -> None:
        server = self.stub([problem(500, "internal_error", headers={"retry-after-ms": "0"}), problem(408, "timeout", headers={"retry-after-ms": "0"}), OK])
        self.assertEqual(self.client(server).runs.create(prompt="x", idempotency_key="given-key")["run_id"], "r1")
        self.assertEqual([headers["idempotency-key"] for _, _, headers in server.seen], ["given-key"] * 3)

    def test_x_should_retry_decides(self) -> None:
        server = self.stub([problem(503, "unavailable", headers={"x-should-retry": "false"})])
        with self.assertRaises(InternalServerError):
            self.client(server).runs.get("r1")
        self.assertEqual(len(server.seen), 1)
        server = self.stub([problem(400, "invalid_request", headers={"x-should-retry": "true", "retry-after-ms": "0"}), OK])
        self.assertEqual(self.client(server).runs.get("r1")["run_id"], "r1")
        self.assertEqual(len(server.seen), 2)

    def test_a_call_sets_its_own_max_retries_and_gets_no_key_unless_a_post(self) -> None:
        server = self.stub([problem(503, "unavailable", headers={"retry-after-ms": "0"})] * 5)
        with self.assertRaises(InternalServerError):
            self.client(server, max_retries=4).runs.get("r1", max_retries=1)
        self.assertEqual(len(server.seen), 2)
        self.assertNotIn("idempotency-key", server.seen[0][2])
        self.assertEqual(server.seen[0][2]["authorization"], "Bearer ar_stub_key_000000")
        self.assertEqual(server.seen[0][1], "/api/v1/agent/runs/r1")


class NoAnswerTest(StubTestCase):
    def test_a_refused_connection_is_an_api_connection_error_after_the_retries(self) -> None:
        client = agentrun.Client(api_key="ar_stub_key_000000", base_url=f"http://127.0.0.1:{free_port()}", max_retries=1)
        with self.assertRaises(APIConnectionError) as caught:
            client.runs.get("r1")
        self.assertNotIsInstance(caught.exception, APIConnectionTimeoutError)


class StreamAnswersTest(StubTestCase):
    def test_an_answer_that_is_not_an_event_stream_is_an_agentrun_error(self) -> None:
        server = self.stub([Scripted(200, b'{"events":[]}', {"content-type": "application/json"})])
        with self.assertRaises(AgentRunError) as caught:
            list(self.client(server).runs.stream("r1"))
        self.assertIn("text/event-stream", str(caught.exception))
        self.assertEqual(server.seen[0][2]["accept"], "text/event-stream")

    def test_data_that_is_not_a_run_event_is_an_agentrun_error(self) -> None:
        for data in (b"data: not json\n\n", b'data: {"no":"id"}\n\n'):
            server = self.stub([Scripted(200, data, {"content-type": "text/event-stream"})])
            with self.assertRaises(AgentRunError):
                list(self.client(server).runs.stream("r1"))

    def test_a_stream_the_server_ends_ends_the_iteration(self) -> None:
        events = b"".join(b'id: %d\ndata: {"id":%d,"at":"t","type":"output","data":{}}\n\n' % (i, i) for i in (1, 2, 3))
        server = self.stub([Scripted(200, events, {"content-type": "text/event-stream"})])
        self.assertEqual([event["id"] for event in self.client(server).runs.stream("r1", after=1)], [2, 3])
        self.assertEqual(server.seen[0][2]["last-event-id"], "1")


class WaitTest(StubTestCase):
    def test_with_a_timeout_a_failed_look_is_retried_by_the_polling(self) -> None:
        running = {"run_id": "r1", "task_id": "r1", "title": "t", "state": "INPROGRESS", "prompt": "p", "created_at": "x", "updated_at": "x"}
        done = dict(running, state="SUCCEEDED")
        as_json = {"content-type": "application/json"}
        script = [Scripted(200, json.dumps(running).encode(), as_json), problem(503, "unavailable"), Scripted(200, json.dumps(done).encode(), as_json)]
        server = self.stub(script)
        self.assertEqual(self.client(server).runs.wait("r1", poll_interval=0, timeout=30)["state"], "SUCCEEDED")
        self.assertEqual(len(server.seen), 3)

    def test_past_its_timeout_it_is_a_wait_timeout_error_with_the_last_state(self) -> None:
        running = {"run_id": "r1", "task_id": "r1", "title": "t", "state": "CLAIMED", "prompt": "p", "created_at": "x", "updated_at": "x"}
        server = self.stub([Scripted(200, json.dumps(running).encode(), {"content-type": "application/json"})] * 200)
        with self.assertRaises(agentrun.WaitTimeoutError) as caught:
            self.client(server).runs.wait("r1", poll_interval=0.01, timeout=0.2)
        self.assertEqual((caught.exception.run_id, caught.exception.last_state), ("r1", "CLAIMED"))


class BadInputTest(unittest.TestCase):
    def test_bad_construction_and_arguments_are_clear_errors(self) -> None:
        with self.assertRaisesRegex(ValueError, "api_key is required"):
            agentrun.Client(api_key="", base_url="http://x")
        with self.assertRaisesRegex(ValueError, "http"):
            agentrun.Client(api_key="k", base_url="ftp://x")
        with self.assertRaisesRegex(ValueError, "timeout"):
            agentrun.Client(api_key="k", base_url="http://x", timeout=0)
        with self.assertRaisesRegex(ValueError, "max_retries"):
            agentrun.Client(api_key="k", base_url="http://x", max_retries=-1)
        client = agentrun.Client(api_key="k", base_url="http://127.0.0.1:9")
        with self.assertRaisesRegex(ValueError, "runId is required"):
            client.runs.get("")
        with self.assertRaisesRegex(ValueError, "unknown operation"):
            client.request("noSuchOperation")
        with self.assertRaisesRegex(ValueError, "cannot be sent as JSON"):
            client.runs.create(prompt="x", metadata={"k": object()})  # type: ignore[dict-item]
        with self.assertRaisesRegex(ValueError, "poll_interval"):
            client.runs.wait("r1", poll_interval=-1)
        with self.assertRaisesRegex(ValueError, "timeout"):
            client.runs.get("r1", timeout=-1)


if __name__ == "__main__":
    unittest.main()
