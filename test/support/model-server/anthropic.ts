import type { ServerResponse } from 'node:http';
import type { ModelApi } from './api.js';
import type { Step } from './script.js';

/**
 * The Anthropic Messages API as Claude Code calls it: `POST /v1/messages?beta=true`, streamed as
 * server-sent events, or one JSON message when `stream` is not true (Claude Code's fallback after a
 * stream that broke). A `{shell}` step is a call of Claude Code's `Bash` tool, a `{write}` step of
 * its `Write` tool (whose schema wants an absolute path: the working directory is read from the
 * request), a `{text}` step text and `end_turn`. Claude Code makes no other call when its
 * non-essential traffic is off (without that, a `HEAD /api/hello` preconnect, answered 404 here).
 */
export const anthropicApi: ModelApi = {
  name: 'anthropic',
  matches: (method, url) => method === 'POST' && /^\/v1\/messages(\?|$)/.test(url),
  turns: (body) => messagesOf(body).filter((m) => m.role === 'assistant').length,
  respond(step, { body }, res) {
    const model = typeof (body as { model?: unknown })?.model === 'string' ? (body as { model: string }).model : 'scripted';
    const block = contentFor(step, body);
    const message = { id: `msg_${randomId()}`, type: 'message', role: 'assistant', model, stop_sequence: null };
    const stop = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
    if ((body as { stream?: unknown })?.stream === true) {
      stream(res, message, block, stop);
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ...message, content: [block], stop_reason: stop, usage: USAGE }));
  },
};

/** Every answer's token counts: prompt caching in both forms, so a reader that drops it shows. */
export const USAGE = { input_tokens: 20, cache_creation_input_tokens: 4, cache_read_input_tokens: 2, output_tokens: 7 };

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function stream(res: ServerResponse, message: object, block: Block, stop: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: object) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } } });
  if (block.type === 'tool_use') {
    send('content_block_start', { index: 0, content_block: { ...block, input: {} } });
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: USAGE.output_tokens } });
  send('message_stop', {});
  res.end();
}

function contentFor(step: Step, body: unknown): Block {
  if ('shell' in step) {
    return {
      type: 'tool_use',
      id: `toolu_${randomId()}`,
      name: 'Bash',
      input: { command: step.shell, description: 'Run the scripted command' },
    };
  }
  if ('write' in step) {
    const cwd = workingDirectory(body);
    const path = step.write.path.startsWith('/') || cwd === undefined ? step.write.path : `${cwd.replace(/\/$/, '')}/${step.write.path}`;
    return { type: 'tool_use', id: `toolu_${randomId()}`, name: 'Write', input: { file_path: path, content: step.write.content } };
  }
  return { type: 'text', text: step.text };
}

/**
 * The working directory Claude Code states in its environment section ("Primary working
 * directory: …"), which it sends as a `system` message or in the system prompt.
 */
function workingDirectory(body: unknown): string | undefined {
  const match = /Primary working directory: (\/[^\n]*)/.exec(textsOf(body).join('\n'));
  return match?.[1]?.trim();
}

function textsOf(body: unknown): string[] {
  const system = (body as { system?: unknown })?.system;
  const parts: unknown[] = [system, ...messagesOf(body).map((m) => m.content)];
  return parts.flatMap((part) =>
    typeof part === 'string' ? [part] : Array.isArray(part) ? part.map((b) => String((b as { text?: unknown })?.text ?? '')) : [],
  );
}

function messagesOf(body: unknown): { role?: unknown; content?: unknown }[] {
  const messages = (body as { messages?: unknown })?.messages;
  return Array.isArray(messages) ? messages : [];
}

const randomId = (): string => Math.random().toString(36).slice(2, 14).padEnd(12, '0');
