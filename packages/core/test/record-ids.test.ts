import { describe, expect, it } from 'vitest';
import { manualClock, setup, T0 } from './helpers.js';

/**
 * Runs and deliveries take time-ordered (version 7) ids: on PostgreSQL a new primary key lands at
 * the right edge of its index instead of on a random page (bench/README.md, "What was tried").
 * With the clock standing still, each id is still greater than the last one made.
 */
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ORIGIN = 'http://agentrun.test';
const ascending = (ids: string[]) => ids.every((id, i) => i === 0 || (ids[i - 1] as string) < id);

describe('record ids', () => {
  it('runs made by the run API, in one millisecond, have version 7 ids in the order they were made', async () => {
    const h = await setup({ clock: manualClock(T0, 0) });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: `p${i}` } })).body.run_id);
    expect(ids.every((id) => V7.test(id))).toBe(true);
    expect(ascending(ids)).toBe(true);
  });

  it('deliveries and their runs have version 7 ids in the order they were made', async () => {
    const h = await setup({ secretKey: Buffer.alloc(32, 9).toString('base64'), clock: manualClock(T0, 0) });
    const factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
    const { webhook, secret } = (
      await h.json<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, { body: { name: 'CI' } })
    ).body;
    await h.json('POST', `/factories/${factory}/automations`, {
      body: {
        name: 'Triage',
        prompt: 'Triage.',
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] } }],
      },
    });
    const deliveries: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await h.handler(
        new Request(`${ORIGIN}/webhooks/w/${webhook.uid}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}` },
          body: `{"n":${i}}`,
        }),
      );
      expect(res.status).toBe(202);
      deliveries.push(((await res.json()) as { delivery_id: string }).delivery_id);
      expect(await h.evaluated()).toBe(1);
    }
    expect(deliveries.every((id) => V7.test(id))).toBe(true);
    expect(ascending(deliveries)).toBe(true);
    const runs = (
      await h.json<{ runs: { run_id: string; trigger: { delivery_id: string } }[] }>('GET', '/agent/runs?source=WEBHOOK&sort_by=created_at')
    ).body.runs;
    expect(runs).toHaveLength(10);
    const byDelivery = deliveries.map((d) => runs.find((r) => r.trigger.delivery_id === d)?.run_id as string);
    expect(byDelivery.every((id) => V7.test(id))).toBe(true);
    expect(ascending(byDelivery)).toBe(true);
  });
});
