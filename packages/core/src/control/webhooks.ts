import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { toggleFileDefined } from '../definitions/toggle.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import { newId } from '../util/ids.js';
import { requireFactory, requireManage, requireWebhook } from './access.js';
import { isFileDefined, teamSecretNameOf } from './applied-secret.js';
import { type ControlContext, ingressOrigin, nowIso } from './control-context.js';
import { generateStandardWebhooksSecret, generateToken } from './generated-secrets.js';
import type { WebhookRecord } from './records.js';
import { CreateWebhookSchema, PatchWebhookSchema, ProviderSecretSchema } from './schemas.js';
import { sealedSecret } from './sealed-secret.js';
import { secretSlot } from './secret-cipher.js';
import { secretUnfitFor } from './secret-fit.js';
import { type WebhookView, webhookView } from './views.js';

/** The answer to creating a webhook or rotating its secret: the secret appears here only. */
export interface WebhookWithSecret {
  webhook: WebhookView;
  ingress_url: string;
  secret?: string;
}

export async function createWebhook(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  input: unknown,
  requestOrigin: string,
): Promise<WebhookWithSecret> {
  requireManage(p);
  const body = parseOrThrow(CreateWebhookSchema, input, 'webhook');
  await requireFactory(ctx, p, factoryUid);
  if (await ctx.store.definitions.get(p.team_uid, factoryUid))
    throw conflict(
      `factory ${factoryUid}'s webhooks are defined by files: add webhooks/${body.name}.yaml and apply it (docs/definitions.md)`,
    );
  const now = nowIso(ctx);
  const uid = newId();

  // Where the credential comes from: a team secret named by the caller (reused, never shown), a
  // provider secret the caller supplies (never shown), or one generated here (shown once).
  let secretName = body.secret_name;
  let value: string | undefined;
  let shown: string | undefined;
  if (secretName !== undefined) {
    const existing = await ctx.store.secrets.get(p.team_uid, secretName);
    if (!existing)
      throw invalidRequest(
        `invalid webhook: secret_name: no team secret named ${secretName}; create it first (PUT /team/secrets/${secretName})`,
      );
    const problem = secretUnfitFor(body.auth_mode, await ctx.cipher.open(existing.ciphertext, secretSlot(p.team_uid, secretName)));
    if (problem) throw invalidRequest(`invalid webhook: secret_name: secret ${secretName} ${problem}`);
  } else {
    secretName = suggestedSecretName(body.name, uid);
    if (body.provider_secret !== undefined) value = body.provider_secret;
    else if (body.auth_mode !== 'signature') value = shown = generateToken();
    else if (body.signature_scheme === 'standard-webhooks') value = shown = generateStandardWebhooksSecret();
    // Otherwise the provider issues the secret after it has the URL: none yet, so all fail closed.
  }

  const webhook: WebhookRecord = {
    uid,
    teamUid: p.team_uid,
    factoryUid,
    name: body.name,
    authMode: body.auth_mode,
    signatureScheme: body.signature_scheme ?? null,
    secretName,
    deliveryIdHeader: body.delivery_id_header ?? null,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const secret = value === undefined ? undefined : await sealedSecret(ctx, p.team_uid, secretName, value);
  const audit = auditEvent(p, 'webhook.created', { type: 'webhook', id: uid, factoryUid }, now, {
    name: body.name,
    auth_mode: body.auth_mode,
    secret_name: secretName,
  });
  const result = await ctx.store.webhooks.create({
    webhook,
    ...(secret ? { secret } : {}),
    maxPerFactory: ctx.maxWebhooksPerFactory,
    audit,
  });
  if (!result.created) {
    if (result.reason === 'limit')
      throw conflict(`factory ${factoryUid} already has ${ctx.maxWebhooksPerFactory} webhooks, the most it may have`);
    throw conflict(`a team secret named ${secretName} already exists; name it with secret_name to reuse it`);
  }
  return withSecret(webhook, ingressOrigin(ctx, requestOrigin), shown);
}

export async function listWebhooks(ctx: ControlContext, p: Principal, factoryUid: string, requestOrigin: string) {
  await requireFactory(ctx, p, factoryUid);
  const origin = ingressOrigin(ctx, requestOrigin);
  return { webhooks: (await ctx.store.webhooks.list(p.team_uid, factoryUid)).map((w) => webhookView(w, origin)) };
}

export async function getWebhook(ctx: ControlContext, p: Principal, factoryUid: string, uid: string, requestOrigin: string) {
  return webhookView(await requireWebhook(ctx, p, factoryUid, uid), ingressOrigin(ctx, requestOrigin));
}

export async function patchWebhook(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  uid: string,
  input: unknown,
  requestOrigin: string,
) {
  requireManage(p);
  const patch = parseOrThrow(PatchWebhookSchema, input, 'webhook change');
  const current = await requireWebhook(ctx, p, factoryUid, uid);
  if (isFileDefined(current)) {
    if (patch.delivery_id_header !== undefined) throw definedByFile(current, 'change deliveryIdHeader in its file and apply it');
    const toggled = patch.enabled === undefined ? current : await toggleFileDefined(ctx, p, current, patch.enabled);
    return webhookView(toggled, ingressOrigin(ctx, requestOrigin));
  }
  const now = nowIso(ctx);
  // Enabling or disabling alone is a toggle; any other change (the delivery-id header) an update.
  const kind = patch.enabled !== undefined && patch.delivery_id_header === undefined ? 'webhook.toggled' : 'webhook.updated';
  const detail = {
    ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    ...(patch.delivery_id_header !== undefined ? { delivery_id_header: patch.delivery_id_header } : {}),
  };
  const updated = await ctx.store.webhooks.update(
    p.team_uid,
    factoryUid,
    uid,
    {
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      ...(patch.delivery_id_header !== undefined ? { deliveryIdHeader: patch.delivery_id_header } : {}),
    },
    now,
    auditEvent(p, kind, { type: 'webhook', id: uid, factoryUid }, now, detail),
  );
  if (!updated) throw notFound(`webhook ${uid} not found`);
  return webhookView(updated, ingressOrigin(ctx, requestOrigin));
}

export async function deleteWebhook(ctx: ControlContext, p: Principal, factoryUid: string, uid: string): Promise<void> {
  requireManage(p);
  const current = await requireWebhook(ctx, p, factoryUid, uid);
  if (isFileDefined(current)) throw definedByFile(current, 'delete its file and apply with --prune');
  const now = nowIso(ctx);
  const audit = auditEvent(p, 'webhook.deleted', { type: 'webhook', id: uid, factoryUid }, now, { name: current.name });
  if (!(await ctx.store.webhooks.update(p.team_uid, factoryUid, uid, { deletedAt: now }, now, audit)))
    throw notFound(`webhook ${uid} not found`);
}

/**
 * A new secret, shown once; the old one fails from this moment on (docs/management-api.md,
 * "Webhooks"). Generated for tokens and Standard Webhooks; for a provider that issues its own
 * signing secrets (Stripe, GitHub, …) the request carries the provider's new one as
 * `{ "secret": "…" }`.
 */
export async function rotateSecret(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  uid: string,
  input: unknown,
  requestOrigin: string,
): Promise<WebhookWithSecret> {
  requireManage(p);
  const given = input === undefined ? undefined : parseOrThrow(ProviderSecretSchema, input, 'rotation').secret;
  const webhook = await requireWebhook(ctx, p, factoryUid, uid);
  if (isFileDefined(webhook)) throw definedByFile(webhook, newValueAdvice(webhook));
  const providerIssued = webhook.authMode === 'signature' && webhook.signatureScheme !== 'standard-webhooks';
  let value: string;
  if (providerIssued) {
    if (given === undefined)
      throw invalidRequest(
        `invalid rotation: secret: required: ${webhook.signatureScheme} issues its own signing secrets; create a new one there and send it here as { "secret": "…" }`,
      );
    value = given;
  } else {
    if (given !== undefined) throw invalidRequest("invalid rotation: secret: this webhook's secret is generated here; send no body");
    value = webhook.authMode === 'signature' ? generateStandardWebhooksSecret() : generateToken();
  }
  const sealed = await sealedSecret(ctx, p.team_uid, webhook.secretName, value);
  await ctx.store.secrets.put(
    sealed,
    auditEvent(p, 'webhook.rotated', { type: 'webhook', id: uid, factoryUid }, sealed.updatedAt, { secret_name: webhook.secretName }),
  );
  return withSecret(webhook, ingressOrigin(ctx, requestOrigin), value);
}

/** The second step for providers that issue their secret after they have the URL. */
export async function putProviderSecret(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  uid: string,
  input: unknown,
  requestOrigin: string,
) {
  requireManage(p);
  const { secret } = parseOrThrow(ProviderSecretSchema, input, 'provider secret');
  const webhook = await requireWebhook(ctx, p, factoryUid, uid);
  if (isFileDefined(webhook)) throw definedByFile(webhook, newValueAdvice(webhook));
  if (webhook.authMode !== 'signature')
    throw conflict(`webhook ${uid} uses ${webhook.authMode} authentication; only signature webhooks take a provider secret`);
  const sealed = await sealedSecret(ctx, p.team_uid, webhook.secretName, secret);
  await ctx.store.secrets.put(
    sealed,
    auditEvent(p, 'webhook.rotated', { type: 'webhook', id: uid, factoryUid }, sealed.updatedAt, {
      secret_name: webhook.secretName,
      provider_secret: true,
    }),
  );
  return webhookView(webhook, ingressOrigin(ctx, requestOrigin));
}

/** A change the API refuses for a file-defined webhook: its file says, and the apply writes. */
const definedByFile = (w: WebhookRecord, advice: string) =>
  conflict(`webhook ${w.uid} is defined by webhooks/${w.name}.yaml: ${advice} (docs/definitions.md)`);

/** How a file-defined webhook's secret changes (seed 4.9 item 4). */
const newValueAdvice = (w: WebhookRecord) =>
  `give team secret ${teamSecretNameOf(w)} its new value (agentrun secret update ${teamSecretNameOf(w)} --team), then apply the definition again: change its file, or disable and enable the webhook`;

/**
 * The one answer that shows a secret: a `url_token` webhook's ingress URL holds the token, so it
 * is complete here only; the webhook's own view keeps the `{token}` placeholder.
 */
function withSecret(webhook: WebhookRecord, origin: string, secret: string | undefined): WebhookWithSecret {
  return {
    webhook: webhookView(webhook, origin),
    ingress_url: webhookView(webhook, origin, webhook.authMode === 'url_token' ? secret : undefined).ingress_url,
    ...(secret !== undefined ? { secret } : {}),
  };
}

/** `webhook-<slug>-<8 chars of the uid>`: readable, and unique enough not to collide in a team. */
function suggestedSecretName(name: string, uid: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `webhook-${slug || 'secret'}-${uid.replace(/-/g, '').slice(0, 8)}`;
}
