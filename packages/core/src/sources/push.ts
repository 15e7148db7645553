import { openTeamSecret } from '../control/applied-secret.js';
import type { ControlContext } from '../control/control-context.js';
import { AgentRunError, notFound } from '../errors.js';
import { readBodyLimited, strictUtf8 } from '../http/body.js';
import type { VerifierRegistry } from '../verify/registry.js';
import type { SourceSyncer } from './syncer.js';

/** A push notification's body, at most: a GitHub push with many commits runs to a few MiB. */
const MAX_PUSH_BYTES = 5 * 1024 * 1024;

/** Failed verifications a factory's push endpoint takes a minute, as a webhook's (docs/webhooks.md); then 429. */
const FAILURES_PER_MINUTE = 20;
const MINUTE_MS = 60_000;

/** The answer of a push notification: whether it woke a sync. */
export interface PushAnswer {
  sync: 'started' | 'ignored';
}

/**
 * `POST /webhooks/sources/{factoryUid}` (docs/repositories.md, "Setting the source"): verified with
 * the source's scheme and team secret, by agentrun's own verifiers (verify/); a verified
 * notification only wakes the sync, which fetches the branch itself: nothing in the body is
 * trusted but its `ref`, read to skip pushes to other branches. A factory without a source, or a
 * source without a push scheme, is a 404; a signature that does not verify, a 401.
 */
export async function receivePush(
  ctx: ControlContext,
  verifiers: VerifierRegistry,
  syncer: SourceSyncer,
  request: Request,
  factoryUid: string,
): Promise<PushAnswer> {
  const source = await ctx.store.factorySources.find(factoryUid);
  if (!source || source.pushScheme === null || source.pushSecret === null) throw notFound(`no push endpoint for factory ${factoryUid}`);
  // A sender guessing signatures is refused before its body is read or checked.
  const budget = { key: `source-push-auth:${factoryUid}`, windowMs: MINUTE_MS, now: new Date(ctx.clock.now()).toISOString() };
  const failures = await ctx.store.rateLimits.peek(budget);
  if (failures.count >= FAILURES_PER_MINUTE) throw tooManyFailures(failures.retryAfterMs);
  const body = await readBodyLimited(request, MAX_PUSH_BYTES);
  // A missing secret fails closed, as a webhook's does.
  const secret = (await openTeamSecret(ctx, source.teamUid, source.pushSecret))?.value;
  const verdict = await verifiers.verify(source.pushScheme, { body, headers: request.headers, secret, now: ctx.clock.now() });
  if (!verdict.ok) {
    const counted = await ctx.store.rateLimits.admit({ ...budget, limit: FAILURES_PER_MINUTE });
    if (!counted.allowed) throw tooManyFailures(counted.retryAfterMs);
    throw new AgentRunError('unauthorized', `the push notification did not verify: ${verdict.reason}`);
  }
  if (!concernsBranch(body, source.branch)) return { sync: 'ignored' };
  syncer.wake(source, 'push');
  return { sync: 'started' };
}

const tooManyFailures = (retryAfterMs: number) =>
  new AgentRunError('rate_limited', 'too many push notifications that did not verify for this factory', {
    retryable: true,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  });

/** Bodies parsed for their `ref`, at most: a larger one wakes the sync unread, so no parse holds the event loop long. */
const MAX_PARSED_BYTES = 256 * 1024;

/** Whether a push names the branch, or names none that can be read (then the sync decides; it fetches anyway). */
function concernsBranch(body: Uint8Array, branch: string): boolean {
  if (body.byteLength > MAX_PARSED_BYTES) return true;
  let ref: unknown;
  try {
    ref = (JSON.parse(strictUtf8.decode(body)) as { ref?: unknown } | null)?.ref;
  } catch {
    return true;
  }
  return typeof ref !== 'string' || !ref.startsWith('refs/') || ref === `refs/heads/${branch}`;
}
