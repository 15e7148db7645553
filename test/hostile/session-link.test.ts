import { describe, expect, it } from 'vitest';
import { runScriptAgent } from './support/script-agent.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * An agent reporting a session link that is not http(s): `javascript:`, `data:`, `file:`. The
 * run's `session_link` is what a person opens, so it is held to what a pull request's URL is held
 * to (models/served-url.ts): the link is left out, the run keeps the link it had, the session's
 * status event stands without it and a `status` event says it was refused (docs/run-api.md, "The
 * run"). An http(s) link reported after them is kept.
 */

const line = (message: object) => `console.log(${JSON.stringify(JSON.stringify(message))});`;
const AGENT = [
  line({ agentrun: 'session', id: 's-1', link: 'javascript:alert(document.cookie)' }),
  line({ agentrun: 'session', link: 'data:text/html,<script>alert(1)</script>' }),
  line({ agentrun: 'session', link: 'file:///etc/passwd' }),
].join('\n');
const REFUSED = { type: 'status', data: { message: 'Session link refused: must be an http(s) URL' } };

describe.each(HOSTILE_STORES)('an agent reporting a session link that is not http(s), on %s', (kind) => {
  const stores = storeFor(kind, 'session_link');

  it('keeps none of them: the run keeps its own link, and each refusal is an event', async () => {
    const { run, events, errors } = await runScriptAgent(await stores.fresh(), AGENT, { publicBaseUrl: 'https://agents.example.com' });
    expect(run.state).toBe('SUCCEEDED');
    expect(run.session_id).toBe('s-1');
    expect(run.session_link).toBe(`https://agents.example.com/dashboard/runs/${run.task_id}`);
    expect(events).toEqual([
      { type: 'status', data: { message: 'Session started', session_id: 's-1' } },
      REFUSED,
      { type: 'status', data: { message: 'Session started' } },
      REFUSED,
      { type: 'status', data: { message: 'Session started' } },
      REFUSED,
    ]);
    expect(errors).toEqual([]);
  }, 30_000);

  it('keeps an http(s) link reported after a refused one', async () => {
    const agent = `${AGENT}\n${line({ agentrun: 'session', link: 'https://agent.example.com/s/1' })}`;
    const { run, events } = await runScriptAgent(await stores.fresh(), agent);
    expect(run.session_link).toBe('https://agent.example.com/s/1');
    expect(events.at(-1)).toEqual({ type: 'status', data: { message: 'Session started', session_link: 'https://agent.example.com/s/1' } });
    expect(JSON.stringify(events)).not.toMatch(/javascript:|data:text|file:/);
  }, 30_000);
});
