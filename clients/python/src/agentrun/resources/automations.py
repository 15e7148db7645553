"""``client.automations``: a factory's automations (docs/management-api.md, docs/filters.md)."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Mapping, Optional, Sequence, Union, cast

from .._omitted import OMITTED
from ..types import AmbientAgentConfig, Automation, AutomationList, TestFilterResult, Trigger
from ._base import Resource, given


class Automations(Resource):
    """Create, list, get, update, delete automations; test a filter on a payload."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "createAutomation",
        "list": "listAutomations",
        "get": "getAutomation",
        "update": "patchAutomation",
        "delete": "deleteAutomation",
        "test_filter": "testFilter",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self,
        factory_uid: str,
        *,
        name: str,
        prompt: str,
        triggers: Sequence[Trigger],
        enabled: Optional[bool] = None,
        config: Optional[Union[AmbientAgentConfig, Mapping[str, Any]]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Automation:
        """Create an automation: a prompt run for each delivery its triggers select."""
        body = given(name=name, prompt=prompt, triggers=list(triggers), enabled=enabled, config=dict(config) if config is not None else None)
        return cast(
            Automation,
            self._client.request(
                "createAutomation",
                params={"factoryUid": factory_uid},
                body=body,
                idempotency_key=idempotency_key,
                timeout=timeout,
                max_retries=max_retries,
            ),
        )

    def list(self, factory_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> AutomationList:
        """A factory's automations."""
        return cast(
            AutomationList,
            self._client.request("listAutomations", params={"factoryUid": factory_uid}, timeout=timeout, max_retries=max_retries),
        )

    def get(
        self, factory_uid: str, automation_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Automation:
        """One automation."""
        params = {"factoryUid": factory_uid, "automationId": automation_id}
        return cast(Automation, self._client.request("getAutomation", params=params, timeout=timeout, max_retries=max_retries))

    def update(
        self,
        factory_uid: str,
        automation_id: str,
        *,
        name: Optional[str] = None,
        prompt: Optional[str] = None,
        enabled: Optional[bool] = None,
        triggers: Optional[Sequence[Trigger]] = None,
        config: Any = OMITTED,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Automation:
        """Change an automation: only the fields given (``config=None`` clears its config)."""
        body: Dict[str, Any] = given(name=name, prompt=prompt, enabled=enabled, triggers=list(triggers) if triggers is not None else None)
        if config is not OMITTED:
            body["config"] = dict(config) if config is not None else None
        params = {"factoryUid": factory_uid, "automationId": automation_id}
        return cast(Automation, self._client.request("patchAutomation", params=params, body=body, timeout=timeout, max_retries=max_retries))

    def delete(self, factory_uid: str, automation_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Delete an automation."""
        params = {"factoryUid": factory_uid, "automationId": automation_id}
        self._client.request("deleteAutomation", params=params, timeout=timeout, max_retries=max_retries)

    def test_filter(
        self,
        factory_uid: str,
        automation_id: str,
        *,
        webhook_uid: Optional[str] = None,
        payload: Any = OMITTED,
        delivery_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> TestFilterResult:
        """
        Would this payload (``webhook_uid`` and ``payload``) or a stored delivery (``delivery_id``)
        start the automation? Says why not; delivers nothing.
        """
        body: Dict[str, Any] = given(webhook_uid=webhook_uid, delivery_id=delivery_id)
        if payload is not OMITTED:
            body["payload"] = payload
        params = {"factoryUid": factory_uid, "automationId": automation_id}
        return cast(
            TestFilterResult,
            self._client.request(
                "testFilter", params=params, body=body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries
            ),
        )
