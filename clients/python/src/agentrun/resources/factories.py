"""``client.factories``: factories and applying their definitions (docs/management-api.md, docs/definitions.md)."""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, Sequence, cast

from ..types import ApplyResult, AutomationDefinition, Factory, FactoryList, WebhookDefinition
from ._base import Resource, given


class Factories(Resource):
    """Create, list and get factories; apply a factory's definition files."""

    operations: ClassVar[Dict[str, str]] = {"create": "createFactory", "list": "listFactories", "get": "getFactory", "apply": "applyDefinitions"}
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self,
        name: str,
        *,
        foreman_agent_identity_uid: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Factory:
        """Create a factory (needs the ``manage_factory`` permission)."""
        body = given(name=name, foreman_agent_identity_uid=foreman_agent_identity_uid)
        return cast(
            Factory,
            self._client.request("createFactory", body=body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries),
        )

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> FactoryList:
        """The team's factories."""
        return cast(FactoryList, self._client.request("listFactories", timeout=timeout, max_retries=max_retries))

    def get(self, factory_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Factory:
        """One factory."""
        return cast(
            Factory, self._client.request("getFactory", params={"factoryUid": factory_uid}, timeout=timeout, max_retries=max_retries)
        )

    def apply(
        self,
        factory_uid: str,
        *,
        webhooks: Optional[Sequence[WebhookDefinition]] = None,
        automations: Optional[Sequence[AutomationDefinition]] = None,
        prune: Optional[bool] = None,
        dry_run: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ApplyResult:
        """
        Make the factory's webhooks and automations what its definitions say, as one operation
        (docs/definitions.md); ``dry_run=True`` answers the plan only. Every problem found is in
        the ``BadRequestError``'s ``errors``, each at its path in the body.
        """
        body = given(
            webhooks=list(webhooks) if webhooks is not None else None,
            automations=list(automations) if automations is not None else None,
            prune=prune,
            dry_run=dry_run,
        )
        return cast(
            ApplyResult,
            self._client.request(
                "applyDefinitions",
                params={"factoryUid": factory_uid},
                body=body,
                idempotency_key=idempotency_key,
                timeout=timeout,
                max_retries=max_retries,
            ),
        )
