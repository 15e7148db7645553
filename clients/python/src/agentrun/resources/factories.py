"""``client.factories``: factories and applying their definitions (docs/management-api.md, docs/definitions.md)."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Optional, Sequence, cast

from ..types import ApplyResult, AutomationDefinition, Factory, FactoryList, WebhookDefinition
from ._base import Resource, given


class Factories(Resource):
    """Create, list and get factories; apply a factory's definition files."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "createFactory",
        "list": "listFactories",
        "get": "getFactory",
        "apply": "applyDefinitions",
        "dispatch": "dispatchFactoryRun",
        "inbox": "listInbox",
        "mark_read": "markInboxRead",
        "mark_unread": "markInboxUnread",
        "page_as_python_client": "listClientFactories",
        "get_as_python_client": "getClientFactory",
    }
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

    def dispatch(
        self,
        factory_uid: str,
        prompt: str,
        *,
        title: Optional[str] = None,
        ticket_ref: Optional[str] = None,
        ticket_url: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Start a run of the factory, for its foreman (docs/run-api.md, "Dispatch a run to a factory")."""
        body = given(prompt=prompt, title=title, ticket_ref=ticket_ref, ticket_url=ticket_url)
        return cast(
            Dict[str, Any],
            self._client.request(
                "dispatchFactoryRun",
                params={"uid": factory_uid},
                body=body,
                idempotency_key=idempotency_key,
                timeout=timeout,
                max_retries=max_retries,
            ),
        )

    def inbox(
        self,
        *,
        scope: Optional[str] = None,
        factory_uid: Optional[str] = None,
        recipient_uid: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Dict[str, Any]:
        """One page of the factory inbox (docs/run-api.md, "The factory inbox")."""
        query = given(scope=scope, factory_uid=factory_uid, recipient_uid=recipient_uid, limit=limit, cursor=cursor)
        return cast(Dict[str, Any], self._client.request("listInbox", query=query, timeout=timeout, max_retries=max_retries))

    def mark_read(self, notification_uids: Sequence[str], *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """Mark inbox notifications read for the caller: one outcome per UID, in order."""
        body = {"notification_uids": list(notification_uids)}
        return cast(Dict[str, Any], self._client.request("markInboxRead", body=body, timeout=timeout, max_retries=max_retries))

    def mark_unread(self, notification_uids: Sequence[str], *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """Mark inbox notifications unread for the caller."""
        body = {"notification_uids": list(notification_uids)}
        return cast(Dict[str, Any], self._client.request("markInboxUnread", body=body, timeout=timeout, max_retries=max_retries))

    def page_as_python_client(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        search: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Dict[str, Any]:
        """One page of factories in the published Python client's ``Factory`` shape (``GET /factory``)."""
        query = given(limit=limit, cursor=cursor, search=search)
        return cast(Dict[str, Any], self._client.request("listClientFactories", query=query, timeout=timeout, max_retries=max_retries))

    def get_as_python_client(self, factory_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """One factory in the published Python client's ``Factory`` shape (``GET /factory/{uid}``)."""
        return cast(
            Dict[str, Any], self._client.request("getClientFactory", params={"uid": factory_uid}, timeout=timeout, max_retries=max_retries)
        )
