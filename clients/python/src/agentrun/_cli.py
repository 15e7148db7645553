"""
``python -m agentrun``: a small command line over the client (docs/python.md, "Command line"):
``run``, ``runs list``, ``runs get``, ``runs cancel``. The API key comes from ``AGENTRUN_API_KEY``
only (never argv, where other users can read it); the server from ``--base-url`` or
``AGENTRUN_BASE_URL``. Exit codes as the TypeScript CLI's (packages/cli): 0 done, 2 usage,
3 the API refused or answered something malformed, 4 no answer (network), 5 a waited-for run did
not succeed, 70 a bug. Everything printed passes ``_terminal.py`` (the server's and agents' text
may carry escape sequences), and every answer printed from is checked for the fields it needs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, TextIO

from ._client import Client
from ._errors import AgentRunError, APIConnectionError, APIError, APIResponseError
from ._terminal import terminal_json, terminal_text
from ._version import __version__
from .types import RUN_STATES

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_API = 3
EXIT_NETWORK = 4
EXIT_NOT_SUCCEEDED = 5
EXIT_BUG = 70

def main(argv: Optional[Sequence[str]] = None, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    """Run one command; answers its exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    if not getattr(args, "handler", None):
        parser.print_usage(stderr)
        return EXIT_USAGE
    try:
        client = Client(
            api_key=os.environ.get("AGENTRUN_API_KEY") or "",
            base_url=args.base_url or os.environ.get("AGENTRUN_BASE_URL") or "",
            timeout=args.timeout,
        )
    except ValueError as error:
        _say(stderr, f"agentrun: {error}")
        return EXIT_USAGE
    # One line on stderr and the documented code for every failure, never a traceback.
    try:
        code: int = args.handler(client, args, stdout)
        return code
    except APIError as error:
        _say(stderr, f"agentrun: {error}" + (f" (request {error.request_id})" if error.request_id else ""))
        return EXIT_API
    except APIConnectionError as error:
        _say(stderr, f"agentrun: no answer from {client.base_url}: {error}")
        return EXIT_NETWORK
    except APIResponseError as error:
        _say(stderr, f"agentrun: the server's answer is malformed: {error}")
        return EXIT_API
    except (AgentRunError, ValueError) as error:
        _say(stderr, f"agentrun: {error}")
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - a bug: said in one line, as the TypeScript CLI's exit 70
        _say(stderr, f"agentrun: internal error, please report it: {type(error).__name__}: {error}")
        return EXIT_BUG


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agentrun", description="Start and look at agentrun runs (API key from AGENTRUN_API_KEY).")
    parser.add_argument("--version", action="version", version=f"agentrun {__version__}")
    parser.add_argument("--base-url", help="where agentrun is mounted (default $AGENTRUN_BASE_URL)")
    parser.add_argument("--timeout", type=_seconds, default=60.0, help="seconds per request (default 60)")
    commands = parser.add_subparsers(title="commands")

    run = commands.add_parser("run", help="start a run")
    run.add_argument("prompt", help="what the agent should do")
    run.add_argument("--title")
    run.add_argument("--config-name", help="config.name")
    run.add_argument("--model-id", help="config.model_id")
    run.add_argument("--wait", action="store_true", help="wait until the run finishes; exit 5 unless it SUCCEEDED")
    run.add_argument("--follow", action="store_true", help="print the run's events as they happen, until it finishes")
    run.add_argument("--json", action="store_true", help="print JSON")
    run.set_defaults(handler=_run)

    runs = commands.add_parser("runs", help="list, get or cancel runs").add_subparsers(title="runs commands")
    listing = runs.add_parser("list", help="list runs, newest first")
    listing.add_argument("--state", action="append", choices=RUN_STATES, help="repeatable: any of these states")
    listing.add_argument("--limit", type=_positive, default=20, help="how many runs to show (default 20)")
    listing.add_argument("--q", help="a substring of the title, prompt or skill")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_runs_list)
    get = runs.add_parser("get", help="one run")
    get.add_argument("run_id")
    get.add_argument("--json", action="store_true", help="print JSON")
    get.set_defaults(handler=_runs_get)
    cancel = runs.add_parser("cancel", help="cancel a run that has not finished")
    cancel.add_argument("run_id")
    cancel.set_defaults(handler=_runs_cancel)
    return parser


