/**
 * A minimal MCP server over stdio (newline-delimited JSON-RPC) for the harness tests, as the source
 * of a node script: one tool, `ping`, whose description carries the server's `$MCP_MARK` and its
 * arguments, so a test reads from the model request what the server was started with.
 */
export const MCP_STDIO_SERVER = `
import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
const results = {
  initialize: (params) => ({
    protocolVersion: params?.protocolVersion ?? '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name: 'agentrun-test', version: '1.0.0' },
  }),
  'tools/list': () => ({
    tools: [{
      name: 'ping',
      description: 'Answers pong. Mark: ' + (process.env.MCP_MARK ?? 'none') + '. Args: ' + process.argv.slice(2).join(' '),
      inputSchema: { type: 'object', properties: {} },
    }],
  }),
  'tools/call': () => ({ content: [{ type: 'text', text: 'pong' }] }),
  ping: () => ({}),
};
createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try { request = JSON.parse(line); } catch { return; }
  if (request.id === undefined) return;
  const result = results[request.method];
  send(result ? { id: request.id, result: result(request.params) } : { id: request.id, error: { code: -32601, message: 'no method ' + request.method } });
});
`;
