"""Every public name of the package says what it is (a docstring on every public name)."""

from __future__ import annotations

import inspect
import unittest
from typing import Any, List

import support  # noqa: F401  (puts the package on the path)

import agentrun
import agentrun.types
from agentrun.resources.automations import Automations
from agentrun.resources.deliveries import Deliveries
from agentrun.resources.factories import Factories
from agentrun.resources.runs import Runs
from agentrun.resources.secrets import Secrets
from agentrun.resources.webhooks import Webhooks


def undocumented(owner: Any, prefix: str) -> List[str]:
    missing = []
    for name, member in vars(owner).items():
        if name.startswith("_") or not (inspect.isfunction(member) or inspect.isclass(member)):
            continue
        if not (member.__doc__ or "").strip():
            missing.append(f"{prefix}{name}")
    return missing


class DocstringsTest(unittest.TestCase):
    def test_every_public_class_function_and_method_has_a_docstring(self) -> None:
        missing: List[str] = []
        for name in agentrun.__all__:
            member = getattr(agentrun, name)
            if inspect.isclass(member):
                if not (member.__doc__ or "").strip():
                    missing.append(name)
                missing += undocumented(member, f"{name}.")
        for resource in (Runs, Factories, Secrets, Webhooks, Automations, Deliveries):
            if not (resource.__doc__ or "").strip():
                missing.append(resource.__name__)
            missing += undocumented(resource, f"{resource.__name__}.")
        missing += undocumented(agentrun.types, "types.")
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
