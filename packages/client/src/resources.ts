import type { AgentRunClient, RequestOptions } from './client.js';
import type { BodyOf, ClientOperationId, QueryOf, ResponseOf } from './operations.js';
import { paginate } from './pagination.js';
import { type RunEvent, type StreamOptions, streamRunEvents } from './run-stream.js';
import { type WaitOptions, waitForRun } from './run-wait.js';

/**
 * The client's resources: one method per operation of the route table, grouped as the table's
 * tags group them (docs/client.md). Each lists its methods' operations in `operations`, which
 * the test reads to prove every operation has a method (operations.test.ts).
 */
abstract class Resource {
  constructor(protected readonly client: AgentRunClient) {}
}

type Item<K extends ClientOperationId, F extends keyof ResponseOf<K>> = ResponseOf<K>[F] extends readonly (infer I)[] ? I : never;

export class Runs extends Resource {
  static readonly operations = {
    create: 'runAgent',
    list: 'listRuns',
    listPage: 'listRuns',
    get: 'getRun',
    followup: 'followupRun',
    cancel: 'cancelRun',
    events: 'listRunEvents',
    attachment: 'getRunAttachment',
    transcript: 'getRunTranscript',
    sessionRedirect: 'checkSessionRedirect',
    conversationRedirect: 'checkConversationRedirect',
    handoffAttachments: 'listHandoffAttachments',
  } as const satisfies Record<string, ClientOperationId>;

  /** Start a run; its `Idempotency-Key` is kept across retries, so a retried create makes one run. */
  create(body: BodyOf<'runAgent'>, options?: RequestOptions): Promise<ResponseOf<'runAgent'>> {
    return this.client.request('runAgent', { ...options, body });
  }

  /**
   * Every run matching the filters, page after page: `for await (const run of client.runs.list({ state: ['FAILED'] }))`.
   * Newest created first unless `sort_by` says otherwise: a walk by `created_at` never skips or
   * repeats a run that changes meanwhile, which one by `updated_at` (the API's default) can
   * (docs/run-api.md, "Walking every run"; docs/client.md, "Pagination").
   */
  list(
    query: Omit<QueryOf<'listRuns'>, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Item<'listRuns', 'runs'>, void, undefined> {
    const walk = { ...query, sort_by: query.sort_by ?? 'created_at' };
    return paginate(
      (cursor) => this.listPage({ ...walk, cursor }, options),
      (page) => page.runs,
    );
  }

  /** One page of runs, in the API's order unless `sort_by` says otherwise (most recently updated first). */
  listPage(query: QueryOf<'listRuns'> = {}, options?: RequestOptions): Promise<ResponseOf<'listRuns'>> {
    return this.client.request('listRuns', { ...options, query });
  }

  get(runId: string, options?: RequestOptions): Promise<ResponseOf<'getRun'>> {
    return this.client.request('getRun', { ...options, params: { runId } });
  }

  followup(runId: string, body: BodyOf<'followupRun'>, options?: RequestOptions): Promise<ResponseOf<'followupRun'>> {
    return this.client.request('followupRun', { ...options, params: { runId }, body });
  }

  /** Cancel a run that has not finished; answers the run's ID. */
  cancel(runId: string, options?: RequestOptions): Promise<string> {
    return this.client.request('cancelRun', { ...options, params: { runId } });
  }

  /** One page of the run's transcript events. */
  events(runId: string, query: QueryOf<'listRunEvents'> = {}, options?: RequestOptions): Promise<ResponseOf<'listRunEvents'>> {
    return this.client.request('listRunEvents', { ...options, params: { runId }, query });
  }

  /**
   * The run's events live, over Server-Sent Events: `for await (const event of client.runs.stream(id))`.
   * Resumes a dropped connection where it stopped; ends when the run finishes; `break` closes it.
   */
  stream(runId: string, options?: StreamOptions): AsyncGenerator<RunEvent, void, undefined> {
    return streamRunEvents(this.client, runId, options);
  }

  /** The run once it is finished (SUCCEEDED, FAILED, ERROR or CANCELLED), looking every `pollIntervalMs`. */
  wait(runId: string, options?: WaitOptions): Promise<ResponseOf<'getRun'>> {
    return waitForRun(this.client, runId, options);
  }

  attachment(runId: string, fileName: string, options?: RequestOptions): Promise<ArrayBuffer> {
    return this.client.request('getRunAttachment', { ...options, params: { runId, fileName } });
  }

  /**
   * Whether a session (a run's `session_id`) should be shown as its conversation: `{ conversation_id }`
   * once its newest run has ended, `{}` while it runs (docs/run-api.md, "Session redirect").
   */
  sessionRedirect(sessionUuid: string, options?: RequestOptions): Promise<ResponseOf<'checkSessionRedirect'>> {
    return this.client.request('checkSessionRedirect', { ...options, params: { sessionUuid } });
  }

  /** The hand-off snapshot files of the run's latest execution: always none in agentrun (docs/run-api.md). */
  handoffAttachments(runId: string, options?: RequestOptions): Promise<ResponseOf<'listHandoffAttachments'>> {
    return this.client.request('listHandoffAttachments', { ...options, params: { runId } });
  }

  /** The live session of a conversation agentrun started, or `{}` (public: no key needed; docs/run-api.md). */
  conversationRedirect(conversationId: string, options?: RequestOptions): Promise<ResponseOf<'checkConversationRedirect'>> {
    return this.client.request('checkConversationRedirect', { ...options, params: { conversationId } });
  }

  /** The transcript page, as HTML. */
  transcript(runId: string, options?: RequestOptions): Promise<string> {
    return this.client.request('getRunTranscript', { ...options, params: { runId } });
  }
}

/**
 * What runs' agents reported (docs/artifacts.md): a run's list is its `artifacts`; a stored one is
 * read through its signed `download_url`, which needs no API key (docs/client.md, "Artifacts").
 */
export class Artifacts extends Resource {
  static readonly operations = {
    get: 'getArtifact',
    download: 'downloadArtifact',
  } as const satisfies Record<string, ClientOperationId>;

