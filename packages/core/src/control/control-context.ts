import type { SkillCatalog } from '../skills/skill-catalog.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import type { SecretCipher } from './secret-cipher.js';

/**
 * What every management operation works with: `ControlService`'s options, resolved once. The
 * operations are plain functions of it, one module per resource (factories.ts, team-secrets.ts,
 * webhooks.ts, deliveries.ts, automations.ts, test-filter.ts).
 */
export interface ControlContext {
  store: Store;
  /** Seals team secrets before they reach the store (secret-cipher.ts). */
  cipher: SecretCipher;
  clock: Clock;
  /** Base of ingress URLs, without a trailing slash; `undefined`: the origin of the request that asks. */
  baseUrl: string | undefined;
  maxWebhooksPerFactory: number;
  /** Where automations' skill specs are checked (skills/resolve-skill.ts). */
  skills: SkillCatalog;
}

/** Now, as records store it. */
export const nowIso = (ctx: ControlContext): string => isoTime(ctx.clock.now());

/** The origin ingress URLs are shown under: the configured base, else the asking request's origin. */
export const ingressOrigin = (ctx: ControlContext, requestOrigin: string): string => ctx.baseUrl ?? requestOrigin;
