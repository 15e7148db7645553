import type { ServerResponse } from 'node:http';
import type { ModelApi } from './api.js';
import type { Step } from './script.js';

/**
 * OpenAI's Responses API (`POST /v1/responses`, streamed as server-sent events), as far as Codex
 * calls it. Codex declares its tools per model: a catalog model such as `gpt-5.5` gets
 * `exec_command` (a function) and `apply_patch` (a freeform "custom" tool) at the top level; a
 * code-mode model (the default `gpt-6.x` ones) gets a single freeform `exec` tool, declared in an
 * `additional_tools` input item, that runs JavaScript calling the same tools as `tools.*`. A step
 * is answered with whichever of these the request declares. A model unknown to Codex gets
 * `exec_command` but no `apply_patch`: a write step then answers with text saying so.
 */
export const openaiApi: ModelApi = {
  name: 'openai',
  matches: (method, url) => method === 'POST' && /\/responses$/.test(url.split('?')[0] ?? ''),
  turns: (body) => modelTurns(body),
  respond(step, { body }, res) {
    const turns = modelTurns(body);
    const item = outputItem(step, declaredTools(body), `${turns}`);
    stream(res, `resp_${turns}`, item);
  },
};

/** One item of a request's `input` (or of a response's `output`), as loosely as the tests need it. */
type Item = Record<string, unknown> & { type?: unknown; role?: unknown };

/** A tool the request declares: its kind (`function`, `custom`, …) and name. */
interface DeclaredTool {
  type: string;
  name: string;
}

const inputOf = (body: unknown): Item[] => {
  const input = (body as { input?: unknown } | undefined)?.input;
  return Array.isArray(input) ? input.filter((i): i is Item => typeof i === 'object' && i !== null) : [];
};

/**
 * Each scripted response holds exactly one output item (a message or one tool call), and Codex
 * sends every earlier output item back in `input`: so counting them counts the model's turns.
 * Tool outputs, user and developer messages are Codex's own and not counted.
 */
const modelTurns = (body: unknown): number =>
  inputOf(body).filter(
    (item) => (item.type === 'message' && item.role === 'assistant') || item.type === 'function_call' || item.type === 'custom_tool_call',
  ).length;

/** Every tool the request declares, namespaces flattened: top-level `tools` and `additional_tools` input items. */
function declaredTools(body: unknown): DeclaredTool[] {
  const lists: unknown[] = [(body as { tools?: unknown } | undefined)?.tools];
  for (const item of inputOf(body)) if (item.type === 'additional_tools') lists.push(item.tools);
  const found: DeclaredTool[] = [];
  const visit = (tools: unknown): void => {
    if (!Array.isArray(tools)) return;
    for (const tool of tools as { type?: unknown; name?: unknown; tools?: unknown }[]) {
      if (tool.type === 'namespace') visit(tool.tools);
      else if (typeof tool.type === 'string') found.push({ type: tool.type, name: typeof tool.name === 'string' ? tool.name : '' });
    }
  };
  for (const list of lists) visit(list);
  return found;
}

const has = (tools: readonly DeclaredTool[], type: string, name?: string): boolean =>
  tools.some((t) => t.type === type && (name === undefined || t.name === name));

/** The `apply_patch` grammar's way of creating one file. */
function addFilePatch(path: string, content: string): string {
  const body = content.endsWith('\n') ? content.slice(0, -1) : content;
  const lines = body.split('\n').map((line) => `+${line}`);
  return ['*** Begin Patch', `*** Add File: ${path}`, ...lines, '*** End Patch', ''].join('\n');
}

/** The one output item answering `step` with the tools declared; `id` makes its ids. */
function outputItem(step: Step, tools: readonly DeclaredTool[], id: string): Item {
  const call = { id: `fc_${id}`, call_id: `call_${id}`, status: 'completed' };
  const codeMode = has(tools, 'custom', 'exec') && !has(tools, 'function', 'exec_command');
  if ('shell' in step) {
    if (codeMode) return { ...call, type: 'custom_tool_call', name: 'exec', input: execScript('exec_command', { cmd: step.shell }) };
    if (has(tools, 'function', 'exec_command'))
      return { ...call, type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: step.shell }) };
    // What the test then reads is this, not the file it expected.
    return message(`msg_${id}`, 'The request declares no exec_command tool.');
  }
  if ('write' in step) {
    const patch = addFilePatch(step.write.path, step.write.content);
    if (codeMode) return { ...call, type: 'custom_tool_call', name: 'exec', input: execScript('apply_patch', patch) };
    if (has(tools, 'custom', 'apply_patch')) return { ...call, type: 'custom_tool_call', name: 'apply_patch', input: patch };
    return message(`msg_${id}`, 'The request declares no apply_patch tool.');
  }
  return message(`msg_${id}`, step.text);
}

/** Code mode's JavaScript calling one nested tool and handing its result back. */
const execScript = (tool: string, input: unknown): string =>
  `const result = await tools.${tool}(${JSON.stringify(input)});\ntext(result);\n`;

const message = (id: string, text: string): Item => ({
  type: 'message',
  id,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});

/** The events of one streamed response holding `item`, then its end with token counts. */
function stream(res: ServerResponse, responseId: string, item: Item): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  const response = { id: responseId, object: 'response', status: 'in_progress', output: [] as Item[] };
  send('response.created', { response });
  send('response.in_progress', { response });
  const itemId = item.id as string;
  if (item.type === 'message') {
    const text = ((item.content as { text: string }[])[0] as { text: string }).text;
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    send('response.content_part.added', {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    send('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: text });
    send('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text });
  } else if (item.type === 'function_call') {
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    send('response.function_call_arguments.delta', { item_id: itemId, output_index: 0, delta: item.arguments });
    send('response.function_call_arguments.done', { item_id: itemId, output_index: 0, arguments: item.arguments });
  } else {
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', input: '' } });
    send('response.custom_tool_call_input.delta', { item_id: itemId, output_index: 0, delta: item.input });
    send('response.custom_tool_call_input.done', { item_id: itemId, output_index: 0, input: item.input });
  }
  send('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens: 120,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 12,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 132,
  };
  send('response.completed', { response: { ...response, status: 'completed', output: [item], usage } });
  res.end();
}
