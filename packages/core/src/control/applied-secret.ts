import type { ControlContext } from './control-context.js';
import type { SecretRecord, WebhookRecord } from './records.js';
import { sealedSecret } from './sealed-secret.js';
import { secretSlot } from './secret-cipher.js';

// A file-defined webhook verifies with a copy of the team secret its file names, taken when its
// definition applies (docs/definitions.md, "Managed secrets"): a new value given to the team secret
// takes effect at the next apply, never silently before. The copy is stored as a secret of the team
// under a name no caller can give (team secret names start with a letter or digit), which also
// carries the team secret's name for display.

const PREFIX = '~';

/** Where a file-defined webhook's copy of team secret `secretName` is kept. */
export const appliedSecretName = (secretName: string, webhookUid: string): string => `${PREFIX}${secretName}@${webhookUid}`;

/** Whether the name is an applied copy's (hidden from the team's secret list). */
export const isAppliedSecretName = (name: string): boolean => name.startsWith(PREFIX);

/** Whether the webhook was defined by a file (it verifies with an applied copy). */
export const isFileDefined = (w: WebhookRecord): boolean => isAppliedSecretName(w.secretName);

/** The team secret a webhook names: for a file-defined one, the secret its file names. */
export const teamSecretNameOf = (w: WebhookRecord): string =>
  isFileDefined(w) ? w.secretName.slice(PREFIX.length, w.secretName.lastIndexOf('@')) : w.secretName;

/** The copy of `value` (team secret `secretName`'s) that webhook `webhookUid` verifies with, sealed. */
export const appliedCopy = (ctx: ControlContext, teamUid: string, secretName: string, webhookUid: string, value: string) =>
  sealedSecret(ctx, teamUid, appliedSecretName(secretName, webhookUid), value);

/** A team secret's value, or `undefined` when the team has none of this name. */
export async function openTeamSecret(
  ctx: ControlContext,
  teamUid: string,
  name: string,
): Promise<{ record: SecretRecord; value: string } | undefined> {
  const record = await ctx.store.secrets.get(teamUid, name);
  if (!record) return undefined;
  return { record, value: await ctx.cipher.open(record.ciphertext, secretSlot(teamUid, name)) };
}
