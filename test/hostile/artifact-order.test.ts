import { describe, expect, it } from 'vitest';
import { runScriptAgent } from './support/script-agent.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * An agent printing more artifact messages than an execution takes (200), kept and refused ones
 * interleaved: pull requests core keeps, pull requests core refuses (not http(s)), files the
 * executor refuses (not in the workspace). The transcript tells them in the order printed: each
 * kept artifact's `artifact` event and each refusal's `status` event where its message was, and
 * the note that the messages past 200 were dropped after all of them (docs/executors.md,
 * "Artifacts").
 */

const MESSAGES = 205;
const MAX_MESSAGES = 200;
/** Message `i`: odd, a pull request kept; 2 mod 4, one refused by core; 0 mod 4, a file refused by the executor. */
const message = (i: number) =>
  i % 2 === 1
    ? { agentrun: 'artifact', type: 'PULL_REQUEST', url: `https://example.test/pr/${i}`, branch: `b${i}` }
    : i % 4 === 2
      ? { agentrun: 'artifact', type: 'PULL_REQUEST', url: `javascript:alert(${i})`, branch: `b${i}` }
      : { agentrun: 'artifact', type: 'FILE', path: `missing-${i}.txt` };
const AGENT = `for (let i = 1; i <= ${MESSAGES}; i++) console.log(JSON.stringify((${message.toString()})(i)));`;

/** The event message `i` leaves. */
const expected = (i: number) =>
  i % 2 === 1
    ? {
        type: 'artifact',
        data: {
          artifact_type: 'PULL_REQUEST',
          created_at: expect.any(String),
          data: { url: `https://example.test/pr/${i}`, branch: `b${i}` },
        },
      }
    : i % 4 === 2
      ? { type: 'status', data: { message: 'Artifact refused: invalid artifact: url: must be an http(s) URL' } }
      : { type: 'status', data: { message: `Artifact refused: missing-${i}.txt: no such file` } };

describe.each(HOSTILE_STORES)(`an agent printing ${MESSAGES} artifact messages, kept and refused in turn, on %s`, (kind) => {
  const stores = storeFor(kind, 'artifact_order');

  it('stores their events in the order printed, the note on the messages past 200 last', async () => {
    const { run, events, errors } = await runScriptAgent(await stores.fresh(), AGENT);
    expect(run.state).toBe('SUCCEEDED');
    expect(run.artifacts?.map((a) => (a.data as { url?: string }).url)).toEqual(
      Array.from({ length: MAX_MESSAGES / 2 }, (_, k) => `https://example.test/pr/${2 * k + 1}`),
    );
    expect(events).toEqual([
      ...Array.from({ length: MAX_MESSAGES }, (_, k) => expected(k + 1)),
      { type: 'status', data: { message: `Artifact refused: more than ${MAX_MESSAGES} artifact messages` } },
    ]);
    expect(errors).toEqual([]);
  }, 60_000);
});
