import { type ControlContext, nowIso } from './control-context.js';
import type { SecretRecord } from './records.js';
import { secretSlot } from './secret-cipher.js';

/**
 * A team secret as stores keep it: the value sealed and bound to its team and name, so no store
 * ever sees it and a ciphertext moved to another secret does not open (docs/management-api.md,
 * "Team secrets").
 */
export async function sealedSecret(ctx: ControlContext, teamUid: string, name: string, value: string): Promise<SecretRecord> {
  const now = nowIso(ctx);
  return { teamUid, name, ciphertext: await ctx.cipher.seal(value, secretSlot(teamUid, name)), createdAt: now, updatedAt: now };
}