  /** A run's artifacts, in the order its agent reported them (none: an empty list). */
  async list(runId: string, options?: RequestOptions): Promise<NonNullable<ResponseOf<'getRun'>['artifacts']>> {
    return (await this.client.runs.get(runId, options)).artifacts ?? [];
  }

  /** One artifact; a screenshot's, file's or plan's bytes behind `data.download_url` until `data.expires_at`. */
  get(artifactUid: string, options?: RequestOptions): Promise<ResponseOf<'getArtifact'>> {
    return this.client.request('getArtifact', { ...options, params: { artifactUid } });
  }

  /** An artifact's bytes: a fresh signed link asked for, then opened. */
  async download(artifactUid: string, options?: RequestOptions): Promise<ArrayBuffer> {
    const artifact = await this.get(artifactUid, options);
    const link = 'download_url' in artifact.data ? artifact.data.download_url : undefined;
    if (link === undefined) throw new TypeError(`artifact ${artifactUid} (${artifact.artifact_type}) has no stored content to download`);
    const query = new URL(link).searchParams;
    return this.client.request('downloadArtifact', {
      ...options,
      params: { artifactUid },
      query: { expires: query.get('expires') ?? '', signature: query.get('signature') ?? '' },
    });
  }
}

export class Factories extends Resource {
  static readonly operations = {
    create: 'createFactory',
    list: 'listFactories',
    get: 'getFactory',
    apply: 'applyDefinitions',
    dispatch: 'dispatchFactoryRun',
    pageAsPythonClient: 'listClientFactories',
    getAsPythonClient: 'getClientFactory',
    inbox: 'listInbox',
    markRead: 'markInboxRead',
    markUnread: 'markInboxUnread',
  } as const satisfies Record<string, ClientOperationId>;

  create(body: BodyOf<'createFactory'>, options?: RequestOptions): Promise<ResponseOf<'createFactory'>> {
    return this.client.request('createFactory', { ...options, body });
  }

  list(options?: RequestOptions): Promise<ResponseOf<'listFactories'>> {
    return this.client.request('listFactories', { ...options });
  }

