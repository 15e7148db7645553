import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { appliedCopy, openTeamSecret } from '../control/applied-secret.js';
import { type ControlContext, nowIso } from '../control/control-context.js';
import type { WebhookRecord } from '../control/records.js';
import { secretUnfitFor } from '../control/secret-fit.js';
import { conflict, invalidRequest } from '../errors.js';
import { writePlanned } from './write.js';

/**
 * Enable or disable a file-defined webhook (docs/definitions.md, "Managed secrets"). Turning it on
 * applies its definition again: it verifies from then on with the value its team secret has now,
 * the way seed 4.9 item 4 rolls a managed secret (update the secret, toggle Enabled off and on).
 * Written as an apply is, guarded by the factory's definition version.
 */
export async function toggleFileDefined(
  ctx: ControlContext,
  p: Principal,
  webhook: WebhookRecord,
  enabled: boolean,
): Promise<WebhookRecord> {
  const { teamUid, factoryUid, uid } = webhook;
  return writePlanned(ctx, factoryUid, async () => {
    // Read again on each planning, the set and the webhook from one snapshot: a concurrent apply
    // may have changed the webhook, and a webhook older than the set it is written under would undo it.
    const { set, webhooks } = await ctx.store.definitions.snapshot(teamUid, factoryUid);
    const entry = set?.webhooks.find((e) => e.uid === uid);
    const current = webhooks.find((w) => w.uid === uid);
    if (!set || !entry || !current) throw conflict(`webhook ${uid} is not in its factory's definitions any more; apply them again`);
    const now = nowIso(ctx);
    const record: WebhookRecord = { ...current, enabled, updatedAt: now };
    let next = entry;
    const putSecrets = [];
    if (enabled && !current.enabled) {
      const secret = await openTeamSecret(ctx, teamUid, entry.secretName);
      if (!secret)
        throw invalidRequest(
          `webhook ${current.name} names team secret ${entry.secretName}, which does not exist; create it first (agentrun secret create ${entry.secretName} --team)`,
        );
      const problem = secretUnfitFor(current.authMode, secret.value);
      if (problem) throw invalidRequest(`webhook ${current.name}: team secret ${entry.secretName} ${problem}`);
      putSecrets.push(await appliedCopy(ctx, teamUid, entry.secretName, uid, secret.value));
      next = { ...entry, secretUpdatedAt: secret.record.updatedAt };
    }
    return {
      answer: record,
      write: {
        set: { ...set, version: set.version + 1, appliedAt: now, webhooks: set.webhooks.map((e) => (e.uid === uid ? next : e)) },
        expectedVersion: set.version,
        putSecrets,
        deleteSecrets: [],
        putWebhooks: [record],
        putAutomations: [],
        deleteAutomations: [],
        maxWebhooksPerFactory: ctx.maxWebhooksPerFactory,
        audit: auditEvent(p, 'webhook.toggled', { type: 'webhook', id: uid, factoryUid }, now, { enabled, file_defined: true }),
      },
    };
  });
}
