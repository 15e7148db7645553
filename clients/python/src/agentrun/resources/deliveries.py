"""``client.deliveries``: a webhook's delivery log (docs/management-api.md)."""

from __future__ import annotations

from typing import ClassVar, Dict, Iterator, List, Optional, cast

from .._pagination import paginate
from ..types import Delivery, DeliveryDetail, DeliveryList, DeliveryResent
from ._base import Resource, given


class Deliveries(Resource):
    """List a webhook's deliveries, newest first; get one, and its payload's bytes; resend one."""

    operations: ClassVar[Dict[str, str]] = {
        "list": "listDeliveries",
        "list_page": "listDeliveries",
        "get": "getDelivery",
        "payload": "getDeliveryPayload",
        "resend": "resendDelivery",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def list(
        self,
        factory_uid: str,
        webhook_uid: str,
        *,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Iterator[Delivery]:
        """Every delivery of the webhook, newest first, page after page."""

        def page(cursor: Optional[str]) -> DeliveryList:
            return self.list_page(factory_uid, webhook_uid, cursor=cursor, limit=limit, timeout=timeout, max_retries=max_retries)

        def deliveries(page: DeliveryList) -> List[Delivery]:
            return page["deliveries"]

        return paginate(page, deliveries)

    def list_page(
        self,
        factory_uid: str,
        webhook_uid: str,
        *,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> DeliveryList:
        """One page of the delivery log."""
        params = {"factoryUid": factory_uid, "webhookUid": webhook_uid}
        return cast(
            DeliveryList,
            self._client.request(
                "listDeliveries", params=params, query=given(cursor=cursor, limit=limit), timeout=timeout, max_retries=max_retries
            ),
        )

    def get(
        self,
        factory_uid: str,
        webhook_uid: str,
        delivery_id: str,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> DeliveryDetail:
        """One log entry; an accepted one with its payload."""
        params = {"factoryUid": factory_uid, "webhookUid": webhook_uid, "deliveryId": delivery_id}
        return cast(DeliveryDetail, self._client.request("getDelivery", params=params, timeout=timeout, max_retries=max_retries))

    def payload(
        self,
        factory_uid: str,
        webhook_uid: str,
        delivery_id: str,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> bytes:
        """The exact bytes an accepted delivery carried."""
        params = {"factoryUid": factory_uid, "webhookUid": webhook_uid, "deliveryId": delivery_id}
        return cast(bytes, self._client.request("getDeliveryPayload", params=params, timeout=timeout, max_retries=max_retries))

    def resend(
        self,
        factory_uid: str,
        webhook_uid: str,
        delivery_id: str,
        *,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> DeliveryResent:
        """Evaluate an accepted delivery's payload again against the webhook's automations as they are now."""
        params = {"factoryUid": factory_uid, "webhookUid": webhook_uid, "deliveryId": delivery_id}
        return cast(
            DeliveryResent,
            self._client.request(
                "resendDelivery", params=params, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries
            ),
        )