  get(factoryUid: string, options?: RequestOptions): Promise<ResponseOf<'getFactory'>> {
    return this.client.request('getFactory', { ...options, params: { factoryUid } });
  }

  /** Apply a factory's definition files as one operation (docs/definitions.md); `dry_run: true` answers the plan only. */
  apply(factoryUid: string, body: BodyOf<'applyDefinitions'>, options?: RequestOptions): Promise<ResponseOf<'applyDefinitions'>> {
    return this.client.request('applyDefinitions', { ...options, params: { factoryUid }, body });
  }

  /** Start a run of the factory, for its foreman (docs/run-api.md, "Dispatch a run to a factory"). */
  dispatch(factoryUid: string, body: BodyOf<'dispatchFactoryRun'>, options?: RequestOptions): Promise<ResponseOf<'dispatchFactoryRun'>> {
    return this.client.request('dispatchFactoryRun', { ...options, params: { uid: factoryUid }, body });
  }

  /** One page of factories in the Python client's `Factory` shape (`GET /factory`; docs/run-api.md). */
  pageAsPythonClient(query: QueryOf<'listClientFactories'> = {}, options?: RequestOptions): Promise<ResponseOf<'listClientFactories'>> {
    return this.client.request('listClientFactories', { ...options, query });
  }

  /** One page of the factory inbox (docs/run-api.md, "The factory inbox"). */
  inbox(query: QueryOf<'listInbox'> = {}, options?: RequestOptions): Promise<ResponseOf<'listInbox'>> {
    return this.client.request('listInbox', { ...options, query });
  }

  /** Mark inbox notifications read for the caller: one outcome per UID, in order. */
  markRead(notificationUids: string[], options?: RequestOptions): Promise<ResponseOf<'markInboxRead'>> {
    return this.client.request('markInboxRead', { ...options, body: { notification_uids: notificationUids } });
  }

  /** Mark inbox notifications unread for the caller. */
  markUnread(notificationUids: string[], options?: RequestOptions): Promise<ResponseOf<'markInboxUnread'>> {
    return this.client.request('markInboxUnread', { ...options, body: { notification_uids: notificationUids } });
  }

  /** One factory in the Python client's `Factory` shape (`GET /factory/{uid}`). */
  getAsPythonClient(factoryUid: string, options?: RequestOptions): Promise<ResponseOf<'getClientFactory'>> {
    return this.client.request('getClientFactory', { ...options, params: { uid: factoryUid } });
  }
}

/**
 * A factory's source repository (docs/repositories.md, "Factories from a repository"): the
 * branch whose commits apply to the factory, the history of those applies, and a sync on demand.
 */
export class Sources extends Resource {
  static readonly operations = {
    set: 'putFactorySource',
    get: 'getFactorySource',
    clear: 'deleteFactorySource',
    applies: 'listFactorySourceApplies',
    appliesPage: 'listFactorySourceApplies',
    sync: 'syncFactorySource',
  } as const satisfies Record<string, ClientOperationId>;

  /** Set (or replace) the factory's source. */
  set(factoryUid: string, body: BodyOf<'putFactorySource'>, options?: RequestOptions): Promise<ResponseOf<'putFactorySource'>> {
    return this.client.request('putFactorySource', { ...options, params: { factoryUid }, body });
  }

  /** The source, with its last apply and its last applied commit. */
  get(factoryUid: string, options?: RequestOptions): Promise<ResponseOf<'getFactorySource'>> {
    return this.client.request('getFactorySource', { ...options, params: { factoryUid } });
  }

  /** Clear the source: the factory keeps what was applied. */
  clear(factoryUid: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteFactorySource', { ...options, params: { factoryUid } });
  }

