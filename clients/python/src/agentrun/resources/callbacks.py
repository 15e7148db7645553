"""``client.callbacks``: the team's run-state callbacks (docs/callbacks.md): endpoints, their delivery logs, resends."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Mapping, Optional, cast

from ._base import Resource, given


class Callbacks(Resource):
    """Register, list, change, delete callback endpoints; read their delivery logs; resend (changes need ``manage_factory``)."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "createCallback",
        "list": "listCallbacks",
        "get": "getCallback",
        "update": "patchCallback",
        "delete": "deleteCallback",
        "rotate_secret": "rotateCallbackSecret",
        "deliveries": "listCallbackDeliveries",
        "resend": "resendCallbackDelivery",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(self, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """Register one: ``{url, factory_uid?, event_types?, description?}``; the answer's ``secret`` is shown this once."""
        return cast(Dict[str, Any], self._client.request("createCallback", body=dict(body), timeout=timeout, max_retries=max_retries))

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """The team's endpoints, oldest first: ``{callbacks: [...]}``."""
        return cast(Dict[str, Any], self._client.request("listCallbacks", timeout=timeout, max_retries=max_retries))

    def get(self, callback_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """One endpoint (never its secret)."""
        return cast(
            Dict[str, Any], self._client.request("getCallback", params={"callbackId": callback_id}, timeout=timeout, max_retries=max_retries)
        )

    def update(
        self, callback_id: str, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Change ``url``, ``event_types``, ``description``, or ``enabled`` (re-enabling one the failing rule disabled)."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "patchCallback", params={"callbackId": callback_id}, body=dict(body), timeout=timeout, max_retries=max_retries
            ),
        )

    def delete(self, callback_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Delete it with its delivery log."""
        self._client.request("deleteCallback", params={"callbackId": callback_id}, timeout=timeout, max_retries=max_retries)

    def rotate_secret(self, callback_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """A new signing secret, shown this once: ``{callback, secret}``."""
        return cast(
            Dict[str, Any],
            self._client.request("rotateCallbackSecret", params={"callbackId": callback_id}, timeout=timeout, max_retries=max_retries),
        )

    def deliveries(
        self,
        callback_id: str,
        *,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Dict[str, Any]:
        """One page of the endpoint's deliveries with their attempts, newest first: ``{deliveries, page_info}``."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "listCallbackDeliveries",
                params={"callbackId": callback_id},
                query=given(cursor=cursor, limit=limit),
                timeout=timeout,
                max_retries=max_retries,
            ),
        )

    def resend(
        self, callback_id: str, delivery_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Send a logged delivery again (same ``webhook-id``, a new retry window); 409 while it is still pending."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "resendCallbackDelivery",
                params={"callbackId": callback_id, "deliveryId": delivery_id},
                timeout=timeout,
                max_retries=max_retries,
            ),
        )
