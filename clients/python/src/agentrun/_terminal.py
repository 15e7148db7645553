"""
Text from the server or an agent, made safe for a terminal (docs/python.md, "Command line"; issue
20, point 6): a run's title, an agent's output line or an error's detail could carry escape
sequences that set the window title (OSC ``ESC ] 0 ; … BEL``), clear the screen (CSI ``ESC [ 2 J``),
recolour or move the cursor. Every control character, C0 (U+0000–U+001F), DEL and C1
(U+0080–U+009F), shows as ``�`` (U+FFFD), except a newline and a tab. The same rule as the
TypeScript CLI's (packages/cli/src/terminal-text.ts; docs/cli.md, "Output").
"""

from __future__ import annotations

import json
import re
from typing import Any

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_text(text: str) -> str:
    """``text`` with every C0, DEL and C1 control character but newline and tab shown as U+FFFD."""
    return _CONTROL.sub("\ufffd", text)


def terminal_json(value: Any) -> str:
    """
    ``value`` as JSON with no raw control character: ``json.dumps`` escapes C0 and (ASCII only)
    C1, but writes DEL as it is; ``\\u007f`` is the same JSON string.
    """
    return json.dumps(value).replace("\x7f", "\\u007f")