  /** Every apply of the source, newest first, page after page. */
  applies(
    factoryUid: string,
    query: Omit<QueryOf<'listFactorySourceApplies'>, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Item<'listFactorySourceApplies', 'applies'>, void, undefined> {
    return paginate(
      (cursor) => this.appliesPage(factoryUid, { ...query, cursor }, options),
      (page) => page.applies,
    );
  }

  appliesPage(
    factoryUid: string,
    query: QueryOf<'listFactorySourceApplies'> = {},
    options?: RequestOptions,
  ): Promise<ResponseOf<'listFactorySourceApplies'>> {
    return this.client.request('listFactorySourceApplies', { ...options, params: { factoryUid }, query });
  }

  /** Fetch the branch now and apply its head commit unless it has an apply already. */
  sync(factoryUid: string, options?: RequestOptions): Promise<ResponseOf<'syncFactorySource'>> {
    return this.client.request('syncFactorySource', { ...options, params: { factoryUid }, body: {} });
  }
}

/** The team's secrets (values are write-only: never answered). */
export class Secrets extends Resource {
  static readonly operations = { list: 'listSecrets', put: 'putSecret', delete: 'deleteSecret' } as const satisfies Record<
    string,
    ClientOperationId
  >;

  list(options?: RequestOptions): Promise<ResponseOf<'listSecrets'>> {
    return this.client.request('listSecrets', { ...options });
  }

  /** Create or replace a team secret. */
  put(name: string, body: BodyOf<'putSecret'>, options?: RequestOptions): Promise<ResponseOf<'putSecret'>> {
    return this.client.request('putSecret', { ...options, params: { name }, body });
  }

  delete(name: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteSecret', { ...options, params: { name } });
  }
}

/** The team's API keys (docs/management-api.md, "API keys"): a key is answered once, by `create`. */
export class ApiKeys extends Resource {
  static readonly operations = { create: 'createApiKey', list: 'listApiKeys', revoke: 'revokeApiKey' } as const satisfies Record<
    string,
    ClientOperationId
  >;

  create(body: BodyOf<'createApiKey'>, options?: RequestOptions): Promise<ResponseOf<'createApiKey'>> {
    return this.client.request('createApiKey', { ...options, body });
  }

  list(options?: RequestOptions): Promise<ResponseOf<'listApiKeys'>> {
    return this.client.request('listApiKeys', { ...options });
  }

  revoke(keyId: string, options?: RequestOptions): Promise<void> {
    return this.client.request('revokeApiKey', { ...options, params: { keyId } });
  }
}

/** The repositories the team's skills come from (docs/management-api.md, "Repositories"), named `<owner>/<repo>`. */
export class Repositories extends Resource {
  static readonly operations = {
    create: 'createRepository',
    list: 'listRepositories',
    get: 'getRepository',
    delete: 'deleteRepository',
  } as const satisfies Record<string, ClientOperationId>;

  /** Register a repository; its `Idempotency-Key` is kept across retries. */
  create(body: BodyOf<'createRepository'>, options?: RequestOptions): Promise<ResponseOf<'createRepository'>> {
    return this.client.request('createRepository', { ...options, body });
  }

  list(options?: RequestOptions): Promise<ResponseOf<'listRepositories'>> {
    return this.client.request('listRepositories', { ...options });
  }

  get(name: string, options?: RequestOptions): Promise<ResponseOf<'getRepository'>> {
    return this.client.request('getRepository', { ...options, params: ownerRepo(name) });
  }

  delete(name: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteRepository', { ...options, params: ownerRepo(name) });
  }
}

/** `<owner>/<repo>` as the two path params. */
function ownerRepo(name: string): { owner: string; repo: string } {
  const slash = name.indexOf('/');
  if (slash < 1 || slash === name.length - 1) throw new TypeError(`repository name must be <owner>/<repo>, got ${JSON.stringify(name)}`);
  return { owner: name.slice(0, slash), repo: name.slice(slash + 1) };
}

/**
 * The skills the team can run (docs/run-api.md, "List agents"), as the published clients'
 * `agent.list()`, and the agent CLIs the server runs them with (docs/harnesses.md).
 */
export class Agents extends Resource {
  static readonly operations = { list: 'listAgents', harnesses: 'listHarnesses' } as const satisfies Record<string, ClientOperationId>;

  list(query: QueryOf<'listAgents'> = {}, options?: RequestOptions): Promise<ResponseOf<'listAgents'>> {
    return this.client.request('listAgents', { ...options, query });
  }

