import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import { teamSources } from '../sources/team-sources.js';
import { requireManage } from './access.js';
import { isAppliedSecretName } from './applied-secret.js';
import { type ControlContext, nowIso } from './control-context.js';
import type { WebhookRecord } from './records.js';
import { PutSecretSchema, SecretNameSchema } from './schemas.js';
import { sealedSecret } from './sealed-secret.js';
import { secretUnfitFor } from './secret-fit.js';
import { type SecretView, secretView } from './views.js';

/** Create or replace a team secret; its new value must suit every live webhook using it. */
export async function putSecret(
  ctx: ControlContext,
  p: Principal,
  name: string,
  input: unknown,
): Promise<{ created: boolean; secret: SecretView }> {
  requireManage(p);
  const secretName = parseOrThrow(SecretNameSchema, name, 'secret name');
  const { value } = parseOrThrow(PutSecretSchema, input, 'secret');
  // Every live webhook that uses this secret must still be able to match it
  // (docs/management-api.md, "Team secrets").
  for (const w of await webhooksUsing(ctx, p.team_uid, secretName)) {
    const problem = secretUnfitFor(w.authMode, value);
    if (problem) throw invalidRequest(`invalid secret: value: webhook ${w.uid} (${w.name}) uses this secret, and the new value ${problem}`);
  }
  const record = await sealedSecret(ctx, p.team_uid, secretName, value);
  const { created } = await ctx.store.secrets.put(
    record,
    auditEvent(p, 'secret.written', { type: 'secret', id: secretName }, record.updatedAt),
  );
  const stored = (await ctx.store.secrets.get(p.team_uid, secretName)) ?? record;
  return { created, secret: secretView(stored) };
}

export async function listSecrets(ctx: ControlContext, p: Principal) {
  // File-defined webhooks' applied copies are not the team's secrets to see or change.
  return { secrets: (await ctx.store.secrets.list(p.team_uid)).filter((s) => !isAppliedSecretName(s.name)).map(secretView) };
}

export async function deleteSecret(ctx: ControlContext, p: Principal, name: string): Promise<void> {
  requireManage(p);
  if (isAppliedSecretName(name)) throw notFound(`no team secret named ${name}`);
  // A live webhook's credential must not vanish under it: that would lock its senders out silently.
  const [user] = await webhooksUsing(ctx, p.team_uid, name);
  if (user) throw conflict(`secret ${name} is used by webhook ${user.uid} (${user.name}); delete that webhook first`);
  // Nor a repository's read credential: its skills would stop resolving (docs/repositories.md).
  const repository = (await ctx.store.repositories.list(p.team_uid)).find((r) => r.credentialSecret === name);
  if (repository) throw conflict(`secret ${name} is the read credential of repository ${repository.name}; remove that repository first`);
  // Nor a factory source's push secret: its notifications would all be refused.
  const source = (await teamSources(ctx.store, p.team_uid)).find((s) => s.pushSecret === name);
  if (source) throw conflict(`secret ${name} verifies the push notifications of factory ${source.factoryUid}; change that source first`);
  const audit = auditEvent(p, 'secret.deleted', { type: 'secret', id: name }, nowIso(ctx));
  if (!(await ctx.store.secrets.delete(p.team_uid, name, audit))) throw notFound(`no team secret named ${name}`);
}

/** The team's live webhooks whose credential is this secret, factory by factory, oldest first. */
async function webhooksUsing(ctx: ControlContext, teamUid: string, secretName: string): Promise<WebhookRecord[]> {
  const users: WebhookRecord[] = [];
  for (const factory of await ctx.store.factories.list(teamUid)) {
    for (const w of await ctx.store.webhooks.list(teamUid, factory.uid)) {
      if (w.secretName === secretName && w.deletedAt === null) users.push(w);
    }
  }
  return users;
}
