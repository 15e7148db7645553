"""The SSE parser (agentrun/_sse.py) reads an event stream as the HTML standard says, in chunks cut anywhere."""

from __future__ import annotations

import random
import unittest

import support  # noqa: F401  (puts the package on the path)

from agentrun._sse import ServerSentEvent, SseParser


def parse_all(*chunks: str) -> list:  # type: ignore[type-arg]
    parser = SseParser()
    events = []
    for chunk in chunks:
        events.extend(parser.push(chunk))
    return events


class SseParserTest(unittest.TestCase):
    def test_fields_comments_and_dispatch(self) -> None:
        text = ": heartbeat\nid: 5\nevent: output\ndata: {\"id\":5}\n\ndata: a\ndata: b\n\n"
        self.assertEqual(
            parse_all(text),
            [ServerSentEvent("5", "output", '{"id":5}'), ServerSentEvent("5", "message", "a\nb")],
        )

    def test_line_ends_and_spaces(self) -> None:
        self.assertEqual(parse_all("data:x\r\rdata:  y\r\n\r\n"), [ServerSentEvent(None, "message", "x"), ServerSentEvent(None, "message", " y")])

    def test_cr_and_lf_split_across_chunks(self) -> None:
        self.assertEqual(parse_all("data: a\r", "\n", "\r", "\n"), [ServerSentEvent(None, "message", "a")])

    def test_bom_unknown_fields_no_data_and_nul_ids(self) -> None:
        events = parse_all("\ufeffretry: 10\nfoo: bar\nid: 1\n\nid: 2\0\ndata: z\n\n")
        self.assertEqual(events, [ServerSentEvent("1", "message", "z")])

    def test_an_unfinished_event_is_not_dispatched(self) -> None:
        self.assertEqual(parse_all("data: half"), [])

    def test_any_split_yields_the_same_events(self) -> None:
        stream = "".join(f"id: {i}\r\nevent: output\ndata: {{\"id\":{i},\"text\":\"é😀\"}}\r\r: ping\n\n" for i in range(1, 30))
        whole = parse_all(stream)
        self.assertEqual(len(whole), 29)
        rng = random.Random(14)
        for _ in range(200):
            cuts = sorted(rng.sample(range(1, len(stream)), rng.randint(1, 40)))
            pieces = [stream[a:b] for a, b in zip([0] + cuts, cuts + [len(stream)])]
            self.assertEqual(parse_all(*pieces), whole)


if __name__ == "__main__":
    unittest.main()
