import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

// Properties of applying definition files (docs/definitions.md), over random sequences of
// directories applied with --prune: an apply that succeeds leaves the factory exactly as the files
// say and a second apply of it writes nothing; a refused one (a rename) writes nothing; a file
// kept from one apply to the next keeps its UID.

const KEY = Buffer.alloc(32, 3).toString('base64');
const NAMES = ['alpha', 'beta', 'gamma', 'delta'] as const;

const webhookFile = fc.record({
  auth_mode: fc.constantFrom('token', 'url_token'),
  secret_name: fc.constantFrom('s1', 's2'),
  enabled: fc.boolean(),
  delivery_id_header: fc.option(fc.constant('X-Id'), { nil: undefined }),
});

const directory = fc
  .record({
    webhooks: fc.dictionary(fc.constantFrom(...NAMES), webhookFile, { maxKeys: 4 }),
    automations: fc.dictionary(
      fc.constantFrom('triage', 'fix'),
      fc.record({
        prompt: fc.constantFrom('one', 'two'),
        enabled: fc.boolean(),
        pick: fc.array(fc.nat(3), { minLength: 1, maxLength: 2 }),
      }),
      { maxKeys: 2 },
    ),
  })
  .map(({ webhooks, automations }) => {
    const names = Object.keys(webhooks);
    return {
      webhooks: Object.entries(webhooks).map(([name, w]) => ({
        name,
        ...w,
        ...(w.delivery_id_header === undefined ? { delivery_id_header: undefined } : {}),
      })),
      // Triggers name only webhooks of this directory; an automation needs one to name.
      automations:
        names.length === 0
          ? []
          : Object.entries(automations).map(([name, a]) => ({
              name,
              prompt: a.prompt,
              enabled: a.enabled,
              triggers: [{ webhooks: [...new Set(a.pick.map((k) => names[k % names.length] as string))] }],
            })),
    };
  });

type Directory = typeof directory extends fc.Arbitrary<infer D> ? D : never;
// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; the route table's schemas check their shapes elsewhere
type Json = Record<string, any>;

describe('applying definition files (property)', () => {
  it('an applied directory is exactly the factory; re-applying writes nothing; a refusal writes nothing; UIDs stay', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(directory, { minLength: 1, maxLength: 4 }), async (directories) => {
        const h = await setup({ secretKey: KEY });
        const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
          const answer = await h.json<Json>(method, path, body === undefined ? {} : { body });
          expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
          return answer.body;
        };
        await ok('PUT', '/team/secrets/s1', { value: 'token-one' });
        await ok('PUT', '/team/secrets/s2', { value: 'token-two' });
        const factory = (await ok('POST', '/factories', { name: 'f' })).uid as string;
        const state = async () => ({
          webhooks: (await ok('GET', `/factories/${factory}/webhooks`)).webhooks as Json[],
          automations: (await ok('GET', `/factories/${factory}/automations`)).automations as Json[],
        });
        const apply = (d: Directory) => h.json<Json>('POST', `/factories/${factory}/apply`, { body: { ...d, prune: true } });

        let uids = new Map<string, string>();
        for (const d of directories) {
          const before = await state();
          const answer = await apply(d);
          if (answer.status === 400) {
            // Only a rename is refused here (every file is valid), and it writes nothing.
            for (const e of answer.body.errors) expect(e.detail).toContain('renaming a webhook is not supported');
            expect(await state()).toEqual(before);
            continue;
          }
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          const after = await state();
          const shown = after.webhooks.map((w) => ({
            name: w.name,
            auth_mode: w.auth_mode,
            secret_name: w.secret_name,
            enabled: w.enabled,
            delivery_id_header: w.delivery_id_header,
          }));
          const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
          expect(shown.sort(byName)).toEqual(
            d.webhooks
              .map(({ name, auth_mode, secret_name, enabled, delivery_id_header }) => ({
                name,
                auth_mode,
                secret_name,
                enabled,
                delivery_id_header,
              }))
              .sort(byName),
          );
          const uidOf = new Map(after.webhooks.map((w) => [w.name as string, w.uid as string]));
          for (const [name, uid] of uids) if (uidOf.has(name)) expect(uidOf.get(name)).toBe(uid);
          uids = uidOf;
          expect(
            after.automations
              .map((a) => ({ name: a.name, prompt: a.prompt, enabled: a.enabled, webhook_ids: a.triggers[0].filter.webhook_ids }))
              .sort(byName),
          ).toEqual(
            d.automations
              .map((a) => ({
                name: a.name,
                prompt: a.prompt,
                enabled: a.enabled,
                webhook_ids: a.triggers[0]!.webhooks.map((n) => uidOf.get(n)),
              }))
              .sort(byName),
          );
          const again = await apply(d);
          expect(again.body).toMatchObject({ applied: false });
          for (const x of [...again.body.webhooks, ...again.body.automations]) expect(x.action).toBe('unchanged');
        }
      }),
      { numRuns: 100 },
    );
  });
});