  /** The harnesses a run's `config.harness.type` may name here, with their versions and the default. */
  harnesses(options?: RequestOptions): Promise<ResponseOf<'listHarnesses'>> {
    return this.client.request('listHarnesses', { ...options });
  }
}

/**
 * The live workers (docs/operations.md, "Worker hosts"): their hosts, capacity and the runs they
 * hold, only the caller's team's run ids listed.
 */
export class Workers extends Resource {
  static readonly operations = { list: 'listWorkers' } as const satisfies Record<string, ClientOperationId>;

  list(options?: RequestOptions): Promise<ResponseOf<'listWorkers'>> {
    return this.client.request('listWorkers', { ...options });
  }
}

/**
 * The counts behind the dashboard's overview (docs/management-api.md, "Stats"), each over a range
 * (`1h`, `24h` or `7d`; `STATS_RANGES`) of the caller's team.
 */
export class Stats extends Resource {
  static readonly operations = {
    runs: 'getRunStats',
    runDurations: 'getRunDurationStats',
    deliveries: 'getDeliveryStats',
    queue: 'getQueueStats',
    callbacks: 'getCallbackStats',
  } as const satisfies Record<string, ClientOperationId>;

  /** Runs created in each bucket, one series per state (the state each is in now). */
  runs(query: QueryOf<'getRunStats'> = {}, options?: RequestOptions): Promise<ResponseOf<'getRunStats'>> {
    return this.client.request('getRunStats', { ...options, query });
  }

  /** p50 and p95 run duration by harness or config name. */
  runDurations(query: QueryOf<'getRunDurationStats'> = {}, options?: RequestOptions): Promise<ResponseOf<'getRunDurationStats'>> {
    return this.client.request('getRunDurationStats', { ...options, query });
  }

  /** Deliveries in each bucket, per webhook, by label (`DELIVERY_STAT_LABELS`). */
  deliveries(query: QueryOf<'getDeliveryStats'> = {}, options?: RequestOptions): Promise<ResponseOf<'getDeliveryStats'>> {
    return this.client.request('getDeliveryStats', { ...options, query });
  }

  /** The queue now: depth, the oldest queued run, runs held, by worker host. */
  queue(options?: RequestOptions): Promise<ResponseOf<'getQueueStats'>> {
    return this.client.request('getQueueStats', { ...options });
  }

  /** Each callback endpoint's attempts in the range, failing ones first. */
  callbacks(query: QueryOf<'getCallbackStats'> = {}, options?: RequestOptions): Promise<ResponseOf<'getCallbackStats'>> {
    return this.client.request('getCallbackStats', { ...options, query });
  }
}

/** The team's environments (docs/repositories.md, "Environments"): what a run's `environment_id` selects. */
export class Environments extends Resource {
  static readonly operations = {
    create: 'createEnvironment',
    list: 'listEnvironments',
    get: 'getEnvironment',
    replace: 'replaceEnvironment',
    delete: 'deleteEnvironment',
    listAsPythonClient: 'listCloudEnvironments',
  } as const satisfies Record<string, ClientOperationId>;

  /** The environments in the Python client's `CloudEnvironment` shape, each with its newest run (docs/run-api.md). */
  listAsPythonClient(query: QueryOf<'listCloudEnvironments'> = {}, options?: RequestOptions): Promise<ResponseOf<'listCloudEnvironments'>> {
    return this.client.request('listCloudEnvironments', { ...options, query });
  }

  create(body: BodyOf<'createEnvironment'>, options?: RequestOptions): Promise<ResponseOf<'createEnvironment'>> {
    return this.client.request('createEnvironment', { ...options, body });
  }

  list(options?: RequestOptions): Promise<ResponseOf<'listEnvironments'>> {
    return this.client.request('listEnvironments', { ...options });
  }

  get(environmentId: string, options?: RequestOptions): Promise<ResponseOf<'getEnvironment'>> {
    return this.client.request('getEnvironment', { ...options, params: { environmentId } });
  }

  replace(environmentId: string, body: BodyOf<'replaceEnvironment'>, options?: RequestOptions): Promise<ResponseOf<'replaceEnvironment'>> {
    return this.client.request('replaceEnvironment', { ...options, params: { environmentId }, body });
  }

