import type { ModelApi } from './api.js';
import type { Step } from './script.js';

/**
 * The Gemini API as Gemini CLI calls it (`GOOGLE_GEMINI_BASE_URL`, API-key auth):
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for the agent's turns, and the
 * non-streamed `:generateContent` and `:countTokens`, which the CLI calls for its side checks
 * (model routing, next-speaker, loop detection, compression) when they are on. A history's
 * model turns are its `contents` entries of role `model`: the CLI folds one streamed answer
 * (text and function calls alike) into a single entry.
 */
export const geminiApi: ModelApi = {
  name: 'gemini',
  matches: (method, url) => method === 'POST' && ENDPOINT.test(url),
  turns: (body) => contentsOf(body).filter((content) => content.role === 'model').length,
  respond(step, { url, body }, res) {
    const method = ENDPOINT.exec(url)?.[2];
    if (method === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: promptTokens(body) }));
      return;
    }
    const invalid = unansweredCalls(body);
    if (invalid) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(invalid));
      return;
    }
    const answer = response(step, body);
    if (method === 'streamGenerateContent') {
      // One SSE event holding the whole answer: the CLI reads `data:` lines and joins the chunks.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  },
};

/** `/v1beta/models/<model>:<method>`, query allowed; the model is the CLI's `-m`. */
const ENDPOINT = /^\/v1(?:beta|alpha)?\/models\/([^/:?]+):(streamGenerateContent|generateContent|countTokens)(?:\?|$)/;

/** The model a recorded request's URL names. */
export const geminiModelOf = (url: string): string | undefined => ENDPOINT.exec(url)?.[1];

interface Content {
  role?: string;
  parts?: unknown[];
}

const contentsOf = (body: unknown): Content[] => {
  const contents = (body as { contents?: unknown } | undefined)?.contents;
  return Array.isArray(contents) ? contents.filter((c): c is Content => typeof c === 'object' && c !== null) : [];
};

/**
 * What the Gemini API refuses (400 INVALID_ARGUMENT): a function-call turn not followed by as many
 * function responses as it has calls. A scripted server taking such a history would pass a CLI
 * whose requests the real API rejects.
 */
function unansweredCalls(body: unknown): object | undefined {
  const contents = contentsOf(body);
  const count = (content: Content | undefined, key: string) =>
    (content?.parts ?? []).filter((part) => typeof part === 'object' && part !== null && key in part).length;
  const mismatch = contents.some(
    (content, i) =>
      content.role === 'model' &&
      count(content, 'functionCall') > 0 &&
      i + 1 < contents.length &&
      count(contents[i + 1], 'functionResponse') !== count(content, 'functionCall'),
  );
  if (!mismatch) return undefined;
  const message =
    'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
  return { error: { code: 400, message, status: 'INVALID_ARGUMENT' } };
}

/** A token count that grows with the request, so usage is never a constant the tests could not tell apart. */
const promptTokens = (body: unknown): number => Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));

const part = (step: Step): Record<string, unknown> => {
  if ('text' in step) return { text: step.text };
  if ('shell' in step) return { functionCall: { name: 'run_shell_command', args: { command: step.shell } } };
  // write_file resolves a relative path against the workspace (its project root).
  return { functionCall: { name: 'write_file', args: { file_path: step.write.path, content: step.write.content } } };
};

const response = (step: Step, body: unknown) => {
  const input = promptTokens(body);
  const output = Math.max(1, Math.ceil(JSON.stringify(step).length / 4));
  return {
    candidates: [{ content: { role: 'model', parts: [part(step)] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output },
    modelVersion: 'scripted',
  };
};
