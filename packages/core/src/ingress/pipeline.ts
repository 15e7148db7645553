import { bearerToken } from '../auth/api-keys.js';
import type { SecretRecord, WebhookRecord } from '../control/records.js';
import { type SecretCipher, secretSlot } from '../control/secret-cipher.js';
import { AgentRunError, type ErrorCode, isAgentRunError } from '../errors.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH, readBodyLimited, strictUtf8 } from '../http/body.js';
import { remoteAddress } from '../http/remote-address.js';
import { jsonResponse, problemResponse } from '../http/responses.js';
import { deliveryLogFields } from '../logging/delivery-fields.js';
import { addLogFields } from '../logging/request-log.js';
import type { RateAdmission } from '../store/ingress.js';
import type { Store } from '../store/store.js';
import type { DeliveryObservation, IngressTelemetry } from '../telemetry/delivery-span.js';
import { type Clock, isoTime } from '../util/clock.js';
import { newOrderedId } from '../util/ids.js';
import { constantTimeEqual } from '../verify/constant-time.js';
import type { Sha256Port } from '../verify/crypto.js';
import type { VerifierRegistry } from '../verify/registry.js';
import { resolveDeliveryIdentity } from './identity.js';
import type { DeliveryRecord, DeliveryStatus } from './records.js';
import { storedRequest } from './stored-headers.js';

/** Per webhook, over a sliding window (docs/webhooks.md, "Answers, log labels and limits"). */
export interface IngressLimits {
  /** Largest body, in bytes (default 256 KB). */
  maxBodyBytes: number;
  /** Deliveries per window per webhook (default 60 a minute). */
  deliveriesPerWindow: number;
  /** Failed authentications per window per webhook before a 429 (default 20). */
  authFailuresPerWindow: number;
  windowMs: number;
}

export const DEFAULT_INGRESS_LIMITS: IngressLimits = {
  maxBodyBytes: 262_144,
  deliveriesPerWindow: 60,
  authFailuresPerWindow: 20,
  windowMs: 60_000,
};

export interface IngressOptions {
  store: Store;
  cipher: SecretCipher;
  verifiers: VerifierRegistry;
  /** SHA-256 for delivery identities hashed from the body. */
  sha256: Sha256Port;
  clock: Clock;
  limits: IngressLimits;
  onError: (error: unknown) => void;
  /** The delivery's span and counts (telemetry/delivery-span.ts); absent without an OpenTelemetry SDK. */
  telemetry?: IngressTelemetry | undefined;
  /**
   * A delivery was accepted, its `bytes`-long body parsed into `value`: this process's evaluator
   * looks at once, and evaluates it without parsing it again (evaluation/evaluator.ts).
   */
  onAccepted?: ((deliveryId: string, value: unknown, bytes: number) => void) | undefined;
}

const encoder = new TextEncoder();

/** A webhook secret opened, while its stored ciphertext is this one. */
interface OpenedSecret {
  ciphertext: string;
  value: string;
  bytes: Uint8Array;
}

const WEBHOOK_UID = /^[\x21-\x7e]{1,256}$/;

/**
 * The webhook ingress: from the first byte to the accepted delivery, in the order docs/webhooks.md lists
 * ("Answers, log labels and limits"), each check answered at the first failure. Nothing an
 * unauthenticated sender does is logged or stored beyond the failed-auth budget, so the log grows
 * no faster than that budget allows.
 */
/** The ingress's path params, as sent (percent-encoded): `/webhooks/w/{uid}` and `/webhooks/w/{uid}/{token}`. */
interface IngressParams {
  uid: string;
  token?: string;
}

export type Ingress = (request: Request, params: IngressParams) => Promise<Response>;