  delete(environmentId: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteEnvironment', { ...options, params: { environmentId } });
  }
}

/** The team's agent identities (docs/run-api.md, "Agent identities"): what a run's `agent_identity_uid` names. */
export class AgentIdentities extends Resource {
  static readonly operations = {
    create: 'createAgentIdentity',
    list: 'listAgentIdentities',
    update: 'updateAgentIdentity',
    delete: 'deleteAgentIdentity',
  } as const satisfies Record<string, ClientOperationId>;

  create(body: BodyOf<'createAgentIdentity'>, options?: RequestOptions): Promise<ResponseOf<'createAgentIdentity'>> {
    return this.client.request('createAgentIdentity', { ...options, body });
  }

  list(query: QueryOf<'listAgentIdentities'> = {}, options?: RequestOptions): Promise<ResponseOf<'listAgentIdentities'>> {
    return this.client.request('listAgentIdentities', { ...options, query });
  }

  update(identityUid: string, body: BodyOf<'updateAgentIdentity'>, options?: RequestOptions): Promise<ResponseOf<'updateAgentIdentity'>> {
    return this.client.request('updateAgentIdentity', { ...options, params: { identityUid }, body });
  }

  delete(identityUid: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteAgentIdentity', { ...options, params: { identityUid } });
  }
}

/** The team's schedules (docs/schedules.md): cron expressions that start runs. */
export class Schedules extends Resource {
  static readonly operations = {
    create: 'createSchedule',
    list: 'listSchedules',
    get: 'getSchedule',
    update: 'updateSchedule',
    delete: 'deleteSchedule',
    pause: 'pauseSchedule',
    resume: 'resumeSchedule',
  } as const satisfies Record<string, ClientOperationId>;

  create(body: BodyOf<'createSchedule'>, options?: RequestOptions): Promise<ResponseOf<'createSchedule'>> {
    return this.client.request('createSchedule', { ...options, body });
  }

  list(options?: RequestOptions): Promise<ResponseOf<'listSchedules'>> {
    return this.client.request('listSchedules', { ...options });
  }

  get(scheduleId: string, options?: RequestOptions): Promise<ResponseOf<'getSchedule'>> {
    return this.client.request('getSchedule', { ...options, params: { scheduleId } });
  }

  update(scheduleId: string, body: BodyOf<'updateSchedule'>, options?: RequestOptions): Promise<ResponseOf<'updateSchedule'>> {
    return this.client.request('updateSchedule', { ...options, params: { scheduleId }, body });
  }

  delete(scheduleId: string, options?: RequestOptions): Promise<ResponseOf<'deleteSchedule'>> {
    return this.client.request('deleteSchedule', { ...options, params: { scheduleId } });
  }

  pause(scheduleId: string, options?: RequestOptions): Promise<ResponseOf<'pauseSchedule'>> {
    return this.client.request('pauseSchedule', { ...options, params: { scheduleId } });
  }

  resume(scheduleId: string, options?: RequestOptions): Promise<ResponseOf<'resumeSchedule'>> {
    return this.client.request('resumeSchedule', { ...options, params: { scheduleId } });
  }
}

/** The team's run-state callbacks (docs/callbacks.md): endpoints, their delivery logs, resends. */
export class Callbacks extends Resource {
  static readonly operations = {
    create: 'createCallback',
    list: 'listCallbacks',
    get: 'getCallback',
    update: 'patchCallback',
    delete: 'deleteCallback',
    rotateSecret: 'rotateCallbackSecret',
    deliveries: 'listCallbackDeliveries',
    resend: 'resendCallbackDelivery',
  } as const satisfies Record<string, ClientOperationId>;

  /** The answer carries the signing secret, shown this once. */
  create(body: BodyOf<'createCallback'>, options?: RequestOptions): Promise<ResponseOf<'createCallback'>> {
    return this.client.request('createCallback', { ...options, body });
  }

  list(options?: RequestOptions): Promise<ResponseOf<'listCallbacks'>> {
    return this.client.request('listCallbacks', { ...options });
  }

