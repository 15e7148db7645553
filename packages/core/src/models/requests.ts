import * as v from 'valibot';
import { AmbientAgentConfigSchema } from './config.js';
import { jsonMap, jsonObject } from './json.js';
import { RUN_SOURCES, RUN_STATES } from './run-state.js';
import { parseTimestamp } from './timestamps.js';

export const REQUEST_LIMITS = {
  prompt: 100_000,
  title: 300,
  attachments: 5,
  /** Decoded bytes of one attachment. */
  attachmentBytes: 5 * 1024 * 1024,
  followup: 100_000,
  listLimitMax: 500,
  listLimitDefault: 20,
} as const;

/**
 * Standard base64: a single character class and at most two `=`, with the length checked
 * apart. (A grouped pattern such as `(?:[A-Za-z0-9+/]{4})*` makes V8 recurse per group and
 * overflows the stack on inputs of a few MiB.)
 */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Decoded size of valid base64 text. */
export const base64DecodedBytes = (s: string): number => (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
export const isBase64 = (s: string): boolean => s.length % 4 === 0 && BASE64.test(s);
const base64 = v.pipe(
  v.string(),
  // Cheapest first: the length bounds the work of the pattern.
  v.check((s) => s.length <= ((REQUEST_LIMITS.attachmentBytes + 2) / 3) * 4 + 4, `at most ${REQUEST_LIMITS.attachmentBytes} bytes decoded`),
  v.check(isBase64, 'must be standard base64'),
  v.check((s) => base64DecodedBytes(s) <= REQUEST_LIMITS.attachmentBytes, `at most ${REQUEST_LIMITS.attachmentBytes} bytes decoded`),
);

/** Lengths in Unicode characters (code points), as a user counts them, not UTF-16 units. */
const maxChars = (max: number) => v.check((s: string) => s.length <= max || [...s].length <= max, `at most ${max} characters`);
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/i;

/** A file name that is safe as a single URL path segment and on any file system. */
export const FileNameSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(255),
  v.regex(/^[^/\\\x00-\x1f\x7f]+$/, 'must not contain slashes or control characters'),
  v.check((s) => s !== '.' && s !== '..', 'must not be . or ..'),
);

export const AttachmentInputSchema = jsonObject({
  file_name: FileNameSchema,
  mime_type: v.pipe(v.string(), v.regex(MIME, 'must be a MIME type such as image/png')),
  data: base64,
});
export type AttachmentInput = v.InferOutput<typeof AttachmentInputSchema>;

/** `images` of the published client: base64 images, stored as attachments. */
export const ImageInputSchema = jsonObject({
  mime_type: v.picklist(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
  data: base64,
});

const optionalId = v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256)));

/** `mode` of both published clients; accepted and not acted on (docs/run-api.md). */
const RunModeSchema = v.picklist(['normal', 'plan', 'orchestrate'], 'must be normal, plan or orchestrate');

/**
 * `metadata` of the Python client: at most 20 keys of 1–64 `[A-Za-z0-9._-]`, values of at most
 * 256 bytes without NUL. Validated as the client documents it, then not stored (docs/run-api.md).
 */
const RunMetadataSchema = v.pipe(
  jsonMap(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,64}$/, 'metadata keys are 1 to 64 of A-Z a-z 0-9 . _ -')),
    v.pipe(
      v.string(),
      v.check((s) => !s.includes('\u0000'), 'metadata values must not contain NUL'),
      v.check((s) => s.length <= 256 && new TextEncoder().encode(s).byteLength <= 256, 'metadata values are at most 256 bytes'),
    ),
  ),
  v.check((m) => Object.keys(m).length <= 20, 'at most 20 metadata keys'),
);

/** Body of `POST /agent/run`. Unknown fields are rejected so that typos do not pass silently. */
export const RunAgentRequestSchema = v.pipe(
  jsonObject({
    prompt: v.optional(v.pipe(v.string(), maxChars(REQUEST_LIMITS.prompt))),
    skill: v.optional(v.pipe(v.string(), v.maxLength(256))),
    config: v.optional(AmbientAgentConfigSchema),
    title: v.optional(v.pipe(v.string(), maxChars(REQUEST_LIMITS.title))),
    team: v.optional(v.boolean()),
    agent_identity_uid: optionalId,
    conversation_id: optionalId,
    parent_run_id: optionalId,
    attachments: v.optional(v.pipe(v.array(AttachmentInputSchema), v.maxLength(REQUEST_LIMITS.attachments))),
    images: v.optional(v.pipe(v.array(ImageInputSchema), v.maxLength(REQUEST_LIMITS.attachments))),
    // Sent by the published clients; accepted, validated and not acted on (docs/run-api.md).
    interactive: v.optional(v.boolean()),
    mode: v.optional(RunModeSchema),
    metadata: v.optional(RunMetadataSchema),
    on_behalf_of: v.optional(v.pipe(v.string(), v.maxLength(256))),
  }),
  v.check(
    (r) => (r.prompt !== undefined && r.prompt.trim() !== '') || r.skill !== undefined || r.config?.skill_spec !== undefined,
    'prompt is required unless a skill is given (skill or config.skill_spec)',
  ),
  v.check(
    (r) => (r.attachments?.length ?? 0) + (r.images?.length ?? 0) <= REQUEST_LIMITS.attachments,
    `at most ${REQUEST_LIMITS.attachments} attachments and images in all`,
  ),
  v.check((r) => {
    const names = (r.attachments ?? []).map((a) => a.file_name);
    return new Set(names).size === names.length;
  }, 'attachment file names must be unique'),
);
export type RunAgentRequest = v.InferOutput<typeof RunAgentRequestSchema>;

