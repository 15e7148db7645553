/**
 * A tool call's input in a few words (docs/run-api.md, "Run events"), for the dashboard's blocks,
 * the CLI's `--follow` lines and a run's status while the tool runs: the command for a shell tool,
 * the path for a file tool (with the pattern for a search), else compact JSON. Agents
 * name their tools differently (Claude Code `Bash`/`Write`, Codex `shell`, Gemini CLI
 * `run_shell_command`/`write_file`), so file tools are known by their input's fields, not names.
 */

/** Longer summaries are cut here; a page or a terminal cuts them to its width as well. */
export const MAX_SUMMARY = 200;

const SHELL_TOOLS = new Set(['bash', 'shell', 'run_shell_command', 'local_shell', 'exec_command', 'shell_command']);

/** The fields that hold a file tool's path, most specific first. */
const PATH_FIELDS = ['file_path', 'notebook_path', 'absolute_path', 'path', 'dir_path'] as const;

/** The fields a summary reads; in a truncated input, read from its JSON text. */
const SUMMARY_FIELDS = ['command', 'cmd', ...PATH_FIELDS, 'pattern', 'url', 'query'] as const;

type Fields = Partial<Record<(typeof SUMMARY_FIELDS)[number], unknown>>;

const isShellTool = (name: string): boolean => SHELL_TOOLS.has(name.toLowerCase());

/** The summary line of a tool call (`input_truncated`: `input` is the start of its JSON text). */
export function toolSummary(name: string, input: unknown, inputTruncated = false): string {
  return oneLine(toolSummaryText(name, input, inputTruncated));
}

/** The same summary, whole: it may hold several lines (a script), for a reader that lays them out itself. */
export function toolSummaryText(name: string, input: unknown, inputTruncated = false): string {
  const truncatedText = inputTruncated && typeof input === 'string' ? input : undefined;
  const fields: Fields | undefined = truncatedText !== undefined ? fieldsOfJsonText(truncatedText) : isRecord(input) ? input : undefined;
  const what = fields ? summaryOfFields(name, fields) : undefined;
  return what ?? truncatedText ?? compactJson(input);
}

/** A tool call's whole input as people read it: pretty JSON, or the truncated JSON text as it came. */
export function toolInputText(input: unknown, inputTruncated = false): string {
  if (inputTruncated && typeof input === 'string') return input;
  return JSON.stringify(input, null, 2) ?? String(input);
}

function summaryOfFields(name: string, fields: Fields): string | undefined {
  if (isShellTool(name)) {
    const command = commandText(fields.command ?? fields.cmd);
    if (command !== undefined) return command;
  }
  const path = PATH_FIELDS.map((field) => fields[field]).find(isText);
  if (isText(fields.pattern)) return path !== undefined ? `${fields.pattern} in ${path}` : fields.pattern;
  if (path !== undefined) return path;
  if (isText(fields.url)) return fields.url;
  if (isText(fields.query)) return fields.query;
  return undefined;
}

/**
 * A shell tool's command: a string as it is; an argument list (Codex's `["bash", "-lc", "…"]`)
 * as the script it hands the shell, or else its words joined.
 */
function commandText(command: unknown): string | undefined {
  if (isText(command)) return command;
  if (!Array.isArray(command) || !command.every((word) => typeof word === 'string') || command.length === 0) return undefined;
  const [shell, flag, script] = command as string[];
  if (command.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(shell ?? '') && /^-l?i?c$/.test(flag ?? '')) return script;
  return (command as string[]).join(' ');
}

/**
 * The summary fields whose whole string value is in the start of a JSON text (a truncated input):
 * the first of each, read as JSON strings. A key inside a string value is escaped (`\"path\"`), so
 * it is not mistaken for one.
 */
function fieldsOfJsonText(text: string): Fields {
  const fields: Record<string, unknown> = {};
  const pattern = new RegExp(`"(${SUMMARY_FIELDS.join('|')})"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`, 'g');
  for (const match of text.matchAll(pattern)) {
    const [, key, literal] = match as unknown as [string, string, string];
    if (key in fields) continue;
    try {
      fields[key] = JSON.parse(literal) as unknown;
    } catch {
      // Not a whole JSON string after all: the field is left out of the summary.
    }
  }
  return fields;
}

/** The first line with text, marked `…` when more follow, cut at MAX_SUMMARY characters. */
function oneLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const first = (lines[0] ?? '').trim().replace(/\t/g, ' ');
  const line = lines.length > 1 ? `${first} …` : first;
  const chars = [...line];
  return chars.length > MAX_SUMMARY ? `${chars.slice(0, MAX_SUMMARY - 1).join('')}…` : line;
}

const compactJson = (input: unknown): string => (input === undefined ? '' : (JSON.stringify(input) ?? String(input)));

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
