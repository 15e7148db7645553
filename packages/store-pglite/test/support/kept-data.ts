import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '@agentrun/core';
import { makeFactory, makeRun, makeSecret, testPrincipal } from '@agentrun/core/testing';
import { expect } from 'vitest';

/** What `writeKeptData` wrote: enough to find each record again. */
export interface KeptData {
  runId: string;
  factoryUid: string;
  secretName: string;
  apiKeyHash: string;
}

/** A factory, a secret, an API key and a queued run: what a restart must keep. */
export async function writeKeptData(store: Store): Promise<KeptData> {
  const factory = makeFactory();
  const secret = makeSecret({ ciphertext: 'v1.kept' });
  const apiKeyHash = createHash('sha256').update(randomBytes(16)).digest('hex');
  const run = makeRun({ config: { name: 'kept' } });
  await store.factories.create(factory);
  await store.secrets.put(secret);
  await store.apiKeys.create({ hash: apiKeyHash, prefix: 'ar_kept', name: 'kept', principal: testPrincipal(), createdAt: run.createdAt });
  await store.runs.create({ run, attachments: [] });
  return { runId: run.id, factoryUid: factory.uid, secretName: secret.name, apiKeyHash };
}

/** Every record of `kept` is in `store`, as written. */
export async function expectKept(store: Store, kept: KeptData): Promise<void> {
  expect(await store.factories.get('team-1', kept.factoryUid)).toMatchObject({ uid: kept.factoryUid });
  expect(await store.secrets.get('team-1', kept.secretName)).toMatchObject({ ciphertext: 'v1.kept' });
  expect(await store.apiKeys.findByHash(kept.apiKeyHash)).toMatchObject({ name: 'kept', prefix: 'ar_kept' });
  expect(await store.runs.get(kept.runId)).toMatchObject({ id: kept.runId, prompt: 'Fix the bug in auth.go' });
}
