"""
The shared suite (docs/python.md, "What the tests prove"): the same tests against the reference
server, started as a child process, on the memory store and on PostgreSQL (a schema of its own per
server, dropped after; skipped with a message when no PostgreSQL answers, unless CI=true). Each
store gets two servers: ``held``, whose demo agent works for an hour (its runs stay cancellable),
and ``finishing``, whose demo agent finishes a run in 200 ms (for ``wait()`` and ``stream()``).
The answers are the servers' own; what a server cannot be made to do on purpose (answer 503, drop a
connection, hang, cut a stream) is a proxy in front of it (faulty_proxy.py).

The 403: the real server's only key may manage factories, and a key without ``manage_factory`` is
minted in its process in the TypeScript suite. Here, on PostgreSQL, one is inserted into the
server's ``api_keys`` table with psql, so the 403 is the server's own; on the memory store it is
covered by the stub server (test_stub.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import secrets
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, Dict, List, Optional, cast
from unittest import mock
from urllib.parse import urlsplit

from faulty_proxy import FaultyProxy
from support import ReferenceServer, find_postgres, psql, start_servers

import agentrun
from agentrun import (
    APIConnectionTimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    WaitTimeoutError,
)
from agentrun._cli import main
from agentrun.types import AttachmentInput

POSTGRES_URL = find_postgres()


class LiveSuite:
    """The tests; run by a subclass per store (``database_url`` None: memory)."""

    database_url: ClassVar[Optional[str]] = None
    held: ClassVar[ReferenceServer]
    finishing: ClassVar[ReferenceServer]

    @classmethod
    def setUpClass(cls) -> None:
        cls.held, cls.finishing = start_servers(3_600_000, 200, database_url=cls.database_url)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.held.stop()
        cls.finishing.stop()

    # unittest.TestCase's assertions, for the type checker.
    assertEqual: Any
    assertTrue: Any
    assertIn: Any
    assertNotIn: Any
    assertNotEqual: Any
    assertRaises: Any
    assertGreater: Any
    assertIsNone: Any
    addCleanup: Any
    subTest: Any

    @property
    def kind(self) -> str:
        return "postgres" if self.database_url else "memory"

    def client(self, server: Optional[ReferenceServer] = None, base_url: Optional[str] = None, **options: Any) -> agentrun.Client:
        server = server or self.held
        return agentrun.Client(api_key=server.api_key, base_url=base_url or server.url, **options)

    def proxy(self, server: ReferenceServer, plan: List[str]) -> FaultyProxy:
        proxy = FaultyProxy(server.url, plan)
        self.addCleanup(proxy.close)
        return proxy

    def runs_titled(self, title: str) -> List[str]:
        return [run["run_id"] for run in self.client().runs.list(q=title, limit=200) if run["title"] == title]

    # ── runs and management

    def test_creates_gets_follows_up_cancels_and_reads_a_run(self) -> None:
        client = self.client()
        attachment: AttachmentInput = {"file_name": "trace.txt", "mime_type": "text/plain", "data": "aGVsbG8="}
        created = client.runs.create(prompt="Fix the flaky test", title="flaky", config={"name": "nightly"}, attachments=[attachment])
        self.assertEqual(created["state"], "QUEUED")
        run = client.runs.get(created["run_id"])
        self.assertEqual((run["run_id"], run["title"], run["prompt"]), (created["run_id"], "flaky", "Fix the flaky test"))
        self.assertEqual(run.get("agent_config", {}).get("name"), "nightly")
        self.assertEqual(client.runs.attachment(created["run_id"], "trace.txt"), b"hello")
        self.assertEqual(client.runs.followup(created["run_id"], "Also the other one")["run_id"], created["run_id"])
        self.assertEqual(client.runs.cancel(created["run_id"]), created["run_id"])
        self.assertEqual(client.runs.get(created["run_id"])["state"], "CANCELLED")
        with self.assertRaises(BadRequestError):
            client.runs.cancel(created["run_id"])  # it already ended
        events = client.runs.events(created["run_id"], limit=1000)
        self.assertGreater(len(events["events"]), 0)
        self.assertEqual([e["id"] for e in client.runs.events(created["run_id"], after=1)["events"]][:1], [2])
        self.assertIn("Fix the flaky test", client.runs.transcript(created["run_id"]))
        alias = client.request("createRun", body={"prompt": "through the alias"})
        self.assertEqual(client.runs.get(alias["run_id"])["prompt"], "through the alias")

    def test_sends_an_idempotency_key_on_every_post_and_the_given_one_when_given(self) -> None:
        proxy = self.proxy(self.held, [])
        client = self.client(base_url=proxy.url)
        client.runs.create(prompt="a")
        client.runs.create(prompt="b", idempotency_key=f"my-key-{self.kind}")
        next(iter(client.runs.list(limit=1, state=["QUEUED", "CANCELLED"])), None)  # the request is what counts
        (_, _, first), (_, _, second), (method, path, listing) = proxy.seen
        self.assertEqual(len(first["idempotency-key"]), 36)
        self.assertEqual(second["idempotency-key"], f"my-key-{self.kind}")
        self.assertNotIn("idempotency-key", listing)
        self.assertEqual((method, path), ("GET", "/api/v1/agent/runs?state=QUEUED&state=CANCELLED&limit=1&sort_by=created_at"))

    def test_manages_factories_secrets_webhooks_deliveries_and_automations(self) -> None:
        client = self.client()
        factory = client.factories.create("Python client factory")
        self.assertEqual(client.factories.get(factory["uid"])["uid"], factory["uid"])
        self.assertIn(factory["uid"], [f["uid"] for f in client.factories.list()["factories"]])

        client.secrets.put("PY_CLIENT_SECRET", "s3cret-value")
        self.assertNotIn("s3cret-value", json.dumps(client.secrets.list()))
        self.assertIn("PY_CLIENT_SECRET", [s["name"] for s in client.secrets.list()["secrets"]])
        client.secrets.delete("PY_CLIENT_SECRET")
        with self.assertRaises(NotFoundError):
            client.secrets.delete("PY_CLIENT_SECRET")

        webhook = client.webhooks.create(factory["uid"], "ci", auth_mode="url_token")
        uid = webhook["webhook"]["uid"]
        self.assertTrue(webhook.get("secret"))
        self.assertEqual(client.webhooks.get(factory["uid"], uid)["name"], "ci")
        self.assertEqual([w["uid"] for w in client.webhooks.list(factory["uid"])["webhooks"]], [uid])
        self.assertEqual(client.webhooks.update(factory["uid"], uid, delivery_id_header="X-Delivery")["delivery_id_header"], "X-Delivery")
        self.assertNotIn("delivery_id_header", client.webhooks.update(factory["uid"], uid, delivery_id_header=None))
        rotated = client.webhooks.rotate_secret(factory["uid"], uid)
        self.assertNotEqual(rotated.get("secret"), webhook.get("secret"))

        # A delivery through the ingress, then the log: list, get, payload.
        ingress = urlsplit(rotated["ingress_url"])
        request = urllib.request.Request(self.held.url + ingress.path, data=b'{"ref":"refs/heads/main"}', method="POST")
        request.add_header("content-type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as answer:
            self.assertEqual(answer.status, 202)
            delivery_id = json.loads(answer.read())["delivery_id"]
        deliveries = list(client.deliveries.list(factory["uid"], uid, limit=1))
        self.assertEqual([d["delivery_id"] for d in deliveries], [delivery_id])
        self.assertEqual(client.deliveries.get(factory["uid"], uid, delivery_id)["status"], "Accepted")
        self.assertEqual(client.deliveries.payload(factory["uid"], uid, delivery_id), b'{"ref":"refs/heads/main"}')
        resent = client.deliveries.resend(factory["uid"], uid, delivery_id, idempotency_key="resend-once")
        self.assertEqual(resent["delivery"]["resent_from"], delivery_id)
        self.assertEqual(client.deliveries.resend(factory["uid"], uid, delivery_id, idempotency_key="resend-once"), resent)
        self.assertEqual([d["resent_from"] for d in client.deliveries.list(factory["uid"], uid)], [delivery_id, None])

        signed = client.webhooks.create(factory["uid"], "stripe", auth_mode="signature", signature_scheme="stripe", provider_secret="whsec_first")
        signed_uid = signed["webhook"]["uid"]
        self.assertEqual(client.webhooks.put_provider_secret(factory["uid"], signed_uid, "whsec_second")["uid"], signed_uid)
        self.assertEqual(client.webhooks.update(factory["uid"], signed_uid, enabled=False)["enabled"], False)

        automation = client.automations.create(
            factory["uid"],
            name="On push",
            prompt="Look at the push",
            triggers=[{"provider": "webhook", "event": "received", "filter": {"webhook_ids": [uid], "payload": {"ref": ["refs/heads/main"]}}}],
        )
        self.assertEqual(client.automations.get(factory["uid"], automation["id"])["name"], "On push")
        self.assertEqual(client.automations.update(factory["uid"], automation["id"], enabled=False)["enabled"], False)
        verdict = client.automations.test_filter(factory["uid"], automation["id"], webhook_uid=uid, payload={"ref": "refs/heads/dev"})
        self.assertEqual(verdict["result"], "Would not trigger")
        stored = client.automations.test_filter(factory["uid"], automation["id"], delivery_id=delivery_id)
        self.assertIn(stored["result"], ("Would trigger", "Would not trigger"))
        self.assertEqual([a["id"] for a in client.automations.list(factory["uid"])["automations"]], [automation["id"]])
        client.automations.delete(factory["uid"], automation["id"])
        client.webhooks.delete(factory["uid"], uid)
        with self.assertRaises(NotFoundError):
            client.webhooks.get(factory["uid"], uid)

    def test_manages_run_state_callbacks(self) -> None:
        client = self.client()
        created = client.callbacks.create({"url": "https://hooks.example.com/py", "event_types": ["run.state_changed"]})
        callback_id = created["callback"]["id"]
        self.assertTrue(created["secret"].startswith("whsec_"))
        self.assertNotIn(created["secret"], json.dumps(client.callbacks.list()))
        self.assertEqual(client.callbacks.get(callback_id)["url"], "https://hooks.example.com/py")
        self.assertEqual(client.callbacks.update(callback_id, {"enabled": False})["disabled_reason"], "manual")
        self.assertEqual(client.callbacks.update(callback_id, {"enabled": True})["enabled"], True)
        self.assertNotEqual(client.callbacks.rotate_secret(callback_id)["secret"], created["secret"])
        self.assertEqual(client.callbacks.deliveries(callback_id, limit=10), {"deliveries": [], "page_info": {"has_next_page": False}})
        with self.assertRaises(NotFoundError):
            client.callbacks.resend(callback_id, "cbd_unknown")
        with self.assertRaises(BadRequestError):
            client.callbacks.create({"url": "http://169.254.169.254/latest"})
        client.callbacks.delete(callback_id)
        with self.assertRaises(NotFoundError):
            client.callbacks.get(callback_id)

    def test_applies_definitions_as_one_operation(self) -> None:
        client = self.client()
        factory = client.factories.create("Python apply factory")
        client.secrets.put("py-apply-token", secrets.token_hex(16))
        webhooks: Any = [{"name": "alerts", "auth_mode": "url_token", "secret_name": "py-apply-token"}]
        automations: Any = [
            {
                "name": "triage",
                "prompt": "Triage the alert",
                "triggers": [{"webhooks": ["alerts"], "payload": {"severity": ["critical"]}}],
            }
        ]
        plan = client.factories.apply(factory["uid"], webhooks=webhooks, automations=automations, dry_run=True)
        self.assertEqual((plan["applied"], plan["dry_run"]), (False, True))
        self.assertEqual([w["action"] for w in plan["webhooks"]], ["create"])
        self.assertEqual(client.webhooks.list(factory["uid"])["webhooks"], [])
        applied = client.factories.apply(factory["uid"], webhooks=webhooks, automations=automations)
        self.assertTrue(applied["applied"])
        self.assertEqual([w["name"] for w in client.webhooks.list(factory["uid"])["webhooks"]], ["alerts"])
        with self.assertRaises(BadRequestError) as caught:
            client.factories.apply(factory["uid"], webhooks=[{"name": "broken", "auth_mode": "url_token", "secret_name": "no-such-secret"}])
        self.assertTrue(caught.exception.errors)
        self.assertIn("webhooks.0", caught.exception.errors[0]["path"])

    def test_applies_a_factory_from_a_repository_commit_by_commit(self) -> None:
        # A real repository on disk, read by the server's git layer (docs/repositories.md, "Factories from a repository").
        root = tempfile.mkdtemp(prefix="agentrun-py-source-")
        bare, work = os.path.join(root, "factory.git"), os.path.join(root, "work")

        def git(*args: str, cwd: str = root) -> str:
            env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
            done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
            return done.stdout.strip()

        def commit(path: str, text: str) -> str:
            os.makedirs(os.path.dirname(os.path.join(work, path)), exist_ok=True)
            with open(os.path.join(work, path), "w") as f:
                f.write(text)
            git("add", "--all", cwd=work)
            git("commit", "--quiet", "-m", path, cwd=work)
            git("push", "--quiet", "origin", "main", cwd=work)
            return git("rev-parse", "HEAD", cwd=work)

        git("init", "--quiet", "--bare", "--initial-branch=main", bare)
        git("init", "--quiet", "--initial-branch=main", work)
        git("remote", "add", "origin", bare, cwd=work)
        client = self.client()
        name = f"py/source-{secrets.token_hex(4)}"
        client.secrets.put("py-source-token", secrets.token_hex(16))
        factory = client.factories.create("Python source factory")
        client.repositories.create(name, bare)
        first = commit("defs/webhooks/alerts.yaml", "authMode: url_token\nsecretName: py-source-token\n")
        source = client.sources.set(factory["uid"], {"repository": name, "directory": "defs"})
        self.assertEqual((source["branch"], source["directory"], source["last_apply"]), ("main", "defs", None))
        synced = client.sources.sync(factory["uid"])
        self.assertEqual((synced["commit"], synced["apply"]["status"]), (first, "applied"))
        self.assertEqual([w["name"] for w in client.webhooks.list(factory["uid"])["webhooks"]], ["alerts"])
        broken = commit("defs/webhooks/alerts.yaml", "authMode: url_token\nsecretName: no-such-secret\n")
        failed = client.sources.sync(factory["uid"])
        # This sync fails it, or the one that follows every apply in the background already did.
        self.assertEqual((failed["commit"], failed["apply"]["status"]), (broken, "failed"))
        self.assertIn(failed["outcome"], ("failed", "already"))
        self.assertEqual((failed["apply"]["errors"][0]["path"], failed["apply"]["errors"][0]["line"]), ("defs/webhooks/alerts.yaml", 2))
        self.assertEqual(client.sources.get(factory["uid"])["last_applied"]["commit"], first)
        self.assertEqual([a["commit"] for a in client.sources.applies(factory["uid"], limit=1)], [broken, first])
        client.sources.clear(factory["uid"])
        with self.assertRaises(NotFoundError):
            client.sources.get(factory["uid"])

    # ── retries and timeouts

    def test_a_server_that_fails_twice_then_succeeds_makes_exactly_one_run_under_one_idempotency_key(self) -> None:
        proxy = self.proxy(self.held, ["503", "drop"])
        title = f"retry-once-{self.kind}-{secrets.token_hex(3)}"
        created = self.client(base_url=proxy.url).runs.create(prompt="exactly once", title=title)
        self.assertEqual(len(proxy.seen), 3)
        keys = {headers["idempotency-key"] for _, _, headers in proxy.seen}
        self.assertEqual(len(keys), 1)
        self.assertEqual(self.runs_titled(title), [created["run_id"]])

    def test_a_409_marked_x_should_retry_false_is_not_retried(self) -> None:
        proxy = self.proxy(self.held, [])
        client = self.client(base_url=proxy.url, max_retries=2)
        key = f"no-retry-{secrets.token_hex(4)}"
        client.runs.create(prompt="one", idempotency_key=key)
        with self.assertRaises(ConflictError) as caught:
            client.runs.create(prompt="other", idempotency_key=key)
        self.assertEqual(len(proxy.seen), 2)
        self.assertEqual(caught.exception.error, "idempotency_conflict")
        self.assertEqual(caught.exception.headers["x-should-retry"], "false")

    def test_a_late_answer_is_a_timeout_and_a_call_sets_its_own_timeout(self) -> None:
        proxy = self.proxy(self.held, ["hang", "hang", "slow", "slow"])
        hasty = self.client(base_url=proxy.url, max_retries=0, timeout=0.2)
        with self.assertRaises(APIConnectionTimeoutError):
            hasty.runs.get("missing")
        patient = self.client(base_url=proxy.url, max_retries=0)
        with self.assertRaises(APIConnectionTimeoutError):
            patient.runs.get("missing", timeout=0.2)
        with self.assertRaises(APIConnectionTimeoutError):
            hasty.runs.get("missing")  # slow: later than 0.2 s
        with self.assertRaises(NotFoundError):
            hasty.runs.get("missing", timeout=10)  # slow, but within its own timeout

    # ── errors from real answers

    def test_400_401_403_404_and_409_have_their_classes_and_the_problem_fields(self) -> None:
        client = self.client()
        with self.assertRaises(BadRequestError) as bad:
            client.request("runAgent", body={"prompt": "x", "no_such_field": 1})
        self.assertEqual((bad.exception.status, bad.exception.error, bad.exception.title), (400, "invalid_request", "Invalid request"))
        self.assertIn("no_such_field", bad.exception.detail)
        self.assertTrue(bad.exception.request_id)
        self.assertEqual(bad.exception.type, "urn:agentrun:error:invalid_request")

        stranger = agentrun.Client(api_key="ar_not_a_real_key_0000000000", base_url=self.held.url)
        with self.assertRaises(AuthenticationError) as unauthenticated:
            stranger.runs.get("x")
        self.assertEqual(unauthenticated.exception.status, 401)

        with self.assertRaises(NotFoundError) as missing:
            client.runs.get("no-such-run")
        self.assertEqual((missing.exception.status, missing.exception.error), (404, "not_found"))

        if self.database_url:
            limited = agentrun.Client(api_key=self.insert_key_without_permissions(), base_url=self.held.url)
            self.assertEqual(limited.runs.create(prompt="a limited key may run")["state"], "QUEUED")
            with self.assertRaises(PermissionDeniedError) as forbidden:
                limited.factories.create("nope")
            self.assertEqual((forbidden.exception.status, forbidden.exception.error), (403, "forbidden"))

    def insert_key_without_permissions(self) -> str:
        """A key of the bootstrap key's team without ``manage_factory``, inserted as the store does (by its SHA-256)."""
        assert self.database_url and self.held.schema
        key = "ar_py_limited_" + secrets.token_hex(16)
        principal = {"type": "service_account", "uid": "limited", "display_name": "Limited", "team_uid": "team-default", "permissions": []}
        digest = hashlib.sha256(key.encode()).hexdigest()
        psql(
            self.database_url,
            f"INSERT INTO \"{self.held.schema}\".api_keys (hash, prefix, principal, created_at) "
            f"VALUES ('{digest}', '{key[:8]}', '{json.dumps(principal)}'::jsonb, now())",
        )
        return key

    # ── pagination

    def test_lists_each_of_1000_runs_exactly_once_in_pages_of_100_and_filters_by_state(self) -> None:
        title = f"page-{self.kind}-{secrets.token_hex(3)}"
        client = self.client()
        with ThreadPoolExecutor(max_workers=16) as pool:
            created = list(pool.map(lambda i: client.runs.create(prompt=f"run {i}", title=title)["run_id"], range(1000)))
        self.assertEqual(len(set(created)), 1000)

        proxy = self.proxy(self.held, [])
        paging = self.client(base_url=proxy.url)
        # list() walks by creation unless told otherwise: the held server's worker claims some of
        # these runs meanwhile, which moves updated_at (the API's default order) but not created_at.
        listed = [run["run_id"] for run in paging.runs.list(limit=100, q=title)]
        self.assertEqual(len(listed), len(set(listed)))
        self.assertEqual(sorted(listed), sorted(created))
        self.assertIn(len(proxy.seen), (10, 11))  # ten full pages (and an empty one, if the tenth said there may be more)
        self.assertTrue(all("limit=100" in path and "sort_by=created_at" in path for _, path, _ in proxy.seen))

        cancelled = created[:7]
        for run_id in cancelled:
            paging.runs.cancel(run_id)
        listed_cancelled = [run for run in paging.runs.list(state=["CANCELLED"], q=title, limit=3)]
        self.assertTrue(all(run["state"] == "CANCELLED" for run in listed_cancelled))
        self.assertEqual(sorted(run["run_id"] for run in listed_cancelled), sorted(cancelled))

    # ── wait() and stream()

    def test_wait_answers_the_finished_run(self) -> None:
        client = self.client(self.finishing)
        ok = client.runs.create(prompt="Do the thing")
        self.assertEqual(client.runs.wait(ok["run_id"], poll_interval=0.02)["state"], "SUCCEEDED")
        failing = client.runs.create(prompt="Please fail")
        self.assertEqual(client.runs.wait(failing["run_id"], poll_interval=0.02)["state"], "FAILED")

        held = self.client()
        run = held.runs.create(prompt="never finishes")
        canceller = threading.Timer(0.2, held.runs.cancel, args=(run["run_id"],))
        canceller.start()
        self.assertEqual(held.runs.wait(run["run_id"], poll_interval=0.02)["state"], "CANCELLED")
        canceller.join()

    def test_reads_started_at_source_parent_usage_and_the_session_redirect(self) -> None:
        client = self.client(self.finishing)
        parent = client.runs.create(prompt="Do the thing", source="CLI")
        child = client.runs.create(prompt="Do a part of it", parent_run_id=parent["run_id"])
        done = client.runs.wait(child["run_id"], poll_interval=0.02)
        self.assertEqual((done["state"], done.get("parent_run_id"), done.get("execution_location")), ("SUCCEEDED", parent["run_id"], "REMOTE"))
        self.assertTrue(done.get("started_at"))
        self.assertNotIn("request_usage", done)  # the demo agent reports none
        self.assertEqual(client.runs.get(parent["run_id"]).get("source"), "CLI")
        self.assertEqual([r["run_id"] for r in client.runs.list(ancestor_run_id=parent["run_id"])], [child["run_id"]])
        # The worker gave the run its own ID as session; it ended, so the session shows its conversation.
        self.assertEqual(client.runs.session_redirect(done["session_id"]), {"conversation_id": done["conversation_id"]})
        with self.assertRaises(NotFoundError):
            client.runs.session_redirect("no-such-session")

    def test_reads_the_stats_of_the_overview(self) -> None:
        client = self.client()
        client.runs.create(prompt="Count me", config={"name": "stats"})
        runs = client.stats.runs(range="1h")
        self.assertEqual((runs["range"], runs["step_seconds"], len(runs["buckets"])), ("1h", 60, 60))
        by_state = cast(Dict[str, List[int]], runs["by_state"])
        self.assertTrue(sum(sum(series) for series in by_state.values()) >= 1)
        self.assertEqual(len(client.stats.runs()["buckets"]), 96)
        self.assertEqual(client.stats.run_durations(range="7d", by="name")["by"], "name")
        self.assertIn("webhooks", client.stats.deliveries(range="24h", webhook_uid="wh_none"))
        queue = client.stats.queue()
        self.assertTrue(queue["queued"] >= 0 and queue["running"] >= 0)
        self.assertEqual(client.stats.callbacks(range="7d")["range"], "7d")
        with self.assertRaises(BadRequestError):
            client.stats.runs(range="2h")

    def test_the_demo_executor_lists_no_harness(self) -> None:
        # It does not say which agent CLIs it runs (test_harnesses.py has one that does).
        self.assertEqual(self.client().agents.harnesses(), {"harnesses": []})

    def test_lists_gets_and_downloads_a_runs_artifacts(self) -> None:
        client = self.client(self.finishing)
        run = client.runs.create(prompt="Make two artifacts")  # the demo agent reports a plan and a file
        done = client.runs.wait(run["run_id"], poll_interval=0.02)
        self.assertEqual(done["state"], "SUCCEEDED")
        artifacts = client.artifacts.list(run["run_id"])
        self.assertEqual([a["artifact_type"] for a in artifacts], ["PLAN", "FILE"])
        self.assertIn(run["run_id"], [r["run_id"] for r in client.runs.list(artifact_type="FILE")])
        self.assertNotIn(run["run_id"], [r["run_id"] for r in client.runs.list(artifact_type="SCREENSHOT")])
        plan_item, file_item = artifacts
        # ArtifactItem is a union by artifact_type: checking it gives each form's data its own keys.
        assert plan_item["artifact_type"] == "PLAN" and file_item["artifact_type"] == "FILE"
        uid = file_item["data"]["artifact_uid"]
        got = client.artifacts.get(uid)
        self.assertEqual((got["artifact_type"], got["artifact_uid"], got.get("data", {}).get("filename")), ("FILE", uid, "report.txt"))
        self.assertEqual(client.artifacts.download(uid), b"The demo agent did its three steps.\n")
        plan = client.artifacts.download(plan_item["data"]["artifact_uid"])
        self.assertTrue(plan.startswith(b"# Demo plan"))
        with self.assertRaises(NotFoundError):
            client.artifacts.get("no-such-artifact")

    def test_wait_past_its_timeout_is_a_wait_timeout_error_and_a_missing_run_not_found(self) -> None:
        client = self.client()
        run = client.runs.create(prompt="never finishes")
        with self.assertRaises(WaitTimeoutError) as late:
            client.runs.wait(run["run_id"], poll_interval=0.01, timeout=0.1)
        self.assertEqual((late.exception.run_id, late.exception.timeout), (run["run_id"], 0.1))
        self.assertIn(late.exception.last_state, ("QUEUED", "CLAIMED", "PENDING", "INPROGRESS"))
        with self.assertRaises(NotFoundError):
            client.runs.wait("no-such-run")

    def test_stream_yields_every_event_in_order_and_ends_when_the_run_finishes(self) -> None:
        client = self.client(self.finishing)
        run = client.runs.create(prompt="Stream me")
        streamed = list(client.runs.stream(run["run_id"]))
        page = client.runs.events(run["run_id"], limit=1000)["events"]
        self.assertEqual(streamed, page)
        self.assertEqual([e["id"] for e in streamed], list(range(1, len(streamed) + 1)))
        self.assertEqual((streamed[-1]["type"], streamed[-1]["data"]["to"]), ("state", "SUCCEEDED"))
        self.assertEqual(list(client.runs.stream(run["run_id"], after=2)), page[2:])

    def test_stream_resumes_a_dropped_connection_with_last_event_id_repeating_and_skipping_nothing(self) -> None:
        client = self.client(self.finishing)
        run = client.runs.create(prompt="Stream me, with a break")
        client.runs.wait(run["run_id"], poll_interval=0.02)
        proxy = self.proxy(self.finishing, ["cut"])
        streamed = list(self.client(self.finishing, base_url=proxy.url).runs.stream(run["run_id"]))
        self.assertEqual(len(proxy.seen), 2)
        self.assertNotIn("last-event-id", proxy.seen[0][2])
        self.assertGreater(int(proxy.seen[1][2]["last-event-id"]), 0)
        self.assertEqual(streamed, client.runs.events(run["run_id"], limit=1000)["events"])

    def test_leaving_a_stream_closes_it_and_errors_before_the_stream_have_their_classes(self) -> None:
        client = self.client()
        run = client.runs.create(prompt="never finishes")
        client.runs.followup(run["run_id"], "still there?")
        with client.runs.stream(run["run_id"]) as events:
            first = next(events)
        self.assertEqual(first["id"], 1)
        self.assertEqual(list(events), [])  # closed: the iteration is over
        with self.assertRaises(NotFoundError):
            next(client.runs.stream("no-such-run"))
        stranger = agentrun.Client(api_key="ar_not_a_real_key_0000000000", base_url=self.held.url)
        with self.assertRaises(AuthenticationError):
            next(stranger.runs.stream("no-such-run"))

    # ── python -m agentrun

    def cli(self, *args: str, server: Optional[ReferenceServer] = None, key: Optional[str] = None) -> "subprocess.CompletedProcess[str]":
        """The command line's ``main``, called here: ``python -m agentrun`` as a process is test_checkout.py's."""
        server = server or self.held
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.dict(os.environ, {"AGENTRUN_API_KEY": server.api_key if key is None else key, "AGENTRUN_BASE_URL": server.url}):
            code = main(list(args), out, err)
        return subprocess.CompletedProcess(["python", "-m", "agentrun", *args], code, out.getvalue(), err.getvalue())

    def test_the_command_line(self) -> None:
        done = self.cli("run", "Do the thing", "--wait", server=self.finishing)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("SUCCEEDED", done.stdout)
        failed = self.cli("run", "Please fail", "--wait", "--json", server=self.finishing)
        self.assertEqual(failed.returncode, 5, failed.stderr)
        self.assertEqual(json.loads(failed.stdout)["state"], "FAILED")
        followed = self.cli("run", "Follow me", "--follow", server=self.finishing)
        self.assertEqual(followed.returncode, 0, followed.stderr)
        self.assertIn("-> SUCCEEDED", followed.stdout)

        started = self.cli("run", "Hold on", "--title", f"cli-{self.kind}", "--json")
        self.assertEqual(started.returncode, 0, started.stderr)
        run_id = json.loads(started.stdout)["run_id"]
        shown = self.cli("runs", "get", run_id)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn(f"cli-{self.kind}", shown.stdout)
        self.assertEqual(self.client().runs.get(run_id).get("source"), "CLI")  # runs the CLI starts say so
        self.assertEqual(self.cli("runs", "cancel", run_id).stdout.strip(), run_id)
        listed = self.cli("runs", "list", "--state", "CANCELLED", "--limit", "500", "--json")
        self.assertIn(run_id, [run["run_id"] for run in json.loads(listed.stdout)])
        table = self.cli("runs", "list", "--limit", "2")
        self.assertEqual(table.stdout.splitlines()[0].split()[:3], ["RUN", "ID", "STATE"])

        missing = self.cli("runs", "get", "no-such-run")
        self.assertEqual(missing.returncode, 3)
        self.assertIn("404", missing.stderr)
        self.assertEqual(self.cli("runs", "get", run_id, key="").returncode, 2)
        self.assertEqual(self.cli("runs", "frobnicate").returncode, 2)
        self.assertEqual(self.cli("--base-url", "http://127.0.0.1:9", "--timeout", "2", "runs", "get", run_id).returncode, 4)


class MemoryStoreTest(LiveSuite, unittest.TestCase):
    """The shared suite on the memory store."""


@unittest.skipIf(POSTGRES_URL is None, "no PostgreSQL answers (set DATABASE_URL); CI=true fails instead")
class PostgresStoreTest(LiveSuite, unittest.TestCase):
    """The shared suite on PostgreSQL."""

    database_url = POSTGRES_URL


if __name__ == "__main__":
    unittest.main()