def _run(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    config = {k: v for k, v in (("name", args.config_name), ("model_id", args.model_id)) if v is not None}
    created = _checked("runAgent", client.runs.create(prompt=args.prompt, title=args.title, config=config or None, source="CLI"), ("run_id", "state"))
    run_id = created["run_id"]
    if args.follow:
        for event in client.runs.stream(run_id):
            # The stream checks the event's id; what a line prints from it is checked here.
            shown = _checked("a run event", event, ("at", "type"))
            _say(out, terminal_json(shown) if args.json else _event_line(shown), flush=True)
    if not (args.wait or args.follow):
        _say(out, terminal_json(created) if args.json else f"{run_id} {created['state']}")
        return EXIT_OK
    run = _checked("getRun", client.runs.wait(run_id, poll_interval=0.5), ("run_id", "state"))
    _say(out, terminal_json(run) if args.json else f"{run_id} {run['state']}")
    return EXIT_OK if run["state"] == "SUCCEEDED" else EXIT_NOT_SUCCEEDED


def _runs_list(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    runs: List[Any] = []
    for run in client.runs.list(state=args.state, q=args.q, limit=min(args.limit, 500)):
        runs.append(_checked("listRuns", run, _RUN_FIELDS))
        if len(runs) >= args.limit:
            break
    if args.json:
        _say(out, terminal_json(runs))
    else:
        _table(out, ["RUN ID", "STATE", "CREATED", "TITLE"], [[r["run_id"], r["state"], r["created_at"], r["title"]] for r in runs])
    return EXIT_OK


def _runs_get(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    run = _checked("getRun", client.runs.get(args.run_id), _RUN_FIELDS)
    if args.json:
        _say(out, terminal_json(run))
        return EXIT_OK
    status = run.get("status_message")
    status = status if isinstance(status, dict) else {}
    rows = [["run_id", run["run_id"]], ["state", run["state"]], ["title", run["title"]], ["created_at", run["created_at"]]]
    rows += [["updated_at", run["updated_at"]], ["status", str(status.get("message", ""))], ["prompt", run["prompt"]]]
    _table(out, None, rows)
    return EXIT_OK


def _runs_cancel(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    _say(out, client.runs.cancel(args.run_id))
    return EXIT_OK


_RUN_FIELDS = ("run_id", "state", "title", "prompt", "created_at", "updated_at")


def _checked(what: str, answer: Any, fields: Sequence[str]) -> Dict[str, Any]:
    """``answer`` when it is an object whose ``fields`` are strings (what is printed from it); else an ``APIResponseError``."""
    if not isinstance(answer, dict):
        raise APIResponseError(f"the answer to {what} is not an object")
    wrong = [name for name in fields if not isinstance(answer.get(name), str)]
    if wrong:
        raise APIResponseError(f"the answer to {what} is not what the API answers: {', '.join(wrong)} missing or of the wrong type")
    return answer


def _say(out: TextIO, text: str, flush: bool = False) -> None:
    """A line to ``out``, control characters shown as U+FFFD (_terminal.py): much of it is the server's or an agent's text."""
    print(terminal_text(text), file=out, flush=flush)


def _event_line(event: Any) -> str:
    data = event.get("data")
    if event.get("type") == "state" and isinstance(data, dict):
        return f"[{event['id']}] state {data.get('from')} -> {data.get('to')}"
    if isinstance(data, dict) and ("message" in data or "text" in data):
        return f"[{event['id']}] {event['type']} {data.get('message', data.get('text'))}"
    return f"[{event['id']}] {event['type']} {terminal_json(data)}"


def _table(out: TextIO, header: Optional[List[str]], rows: List[List[str]]) -> None:
    lines = ([header] if header else []) + [[terminal_text(" ".join(str(cell).split())) for cell in row] for row in rows]
    if not lines:
        return
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for line in lines:
        _say(out, "  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be > 0: {text!r}")
    return value


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a whole number >= 1: {text!r}")
    return int(text)
