import * as v from 'valibot';
import { checkOptions } from '../util/check-options.js';
import type { AgentRunOptions } from './options.js';

/**
 * `createAgentRun` options, checked when agentrun is made, so a typo or a wrong type
 * fails at start with the option's name instead of silently changing behaviour (`maxBodyBytes:
 * '10mb'` once disabled the body limit). Ports are checked by shape, not by class.
 */
const fn = v.custom<(...args: never[]) => unknown>((x) => typeof x === 'function', 'must be a function');
const withMethods = (...names: string[]) =>
  v.custom<object>(
    (x) => typeof x === 'object' && x !== null && names.every((n) => typeof (x as Record<string, unknown>)[n] === 'function'),
    `must be an object with ${names.join(', ')}`,
  );
const positiveInt = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));
const nonNegativeInt = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0, 'must be at least 0'));
const httpUrl = v.pipe(
  v.string('must be a string'),
  v.url('must be an absolute URL such as https://hooks.example.com'),
  v.check((s) => /^https?:\/\//i.test(s), 'must be an http or https URL'),
);

const dashboardPathRule = 'must be a path starting with / (where the dashboard is mounted, e.g. /dashboard), or false';

const OptionsSchema = v.strictObject({
  store: v.custom<object>(
    (x) => typeof x === 'object' && x !== null && ['runs', 'apiKeys', 'deliveries'].every((k) => k in x),
    'is required: a Store, such as createMemoryStore() or createPostgresStore(…)',
  ),
  authenticate: v.optional(fn),
  events: v.optional(withMethods('on', 'emit')),
  clock: v.optional(withMethods('now')),
  maxBodyBytes: v.optional(positiveInt),
  idempotencyTtlMs: v.optional(positiveInt),
  auditRetentionMs: v.optional(positiveInt),
  sourcePollIntervalMs: v.optional(positiveInt),
  maxAttempts: v.optional(positiveInt),
  secretKey: v.optional(
    v.union(
      [v.string(), v.instance(Uint8Array), v.pipe(v.array(v.union([v.string(), v.instance(Uint8Array)])), v.minLength(1))],
      'must be a string (base64 or hex), bytes, or a non-empty list of them',
    ),
  ),
  publicBaseUrl: v.optional(httpUrl),
  dashboardPath: v.optional(v.union([v.literal(false), v.pipe(v.string(), v.regex(/^\/[^?#]*$/, dashboardPathRule))], dashboardPathRule)),
  webhookBaseUrl: v.optional(httpUrl),
  maxWebhooksPerFactory: v.optional(positiveInt),
  blobs: v.optional(withMethods('put', 'get', 'delete')),
  artifactLimits: v.optional(
    v.strictObject({ maxFileBytes: v.optional(positiveInt), maxRunBytes: v.optional(positiveInt), maxPerRun: v.optional(positiveInt) }),
  ),
  downloadUrlKey: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.minBytes(32)),
        v.pipe(
          v.instance(Uint8Array),
          v.check((k) => k.byteLength >= 32),
        ),
      ],
      'must be at least 32 bytes',
    ),
  ),
  hmac: v.optional(v.custom<object>((x) => typeof x === 'object' && x !== null, 'must be an HmacPort')),
  sha256: v.optional(withMethods('sha256')),
  verifiers: v.optional(v.custom<object>((x) => typeof x === 'object' && x !== null, 'must be a VerifierRegistry')),
  ingressLimits: v.optional(
    v.strictObject({
      maxBodyBytes: v.optional(positiveInt),
      deliveriesPerWindow: v.optional(positiveInt),
      authFailuresPerWindow: v.optional(positiveInt),
      windowMs: v.optional(positiveInt),
    }),
  ),
  evaluation: v.optional(
    v.strictObject({ batchSize: v.optional(positiveInt), leaseMs: v.optional(positiveInt), pollMs: v.optional(positiveInt) }),
  ),
  streamLimits: v.optional(v.strictObject({ queueBytes: v.optional(positiveInt), dropStalledAfterMs: v.optional(positiveInt) })),
  executor: v.optional(withMethods('execute')),
  repositories: v.optional(withMethods('resolve', 'readFile', 'listFiles')),
  maintenanceTasks: v.optional(
    v.array(
      v.custom<object>(
        (x) => typeof x === 'object' && x !== null && typeof (x as { run?: unknown }).run === 'function',
        'must be MaintenanceTasks ({ name, everyMs, run })',
      ),
    ),
  ),
  onError: v.optional(fn),
  telemetry: v.optional(v.union([v.literal(false), v.object({})])),
  onApiKeyEvent: v.optional(fn),
  keyUsageFlushMs: v.optional(positiveInt),
  skillRefreshMs: v.optional(positiveInt),
  logger: v.optional(withMethods('error', 'warn', 'info', 'debug')),
  callbacks: v.optional(
    v.strictObject({
      sender: v.optional(withMethods('send')),
      resolve: v.optional(fn),
      allowPrivateAddresses: v.optional(v.boolean('must be true or false')),
      policy: v.optional(
        v.strictObject({
          maxAttempts: v.optional(positiveInt),
          windowMs: v.optional(positiveInt),
          baseDelayMs: v.optional(nonNegativeInt),
          maxDelayMs: v.optional(nonNegativeInt),
          disableAfterMs: v.optional(nonNegativeInt),
          timeoutMs: v.optional(positiveInt),
        }),
      ),
    }),
  ),
});

/** Throw a TypeError naming the first wrong option (and the right name of a mistyped one). */
export function checkAgentRunOptions(options: AgentRunOptions, caller = 'createAgentRun'): void {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${caller}: options must be an object with a store`);
  checkOptions(caller, OptionsSchema, options, { store: 'a Store, such as createMemoryStore()' });
}
