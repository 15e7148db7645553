import { AREA_BASE, ROUTES, type RouteSpec } from '@agentrun/core/api';
import { describe, expect, it } from 'vitest';
import {
  AgentIdentities,
  AgentRunClient,
  Agents,
  ApiKeys,
  Artifacts,
  Audit,
  Automations,
  Callbacks,
  DELIVERY_STAT_LABELS,
  Deliveries,
  Environments,
  Factories,
  Repositories,
  Runs,
  Schedules,
  Secrets,
  Sources,
  STATS_RANGES,
  Stats,
  Webhooks,
  Workers,
} from '../src/index.js';
import { OPERATIONS } from '../src/operations.js';

/** Not for a client: the ingress is called by webhook providers, the OpenAPI document by tools, the probes by orchestrators. */
const NOT_CLIENT_OPERATIONS = new Set([
  'deliverWebhook',
  'deliverWebhookWithToken',
  'pushFactorySource',
  'getOpenApi',
  'getHealth',
  'getReadiness',
]);

const RESOURCES = {
  runs: Runs,
  artifacts: Artifacts,
  factories: Factories,
  secrets: Secrets,
  apiKeys: ApiKeys,
  webhooks: Webhooks,
  automations: Automations,
  deliveries: Deliveries,
  audit: Audit,
  repositories: Repositories,
  agents: Agents,
  agentIdentities: AgentIdentities,
  environments: Environments,
  sources: Sources,
  schedules: Schedules,
  callbacks: Callbacks,
  workers: Workers,
  stats: Stats,
};

describe('the client covers the route table', () => {
  it('has a resource method for every operation of ROUTES (aliases, the ingress and getOpenApi aside)', () => {
    const client = new AgentRunClient({ apiKey: 'k', baseURL: 'http://x', fetch: async () => new Response() });
    const covered = new Set<string>();
    const broken: string[] = [];
    for (const [name, Resource] of Object.entries(RESOURCES)) {
      const resource = client[name as keyof typeof RESOURCES] as unknown as Record<string, unknown>;
      for (const [method, operationId] of Object.entries(Resource.operations)) {
        if (typeof resource[method] !== 'function') broken.push(`client.${name}.${method}`);
        covered.add(operationId);
      }
    }
    const missing = Object.entries(ROUTES as Record<string, RouteSpec>)
      .filter(([id, spec]) => !NOT_CLIENT_OPERATIONS.has(id) && spec.aliasOf === undefined && !covered.has(id))
      .map(([id]) => id);
    expect(missing, `operations with no client method: ${missing.join(', ')}`).toEqual([]);
    expect(broken).toEqual([]);
  });

  it("carries every client operation with the table's method and full path, and nothing else", () => {
    const expected = Object.fromEntries(
      Object.entries(ROUTES as Record<string, RouteSpec>)
        .filter(([id]) => !NOT_CLIENT_OPERATIONS.has(id))
        .map(([id, spec]) => [id, `${spec.method} ${AREA_BASE[spec.area]}${spec.path}`]),
    );
    const actual = Object.fromEntries(Object.entries(OPERATIONS).map(([id, op]) => [id, `${op.method} ${op.path}`]));
    expect(actual).toEqual(expected);
  });

  it("reads each answer as the table's content kind says", () => {
    for (const [id, op] of Object.entries(OPERATIONS)) {
      const spec = (ROUTES as Record<string, RouteSpec>)[id]!;
      const [status] = Object.keys(spec.responses).map(Number).sort();
      const response = spec.responses[status!]!;
      const kind = response.content ?? (response.schema ? 'json' : 'none');
      expect({ id, content: op.content }).toEqual({ id, content: kind === 'html' ? 'text' : kind });
    }
  });

  it('types path params, bodies and answers from the table, and builds the URL from them', async () => {
    const urls: string[] = [];
    const client = new AgentRunClient({
      apiKey: 'k',
      baseURL: 'http://x/mount/',
      fetch: async (input) => {
        urls.push(input);
        return Response.json({ run_id: 'r 1', state: 'QUEUED' });
      },
    });
    // @ts-expect-error getRun needs its runId
    await client.request('getRun', {}).catch(() => undefined);
    // @ts-expect-error a run's body needs no unknown field
    await client.request('runAgent', { body: { prompt: 'p', promt: 'typo' } });
    const run = await client.request('getRun', { params: { runId: 'r 1' } });
    const state: string = run.state;
    expect(state).toBe('QUEUED');
    expect(urls.at(-1)).toBe('http://x/mount/api/v1/agent/runs/r%201');
  });

  it('reads the stats with their queries, typed from the table, and exports the ranges and labels', async () => {
    const urls: string[] = [];
    const client = new AgentRunClient({
      apiKey: 'k',
      baseURL: 'http://x',
      fetch: async (input) => {
        urls.push(input);
        return Response.json({ queued: 2, oldest_queued_at: null, running: 0, by_host: [] });
      },
    });
    await client.stats.runs({ range: '1h' });
    await client.stats.runDurations({ range: '7d', by: 'name' });
    await client.stats.deliveries({ webhook_uid: 'w 1' });
    // @ts-expect-error a range is one of STATS_RANGES
    await client.stats.callbacks({ range: '2h' });
    const queue = await client.stats.queue();
    const queued: number = queue.queued;
    expect(queued).toBe(2);
    expect(urls).toEqual([
      'http://x/api/v1/stats/runs?range=1h',
      'http://x/api/v1/stats/run-durations?range=7d&by=name',
      'http://x/api/v1/stats/deliveries?webhook_uid=w+1',
      'http://x/api/v1/stats/callbacks?range=2h',
      'http://x/api/v1/stats/queue',
    ]);
    expect(Object.keys(STATS_RANGES)).toEqual(['1h', '24h', '7d']);
    expect(DELIVERY_STAT_LABELS).toEqual(['Accepted', 'Filtered out', 'Duplicate', 'Rejected', 'Rate limited']);
  });
});
