import type { SecretCipher } from '../control/secret-cipher.js';
import type { ClaimedCallback } from '../store/callbacks.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import type { HmacPort } from '../verify/crypto.js';
import { signStandardWebhooks } from '../verify/standard-webhooks-sign.js';
import { callbackBody } from './message.js';
import { type CallbackRetryPolicy, nextAttemptAfterFailure, shouldDisable } from './policy.js';
import { callbackSecretSlot } from './records.js';
import type { CallbackResponse, CallbackSender } from './sender.js';

/**
 * The outbox's dispatcher (docs/callbacks.md, "Delivery"): claims due deliveries, signs each with
 * its endpoint's secret, sends it, logs the attempt and schedules the next one or gives up. It
 * runs on a runner's `callbacks` part (a maintenance task, dispatch-task.ts), in any number of processes:
 * the store's claim gives each delivery to one of them at a time.
 */
export interface CallbackDispatcherOptions {
  store: Store;
  cipher: SecretCipher;
  hmac: HmacPort;
  sender: CallbackSender;
  clock: Clock;
  policy: CallbackRetryPolicy;
  /** Deliveries claimed per round. Default 20. */
  batchSize?: number;
  random?: () => number;
  onError: (error: unknown) => void;
}

export interface CallbackDispatcher {
  /** Claim what is due and send it; resolves to how many attempts were made. */
  dispatchDue(): Promise<number>;
}

export function createCallbackDispatcher(options: CallbackDispatcherOptions): CallbackDispatcher {
  const { store, cipher, hmac, sender, clock, policy } = options;
  const random = options.random ?? Math.random;

  const send = async ({ delivery, url, secretCiphertext }: ClaimedCallback): Promise<CallbackResponse> => {
    let secret: string;
    try {
      secret = await cipher.open(secretCiphertext, callbackSecretSlot(delivery.teamUid, delivery.endpointId));
    } catch (error) {
      options.onError(error);
      return { error: 'the signing secret could not be opened (docs/operations.md, "Rotating the secret key")' };
    }
    const body = callbackBody(delivery);
    const signed = await signStandardWebhooks(hmac, secret, delivery.id, clock.now() / 1000, body);
    return sender.send({
      url,
      headers: { ...signed, 'content-type': 'application/json', 'user-agent': 'agentrun-callbacks' },
      body,
      timeoutMs: policy.timeoutMs,
    });
  };

  const attempt = async (claimed: ClaimedCallback, claimedUntil: string, endpointFailingSince: string | null): Promise<void> => {
    const { delivery } = claimed;
    const started = clock.now();
    const response = await send(claimed);
    const now = clock.now();
    const ok = 'status' in response && response.status >= 200 && response.status < 300;
    const error = ok ? null : 'status' in response ? `HTTP ${response.status}` : response.error;
    const roundAttempts = delivery.roundAttempts + 1;
    const next = ok ? undefined : nextAttemptAfterFailure(policy, roundAttempts, Date.parse(delivery.windowStartedAt), now, random);
    const failingSince = ok ? null : (endpointFailingSince ?? isoTime(now));
    await store.callbacks.recordAttempt({
      claimedUntil,
      attempt: {
        deliveryId: delivery.id,
        attempt: delivery.attempts + 1,
        at: isoTime(started),
        statusCode: 'status' in response ? response.status : null,
        durationMs: Math.max(0, now - started),
        error,
        ok,
      },
      status: ok ? 'succeeded' : next === undefined ? 'failed' : 'pending',
      nextAttemptAt: next === undefined ? null : isoTime(next),
      now: isoTime(now),
      endpoint: { failingSince, disable: failingSince !== null && shouldDisable(policy, Date.parse(failingSince), now) },
    });
  };

  return {
    async dispatchDue() {
      const now = clock.now();
      // Long enough for the attempt and its log write; a dead process's claim lapses after it.
      const claimUntil = isoTime(now + policy.timeoutMs * 2 + 5_000);
      const claimed = await store.callbacks.claimDue({ now: isoTime(now), limit: options.batchSize ?? 20, claimUntil });
      // The endpoints' failing_since as each attempt starts (read once per round).
      const endpoints = new Map<string, string | null>();
      for (const c of claimed) {
        if (endpoints.has(c.delivery.endpointId)) continue;
        const endpoint = await store.callbacks.getEndpoint(c.delivery.teamUid, c.delivery.endpointId);
        endpoints.set(c.delivery.endpointId, endpoint?.failingSince ?? null);
      }
      const results = await Promise.allSettled(claimed.map((c) => attempt(c, claimUntil, endpoints.get(c.delivery.endpointId) ?? null)));
      for (const r of results) if (r.status === 'rejected') options.onError(r.reason);
      return claimed.length;
    },
  };
}