  get(callbackId: string, options?: RequestOptions): Promise<ResponseOf<'getCallback'>> {
    return this.client.request('getCallback', { ...options, params: { callbackId } });
  }

  update(callbackId: string, body: BodyOf<'patchCallback'>, options?: RequestOptions): Promise<ResponseOf<'patchCallback'>> {
    return this.client.request('patchCallback', { ...options, params: { callbackId }, body });
  }

  delete(callbackId: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteCallback', { ...options, params: { callbackId } });
  }

  rotateSecret(callbackId: string, options?: RequestOptions): Promise<ResponseOf<'rotateCallbackSecret'>> {
    return this.client.request('rotateCallbackSecret', { ...options, params: { callbackId } });
  }

  deliveries(
    callbackId: string,
    query: QueryOf<'listCallbackDeliveries'> = {},
    options?: RequestOptions,
  ): Promise<ResponseOf<'listCallbackDeliveries'>> {
    return this.client.request('listCallbackDeliveries', { ...options, params: { callbackId }, query });
  }

  resend(callbackId: string, deliveryId: string, options?: RequestOptions): Promise<ResponseOf<'resendCallbackDelivery'>> {
    return this.client.request('resendCallbackDelivery', { ...options, params: { callbackId, deliveryId } });
  }
}

export class Webhooks extends Resource {
  static readonly operations = {
    create: 'createWebhook',
    list: 'listWebhooks',
    get: 'getWebhook',
    update: 'patchWebhook',
    delete: 'deleteWebhook',
    rotateSecret: 'rotateWebhookSecret',
    putProviderSecret: 'putProviderSecret',
  } as const satisfies Record<string, ClientOperationId>;

  create(factoryUid: string, body: BodyOf<'createWebhook'>, options?: RequestOptions): Promise<ResponseOf<'createWebhook'>> {
    return this.client.request('createWebhook', { ...options, params: { factoryUid }, body });
  }

  list(factoryUid: string, options?: RequestOptions): Promise<ResponseOf<'listWebhooks'>> {
    return this.client.request('listWebhooks', { ...options, params: { factoryUid } });
  }

  get(factoryUid: string, webhookUid: string, options?: RequestOptions): Promise<ResponseOf<'getWebhook'>> {
    return this.client.request('getWebhook', { ...options, params: { factoryUid, webhookUid } });
  }

  update(
    factoryUid: string,
    webhookUid: string,
    body: BodyOf<'patchWebhook'>,
    options?: RequestOptions,
  ): Promise<ResponseOf<'patchWebhook'>> {
    return this.client.request('patchWebhook', { ...options, params: { factoryUid, webhookUid }, body });
  }

  delete(factoryUid: string, webhookUid: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteWebhook', { ...options, params: { factoryUid, webhookUid } });
  }

  /** A new secret: generated here (no body), or the provider-issued one given as `{ secret }`. */
  rotateSecret(
    factoryUid: string,
    webhookUid: string,
    body?: BodyOf<'rotateWebhookSecret'>,
    options?: RequestOptions,
  ): Promise<ResponseOf<'rotateWebhookSecret'>> {
    return this.client.request('rotateWebhookSecret', { ...options, params: { factoryUid, webhookUid }, body });
  }

  putProviderSecret(
    factoryUid: string,
    webhookUid: string,
    body: BodyOf<'putProviderSecret'>,
    options?: RequestOptions,
  ): Promise<ResponseOf<'putProviderSecret'>> {
    return this.client.request('putProviderSecret', { ...options, params: { factoryUid, webhookUid }, body });
  }
}

/** A webhook's delivery log. */
export class Deliveries extends Resource {
  static readonly operations = {
    list: 'listDeliveries',
    listPage: 'listDeliveries',
    get: 'getDelivery',
    payload: 'getDeliveryPayload',
    resend: 'resendDelivery',
  } as const satisfies Record<string, ClientOperationId>;

