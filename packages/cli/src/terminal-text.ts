/**
 * Text from the server or an agent, made safe for a terminal (docs/cli.md, "Output"): a server or
 * an agent may be hostile. A run's title, an agent's output line or an error's detail could carry escape
 * sequences that set the window title (OSC `ESC ] 0 ; … BEL`), clear the screen (CSI `ESC [ 2 J`),
 * recolour or move the cursor. Every control character, C0 (U+0000–U+001F), DEL and C1
 * (U+0080–U+009F), shows as `�` (U+FFFD), except a newline and a tab, which keep the text's layout.
 * Without ESC, BEL, or the C1 CSI/OSC/ST, no sequence can start or end, and what is left is
 * printable text, shown unchanged. The Python CLI applies the same rule (docs/python.md).
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, '\uFFFD');
}

/** C0, DEL and C1 (`\p{Cc}`), but a newline and a tab. */
const CONTROL = /[^\P{Cc}\n\t]/gu;

/**
 * JSON for a terminal or a pipe: `JSON.stringify` escapes C0 itself but writes DEL and C1 as they
 * are, and a terminal reads U+009B as CSI; `\u009b` is the same JSON string, so `--json` stays
 * exact while no raw control character reaches the terminal.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
