import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

// The two trigger shapes of an automation file (docs/definitions.md, "Triggers"): webhook file
// names, or the seed's `{ provider, event, filter: { webhook_ids } }`. Whatever mix of shapes a
// file uses, the automation stores the same triggers, and applying the other mix writes nothing.

const KEY = Buffer.alloc(32, 3).toString('base64');
const NAMES = ['alpha', 'beta', 'gamma'] as const;

const trigger = fc.record({
  pick: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }),
  payload: fc.option(fc.constantFrom({ action: ['opened'] }, { ref: { exists: true } }), { nil: undefined }),
  seedShape: fc.boolean(),
});

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; the route table's schemas check their shapes elsewhere
type Json = Record<string, any>;

describe('trigger shapes in definition files (property)', () => {
  it('any mix of file names and UIDs stores the same triggers; switching shapes changes nothing', async () => {
    const h = await setup({ secretKey: KEY });
    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const answer = await h.json<Json>(method, path, body === undefined ? {} : { body });
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      return answer.body;
    };
    await ok('PUT', '/team/secrets/s1', { value: 'token-one' });
    const factory = (await ok('POST', '/factories', { name: 'f' })).uid as string;
    const webhooks = NAMES.map((name) => ({ name, secret_name: 's1' }));
    const applied = await ok('POST', `/factories/${factory}/apply`, { webhooks });
    const uidOf = new Map<string, string>(applied.webhooks.map((w: Json) => [w.name, w.uid]));

    const written = (ts: { pick: string[]; payload?: object; seedShape: boolean }[], flip: boolean) =>
      ts.map((t) =>
        t.seedShape !== flip
          ? {
              provider: 'webhook',
              event: 'received',
              filter: { webhook_ids: t.pick.map((n) => uidOf.get(n)), ...(t.payload ? { payload: t.payload } : {}) },
            }
          : { webhooks: t.pick, ...(t.payload ? { payload: t.payload } : {}) },
      );

    await fc.assert(
      fc.asyncProperty(fc.array(trigger, { minLength: 1, maxLength: 4 }), async (ts) => {
        const apply = (flip: boolean) =>
          ok('POST', `/factories/${factory}/apply`, { webhooks, automations: [{ name: 'a', prompt: 'p', triggers: written(ts, flip) }] });
        await apply(false);
        const [automation] = (await ok('GET', `/factories/${factory}/automations`)).automations;
        expect(automation.triggers).toEqual(
          ts.map((t) => ({
            provider: 'webhook',
            event: 'received',
            filter: { webhook_ids: [...new Set(t.pick.map((n) => uidOf.get(n)))], ...(t.payload ? { payload: t.payload } : {}) },
          })),
        );
        const flipped = await apply(true);
        expect(flipped.automations).toEqual([expect.objectContaining({ action: 'unchanged' })]);
      }),
      { numRuns: 100 },
    );
  });
});