  /** Every delivery of the webhook, newest first, page after page. */
  list(
    factoryUid: string,
    webhookUid: string,
    query: Omit<QueryOf<'listDeliveries'>, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Item<'listDeliveries', 'deliveries'>, void, undefined> {
    return paginate(
      (cursor) => this.listPage(factoryUid, webhookUid, { ...query, cursor }, options),
      (page) => page.deliveries,
    );
  }

  listPage(
    factoryUid: string,
    webhookUid: string,
    query: QueryOf<'listDeliveries'> = {},
    options?: RequestOptions,
  ): Promise<ResponseOf<'listDeliveries'>> {
    return this.client.request('listDeliveries', { ...options, params: { factoryUid, webhookUid }, query });
  }

  get(factoryUid: string, webhookUid: string, deliveryId: string, options?: RequestOptions): Promise<ResponseOf<'getDelivery'>> {
    return this.client.request('getDelivery', { ...options, params: { factoryUid, webhookUid, deliveryId } });
  }

  /** The payload's bytes, as received. */
  payload(factoryUid: string, webhookUid: string, deliveryId: string, options?: RequestOptions): Promise<ArrayBuffer> {
    return this.client.request('getDeliveryPayload', { ...options, params: { factoryUid, webhookUid, deliveryId } });
  }

  /**
   * Evaluate an accepted delivery's payload again against the webhook's automations as they are
   * now: a new log entry (`resent_from`) and its runs. A retry of the call resends once (its Idempotency-Key).
   */
  resend(factoryUid: string, webhookUid: string, deliveryId: string, options?: RequestOptions): Promise<ResponseOf<'resendDelivery'>> {
    return this.client.request('resendDelivery', { ...options, params: { factoryUid, webhookUid, deliveryId } });
  }
}

export class Automations extends Resource {
  static readonly operations = {
    create: 'createAutomation',
    list: 'listAutomations',
    get: 'getAutomation',
    update: 'patchAutomation',
    delete: 'deleteAutomation',
    testFilter: 'testFilter',
  } as const satisfies Record<string, ClientOperationId>;

  create(factoryUid: string, body: BodyOf<'createAutomation'>, options?: RequestOptions): Promise<ResponseOf<'createAutomation'>> {
    return this.client.request('createAutomation', { ...options, params: { factoryUid }, body });
  }

  list(factoryUid: string, options?: RequestOptions): Promise<ResponseOf<'listAutomations'>> {
    return this.client.request('listAutomations', { ...options, params: { factoryUid } });
  }

  get(factoryUid: string, automationId: string, options?: RequestOptions): Promise<ResponseOf<'getAutomation'>> {
    return this.client.request('getAutomation', { ...options, params: { factoryUid, automationId } });
  }

  update(
    factoryUid: string,
    automationId: string,
    body: BodyOf<'patchAutomation'>,
    options?: RequestOptions,
  ): Promise<ResponseOf<'patchAutomation'>> {
    return this.client.request('patchAutomation', { ...options, params: { factoryUid, automationId }, body });
  }

  delete(factoryUid: string, automationId: string, options?: RequestOptions): Promise<void> {
    return this.client.request('deleteAutomation', { ...options, params: { factoryUid, automationId } });
  }

  /** Try the automation's filter on a payload, without delivering anything. */
  testFilter(
    factoryUid: string,
    automationId: string,
    body: BodyOf<'testFilter'>,
    options?: RequestOptions,
  ): Promise<ResponseOf<'testFilter'>> {
    return this.client.request('testFilter', { ...options, params: { factoryUid, automationId }, body });
  }
}

/** The team's audit log (docs/management-api.md, "The audit log"). */
export class Audit extends Resource {
  static readonly operations = { list: 'listAuditEvents', listPage: 'listAuditEvents' } as const satisfies Record<
    string,
    ClientOperationId
  >;

  /** Every event matching the filters, newest first, page after page. */
  list(
    query: Omit<QueryOf<'listAuditEvents'>, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Item<'listAuditEvents', 'events'>, void, undefined> {
    return paginate(
      (cursor) => this.listPage({ ...query, cursor }, options),
      (page) => page.events,
    );
  }

  listPage(query: QueryOf<'listAuditEvents'> = {}, options?: RequestOptions): Promise<ResponseOf<'listAuditEvents'>> {
    return this.client.request('listAuditEvents', { ...options, query });
  }
}
