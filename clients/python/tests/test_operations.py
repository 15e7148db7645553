"""
The client covers the route table: each operation of docs/openapi.json (the route table's
document) is in the client's table with the same method and path, and has a resource method,
as packages/client/test/operations.test.ts proves for the TypeScript client.
"""

from __future__ import annotations

import json
import unittest

from support import REPO_ROOT

import agentrun
from agentrun._operations import OPERATIONS

# Called by providers, not clients; the document itself; the health probes (called by orchestrators).
NOT_CLIENT_OPERATIONS = {"deliverWebhook", "deliverWebhookWithToken", "pushFactorySource", "getOpenApi", "getHealth", "getReadiness"}
# POST /agent/runs is the same operation as POST /agent/run (runs.create); callable with client.request("createRun").
ALIASES = {"createRun"}


class OperationsTest(unittest.TestCase):
    def setUp(self) -> None:
        document = json.loads((REPO_ROOT / "docs/openapi.json").read_text())
        self.wire = {
            operation["operationId"]: (method.upper(), path)
            for path, methods in document["paths"].items()
            for method, operation in methods.items()
            if isinstance(operation, dict) and "operationId" in operation
        }

    def test_every_operation_is_in_the_table_with_its_method_and_path(self) -> None:
        expected = {op: route for op, route in self.wire.items() if op not in NOT_CLIENT_OPERATIONS}
        self.assertEqual({op: (entry.method, entry.path) for op, entry in OPERATIONS.items()}, expected)

    def test_every_operation_has_a_resource_method(self) -> None:
        client = agentrun.Client(api_key="ar_unused_key_0000", base_url="http://127.0.0.1:9")
        covered = set()
        for resource in (
            client.runs,
            client.artifacts,
            client.factories,
            client.secrets,
            client.api_keys,
            client.webhooks,
            client.automations,
            client.deliveries,
            client.audit,
            client.repositories,
            client.agents,
            client.environments,
            client.agent_identities,
            client.sources,
            client.schedules,
            client.callbacks,
            client.workers,
            client.stats,
        ):
            for method, operation in type(resource).operations.items():
                self.assertTrue(callable(getattr(resource, method, None)), f"{type(resource).__name__}.{method}")
                covered.add(operation)
        self.assertEqual(set(OPERATIONS) - ALIASES, covered)


if __name__ == "__main__":
    unittest.main()