/** Body of `POST /agent/runs/{runId}/followups`. */
export const RunFollowupRequestSchema = jsonObject({
  message: v.pipe(v.string(), v.minLength(1, 'must not be empty'), maxChars(REQUEST_LIMITS.followup)),
  mode: v.optional(RunModeSchema),
});
export type RunFollowupRequest = v.InferOutput<typeof RunFollowupRequestSchema>;

const rfc3339 = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const instant = parseTimestamp(dataset.value);
    if (instant === undefined) {
      addIssue({ message: 'must be an RFC 3339 timestamp of a real instant in the years 0001 to 9999 (UTC)' });
      return NEVER;
    }
    return instant;
  }),
);
const filterText = v.pipe(v.string(), v.minLength(1), v.maxLength(256));

/**
 * Query of `GET /agent/runs`. `state` is repeatable; every other parameter appears at most once.
 * `skill` is the client's alias of `skill_spec`; `artifact_type` and `schedule_id` are accepted
 * for client compatibility (agentrun runs have neither, so they match nothing).
 */
export const ListRunsQuerySchema = v.strictObject({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, `must be an integer from 1 to ${REQUEST_LIMITS.listLimitMax}`),
      v.transform(Number),
      v.minValue(1, `must be an integer from 1 to ${REQUEST_LIMITS.listLimitMax}`),
      v.maxValue(REQUEST_LIMITS.listLimitMax, `must be an integer from 1 to ${REQUEST_LIMITS.listLimitMax}`),
    ),
    String(REQUEST_LIMITS.listLimitDefault),
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(1024))),
  // `title` and `agent` are the Python client's; accepted and, for now, ordered as `updated_at`
  // (docs/run-api.md), so a client that sends them still gets stable pages.
  sort_by: v.pipe(
    v.optional(v.picklist(['updated_at', 'created_at', 'title', 'agent'], 'must be updated_at, created_at, title or agent'), 'updated_at'),
    v.transform((s): 'updated_at' | 'created_at' => (s === 'created_at' ? 'created_at' : 'updated_at')),
  ),
  sort_order: v.optional(v.picklist(['desc', 'asc'], 'must be desc or asc'), 'desc'),
  state: v.optional(v.pipe(v.array(v.picklist(RUN_STATES, 'must be one of ' + RUN_STATES.join(', '))), v.maxLength(RUN_STATES.length * 2))),
  name: v.optional(filterText),
  /** Seed 4.2's name for `name`. */
  config_name: v.optional(filterText),
  model_id: v.optional(filterText),
  creator: v.optional(filterText),
  source: v.optional(v.picklist(RUN_SOURCES, 'must be one of ' + RUN_SOURCES.join(', '))),
  created_after: v.optional(rfc3339),
  created_before: v.optional(rfc3339),
  updated_after: v.optional(rfc3339),
  environment_id: v.optional(filterText),
  skill_spec: v.optional(filterText),
  skill: v.optional(filterText),
  q: v.optional(filterText),
  factory_uid: v.optional(filterText),
  automation_id: v.optional(filterText),
  artifact_type: v.optional(v.picklist(['PLAN', 'PULL_REQUEST', 'SCREENSHOT', 'FILE', 'EXTERNAL_REFERENCE'])),
  schedule_id: v.optional(filterText),
  // The Python client's further filters (docs/run-api.md): runs here have no ancestors other than
  // their parent chain, run on the host's executor, and carry no metadata, so these match nothing
  // except `execution_location=REMOTE` and an `executor` equal to the creator.
  ancestor_run_id: v.optional(filterText),
  execution_location: v.optional(v.picklist(['LOCAL', 'REMOTE'], 'must be LOCAL or REMOTE')),
  executor: v.optional(filterText),
});
export type ListRunsQuery = v.InferOutput<typeof ListRunsQuerySchema>;

/** `metadata[key]=value` pairs of the Python client (object notation in the query string). */
export const METADATA_PARAM = /^metadata\[([A-Za-z0-9._-]{1,64})\]$/;

/** Query of a webhook's delivery log. */
export const ListDeliveriesQuerySchema = v.strictObject({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'must be an integer from 1 to 200'),
      v.transform(Number),
      v.minValue(1, 'must be an integer from 1 to 200'),
      v.maxValue(200, 'must be an integer from 1 to 200'),
    ),
    '50',
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(1024))),
});

/** Parameters that may be repeated in the query string. */
export const REPEATABLE_QUERY_PARAMS: ReadonlySet<string> = new Set(['state']);
