"""When the client retries and how long it waits (agentrun/_retry.py; docs/python.md, "Retries")."""

from __future__ import annotations

import time
import unittest
from email.utils import formatdate

import support  # noqa: F401  (puts the package on the path)

from agentrun._retry import retry_delay, should_retry


class ShouldRetryTest(unittest.TestCase):
    def test_statuses_and_the_servers_verdict(self) -> None:
        for status in (408, 409, 429, 500, 502, 503, 599):
            self.assertTrue(should_retry(status, {}), status)
        for status in (400, 401, 403, 404, 410, 422):
            self.assertFalse(should_retry(status, {}), status)
        self.assertFalse(should_retry(503, {"x-should-retry": "false"}))
        self.assertTrue(should_retry(400, {"x-should-retry": "true"}))


class RetryDelayTest(unittest.TestCase):
    def test_exponential_backoff_with_up_to_a_quarter_off(self) -> None:
        self.assertEqual([retry_delay(left, 5, None, lambda: 0.0) for left in (5, 4, 3, 2, 1)], [0.5, 1.0, 2.0, 4.0, 8.0])
        self.assertEqual(retry_delay(1, 10, None, lambda: 0.0), 8.0)  # capped
        self.assertEqual(retry_delay(2, 2, None, lambda: 1.0), 0.375)

    def test_the_servers_delay_when_sane(self) -> None:
        self.assertEqual(retry_delay(2, 2, {"retry-after-ms": "250"}, lambda: 0.0), 0.25)
        self.assertEqual(retry_delay(2, 2, {"retry-after": "3"}, lambda: 0.0), 3.0)
        self.assertEqual(retry_delay(2, 2, {"retry-after-ms": "1500", "retry-after": "9"}, lambda: 0.0), 1.5)
        date = formatdate(time.time() + 30, usegmt=True)
        self.assertTrue(25 < retry_delay(2, 2, {"retry-after": date}, lambda: 0.0) <= 31)

    def test_an_insane_server_delay_falls_back_to_backoff(self) -> None:
        for headers in ({"retry-after": "3600"}, {"retry-after-ms": "-5"}, {"retry-after": "soon"}, {"retry-after-ms": "nan"}, {"retry-after": ""}):
            self.assertEqual(retry_delay(2, 2, headers, lambda: 0.0), 0.5, headers)


if __name__ == "__main__":
    unittest.main()
