import type { SecretServer } from './secret-server.js';

/** A run's end states. */
export const isFinal = (state: string) => ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes(state);

/** One call to the server's run API, its JSON (or text) answer; throws on a status that is not 200. */
export async function call(server: Pick<SecretServer, 'url' | 'apiKey'>, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
}

/** Every output line of the run's transcript, page by page through the API. */
export async function transcript(server: Pick<SecretServer, 'url' | 'apiKey'>, runId: string): Promise<string[]> {
  const lines: string[] = [];
  let after: string | number | undefined;
  for (;;) {
    const page = await call(server, 'GET', `/agent/runs/${runId}/events?limit=1000${after !== undefined ? `&after=${after}` : ''}`);
    for (const event of page.events) if (event.type === 'output') lines.push(event.data.text);
    if (!page.page_info.has_next_page) return lines;
    after = page.page_info.next_cursor;
  }
}
