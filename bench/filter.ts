import { compileFilter, type PayloadFilter, type PayloadMatcher } from '@agentrun/core/filter';
import { referenceMatch } from '@agentrun/test-utils/filter-reference';
import sift from 'sift';
import { pullRequestPayload } from './github-payload.js';
import type { BenchGroup } from './run.js';

/**
 * Payload filter evaluations per second on GitHub `pull_request` bodies (~23 KB each): the
 * compiled matcher against sift (a MongoDB-query matcher), a hand-written predicate (the practical
 * limit) and the plain reference interpreter of the tests. Every contender is first checked to
 * give the same answer on every payload, then all are timed in interleaved rounds through one
 * call site (as the ingress calls many automations' matchers), and each keeps its median round.
 */
const FILTER: PayloadFilter = {
  action: ['opened', 'synchronize'],
  pull_request: { base: { ref: ['main'] }, draft: [false] },
  repository: { full_name: { not_in: ['acme/legacy'] } },
};

const SIFT_QUERY = {
  action: { $in: ['opened', 'synchronize'] },
  'pull_request.base.ref': { $in: ['main'] },
  'pull_request.draft': { $in: [false] },
  'repository.full_name': { $nin: ['acme/legacy'] },
};

// biome-ignore lint/suspicious/noExplicitAny: a hand-written predicate reads the body as JavaScript does.
const handwritten: PayloadMatcher = (payload: any) => {
  const action = payload?.action;
  if (action !== 'opened' && action !== 'synchronize') return false;
  const pr = payload.pull_request;
  if (pr?.base?.ref !== 'main' || pr.draft !== false) return false;
  return payload.repository?.full_name !== 'acme/legacy';
};

/** Payloads: 64 bodies, half matching; each other one misses on a different key in turn. */
const PAYLOADS = 64;
const ROUNDS = 7;
const ROUND_MS = 400;
const BATCH = 1 << 16;

function payloads(): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < PAYLOADS; i++) {
    const variant = {
      action: i % 4 === 0 ? 'opened' : 'synchronize',
      baseRef: 'main',
      draft: false,
      fullName: 'acme/api',
      number: 100 + i,
    };
    if (i % 2 === 1) {
      const miss = (i >> 1) % 4;
      if (miss === 0) variant.action = ['closed', 'labeled', 'edited'][i % 3] as string;
      if (miss === 1) variant.baseRef = 'develop';
      if (miss === 2) variant.draft = true;
      if (miss === 3) variant.fullName = 'acme/legacy';
    }
    // Parsed from text, as the ingress has them.
    out.push(JSON.parse(JSON.stringify(pullRequestPayload(variant))));
  }
  return out;
}

/** Evaluations per second over one round; the hit count is returned so no call can be optimised away. */
function round(matcher: PayloadMatcher, bodies: readonly unknown[]): { perS: number; hits: number } {
  let hits = 0;
  let evaluations = 0;
  const mask = bodies.length - 1;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < BATCH; i++) if (matcher(bodies[i & mask])) hits++;
    evaluations += BATCH;
    elapsed = performance.now() - start;
  } while (elapsed < ROUND_MS);
  return { perS: evaluations / (elapsed / 1000), hits };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export const filterGroup: BenchGroup = {
  name: 'filter',
  description: 'payload filter evaluations per second, GitHub pull_request bodies (~23 KB), 4-key filter',
  async run() {
    const bodies = payloads();
    const contenders: Record<string, PayloadMatcher> = {
      compiled: compileFilter(FILTER),
      sift: sift(SIFT_QUERY) as PayloadMatcher,
      handwritten,
      reference: (payload) => referenceMatch(FILTER, payload),
    };
    // Same answers everywhere, half of them true, or the figures compare different work.
    const expected = bodies.map((body) => handwritten(body));
    if (expected.filter(Boolean).length !== PAYLOADS / 2) throw new Error('expected half of the payloads to match');
    for (const [name, matcher] of Object.entries(contenders)) {
      bodies.forEach((body, i) => {
        if (matcher(body) !== expected[i]) throw new Error(`${name} disagrees on payload ${i}`);
      });
    }

    const rates: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
    let checksum = 0;
    // The first round warms up every contender and is not counted.
    for (let r = 0; r <= ROUNDS; r++) {
      for (const [name, matcher] of Object.entries(contenders)) {
        const { perS, hits } = round(matcher, bodies);
        checksum += hits;
        if (r > 0) rates[name]?.push(perS);
      }
    }
    if (checksum === 0) throw new Error('no matches: the measured work was not done');

    const perS = (name: string) => median(rates[name] ?? [0]);
    return {
      'filter.compiled_per_s': perS('compiled'),
      'filter.sift_per_s': perS('sift'),
      'filter.handwritten_per_s': perS('handwritten'),
      'filter.reference_per_s': perS('reference'),
      'filter.compiled_vs_sift': perS('compiled') / perS('sift'),
      'filter.compiled_vs_handwritten': perS('compiled') / perS('handwritten'),
    };
  },
};