export function createIngress(options: IngressOptions): Ingress {
  const { store, cipher, verifiers, sha256, clock, limits } = options;

  const problem = (code: ErrorCode, detail: string, headers: Record<string, string> = {}) =>
    problemResponse(new AgentRunError(code, detail, { headers }));
  const noSuchWebhook = () => problem('not_found', 'no such webhook');
  const tooLarge = () => problem('payload_too_large', `the body is larger than ${limits.maxBodyBytes} bytes`);
  const retryAfter = (ms: number) => ({ 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) });

  const entry = (
    webhook: WebhookRecord,
    statusLabel: DeliveryStatus,
    size: number,
    receivedAt: string,
    identity: string | null = null,
  ): DeliveryRecord => ({
    id: newOrderedId(),
    teamUid: webhook.teamUid,
    factoryUid: webhook.factoryUid,
    webhookUid: webhook.uid,
    identity,
    size,
    receivedAt,
    status: statusLabel,
    payload: null,
  });

  /**
   * Opened secrets by slot, valid while the stored ciphertext is the same: every seal uses a fresh
   * IV, so a rotation changes the ciphertext and the next delivery opens the new value. Saves an
   * AES-GCM decrypt per delivery; the store is still read each time (with the delivery's
   * context), so a rotation or delete made by another process takes effect at once.
   */
  const opened = new Map<string, OpenedSecret>();

  async function openedSecret(webhook: WebhookRecord, record: SecretRecord | undefined): Promise<OpenedSecret | undefined> {
    if (!record) return undefined;
    const slot = secretSlot(webhook.teamUid, webhook.secretName);
    const cached = opened.get(slot);
    if (cached?.ciphertext === record.ciphertext) return cached;
    try {
      const value = await cipher.open(record.ciphertext, slot);
      if (opened.size >= 10_000) opened.clear();
      // Its UTF-8 bytes with it: a token check compares bytes, and need not encode the secret each time.
      const secret = { ciphertext: record.ciphertext, value, bytes: encoder.encode(value) };
      opened.set(slot, secret);
      return secret;
    } catch (error) {
      // No key, or a key that cannot open it: fail closed, and tell the operator.
      if (!isAgentRunError(error)) options.onError(error);
      return undefined;
    }
  }

  const authBudget = (webhook: WebhookRecord, now: string): RateAdmission => ({
    key: `auth:${webhook.uid}`,
    limit: limits.authFailuresPerWindow,
    windowMs: limits.windowMs,
    now,
  });
  const deliveryRate = (webhook: WebhookRecord, now: string): RateAdmission => ({
    key: `rate:${webhook.uid}`,
    limit: limits.deliveriesPerWindow,
    windowMs: limits.windowMs,
    now,
  });
  const tooManyFailures = (retryAfterMs: number) =>
    problem('rate_limited', 'too many failed authentications for this webhook', retryAfter(retryAfterMs));
  const tooManyDeliveries = (retryAfterMs: number) =>
    problem('rate_limited', `more than ${limits.deliveriesPerWindow} deliveries a minute to this webhook`, retryAfter(retryAfterMs));

  /**
   * A failed authentication: counted against the budget and logged in one step, and only when
   * the budget admits it; past the budget it is a 429 that writes nothing.
   */
  async function authFailure(
    webhook: WebhookRecord,
    labelStatus: 401 | 413,
    size: number,
    receivedAt: string,
    seen: DeliveryObservation | undefined,
  ): Promise<Response> {
    const label = labelStatus === 401 ? 'Rejected (auth)' : 'Rejected (too large)';
    const logged = await store.deliveries.log(entry(webhook, label, size, receivedAt), authBudget(webhook, receivedAt));
    if (!logged.logged) seen?.refused('auth_budget');
    if (!logged.logged) return tooManyFailures(logged.retryAfterMs);
    seen?.label(label);
    return labelStatus === 401 ? problem('unauthorized', 'authentication failed') : tooLarge();
  }

  const { telemetry } = options;
  if (telemetry) return (request, params) => telemetry.delivery(request, (seen) => deliver(request, params, seen));
  return deliver;

  async function deliver(request: Request, params: IngressParams, seen?: DeliveryObservation): Promise<Response> {
    // One instant for the whole delivery: its log time and the time every limit is judged at.
    const receivedAt = isoTime(clock.now());
    let uid: string;
    let pathToken: string | undefined;
    try {
      uid = decodeURIComponent(params.uid);
      pathToken = params.token === undefined ? undefined : decodeURIComponent(params.token);
    } catch {
      return noSuchWebhook();
    }
    // Webhook UIDs are visible ASCII; anything else (NUL, which Postgres cannot even compare) is
    // no webhook, answered before any store is asked, alike on every store.
    if (!WEBHOOK_UID.test(uid)) return noSuchWebhook();

    // Everything about the webhook in one read: the checks up to step 3 and the automations of step 9.
    const context = await store.deliveries.context({
      webhookUid: uid,
      authBudgetKey: `auth:${uid}`,
      windowMs: limits.windowMs,
      now: receivedAt,
    });

    // 1. Unknown, disabled or deleted: 404, not logged. A token segment on a webhook of another mode is a wrong URL too.
    if (!context) return noSuchWebhook();
    const { webhook } = context;
    seen?.webhook(webhook);
    if (webhook.deletedAt !== null || !webhook.enabled || (pathToken !== undefined && webhook.authMode !== 'url_token')) {
      return noSuchWebhook();
    }

    // 2. The failed-auth budget, spent: 429, not logged.
    if (context.authFailures.count >= limits.authFailuresPerWindow) seen?.refused('auth_budget');
    if (context.authFailures.count >= limits.authFailuresPerWindow) return tooManyFailures(context.authFailures.retryAfterMs);

    // 3. Bearer and URL tokens: checked from the header or the path before any body byte is read.
    let authenticated = false;
    // The secret, opened: no stored header may hold it (stored-headers.ts).
    let secretValue: string | undefined;
    if (webhook.authMode !== 'signature') {
      const presented = webhook.authMode === 'token' ? bearerToken(request) : pathToken;
      const secret = await openedSecret(webhook, context.secret);
      if (presented === undefined || secret === undefined || !constantTimeEqual(encoder.encode(presented), secret.bytes)) {
        return authFailure(webhook, 401, 0, receivedAt, seen);
      }
      authenticated = true;
      secretValue = secret.value;
    }

    // 4. The body, streamed, reading stopped at the limit.
    let body: Uint8Array;
    try {
      body = await readBodyLimited(request, limits.maxBodyBytes);
    } catch (error) {
      if (isAgentRunError(error) && error.code === 'payload_too_large') {
        if (!authenticated) return authFailure(webhook, 413, limits.maxBodyBytes + 1, receivedAt, seen);
        await store.deliveries.log(entry(webhook, 'Rejected (too large)', limits.maxBodyBytes + 1, receivedAt));
        seen?.label('Rejected (too large)');
        return tooLarge();
      }
      return problem('invalid_request', 'the request body could not be read to its end');
    }

    // 5. Signatures: over the exact bytes received.
    let providerDeliveryId: string | undefined;
    if (webhook.authMode === 'signature') {
      secretValue = (await openedSecret(webhook, context.secret))?.value;
      const result = await verifiers.verify(webhook.signatureScheme ?? '', {
        body,
        headers: request.headers,
        secret: secretValue,
        now: clock.now(),
      });
      if (!result.ok) return authFailure(webhook, 401, body.byteLength, receivedAt, seen);
      providerDeliveryId = result.deliveryId;
    }

    // 6. The delivery rate is admitted by the write that follows, in the same store step, before
    // anything is written: a 429 there writes nothing, whatever the body is. So:
    // 7. JSON (any JSON value; Content-Type is not enforced).
    const parsed = parseDeliveryJson(body);
    if (!parsed.ok) {
      const logged = await store.deliveries.log(
        entry(webhook, 'Rejected (invalid JSON)', body.byteLength, receivedAt),
        deliveryRate(webhook, receivedAt),
      );
      if (logged.logged) seen?.label('Rejected (invalid JSON)');
      else seen?.refused('rate_limit');
      return logged.logged ? problem('invalid_request', parsed.reason) : tooManyDeliveries(logged.retryAfterMs);
    }

    // 8–9. Identity, then accept: the admission, the delivery and its log entry in one store step.
    // Its runs are made afterwards by an evaluator (evaluation/), in this process or another.
    const identity = resolveDeliveryIdentity({
      headers: request.headers,
      configuredHeader: webhook.deliveryIdHeader,
      providerDeliveryId,
      body: parsed.value,
      sha256,
    });
    const delivery = {
      ...entry(webhook, 'Accepted', body.byteLength, receivedAt, identity.value),
      payload: body,
      request: storedRequest(request.headers, remoteAddress(request), {
        secretHeaders: webhook.authMode === 'signature' ? verifiers.get(webhook.signatureScheme ?? '')?.secretHeaders : undefined,
        secret: secretValue,
      }),
    };
    const outcome = await store.deliveries.accept({ delivery, admit: deliveryRate(webhook, receivedAt) });
    if ('rateLimited' in outcome) seen?.refused('rate_limit');
    if ('rateLimited' in outcome) return tooManyDeliveries(outcome.retryAfterMs);
    seen?.accepted(outcome.accepted ? 'Accepted' : 'Duplicate', delivery.id);
    if (outcome.accepted) options.onAccepted?.(delivery.id, parsed.value, body.byteLength);
    addLogFields(request, () => deliveryLogFields(delivery.id, outcome.accepted)); // the request's log line (logging/)
    return jsonResponse({ delivery_id: delivery.id }, 202);
  }
}

/** Any character `trim` keeps (`\s` is exactly what it removes), found without copying the text. */
const NOT_BLANK = /\S/;

/** Strict UTF-8, bounded nesting, then JSON.parse; never throws. */
function parseDeliveryJson(body: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string } {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    return { ok: false, reason: 'the body is not valid UTF-8' };
  }
  if (!NOT_BLANK.test(text)) return { ok: false, reason: 'the body is empty; send a JSON value' };
  // Deeper than this cannot be hashed for its identity safely; no real event comes close.
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return { ok: false, reason: `the body nests deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: `the body is not valid JSON: ${(error as Error).message}` };
  }
}
