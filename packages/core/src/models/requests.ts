import * as v from 'valibot';
import { isBase64 } from './base64.js';
import { maxChars } from './char-limit.js';
import { AmbientAgentConfigSchema } from './config.js';
import { jsonMap, jsonObject } from './json.js';

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

// Checked by one flat pattern, never a grouped one: see base64.ts.
export { base64DecodedLength, isBase64 } from './base64.js';

/** Why attachment data is refused when it is not canonical base64. */
export const BASE64_MESSAGE = 'must be standard base64 (RFC 4648, padded, as every standard encoder writes it)';

/** Base64 longer than this (1 MiB of data) is checked when it is decoded, not by the schema. */
export const BASE64_CHECKED_ON_DECODE = Math.ceil((1024 * 1024) / 3) * 4;

const base64 = v.pipe(
  v.string(),
  // Cheapest first: the length alone bounds the decoded size, so oversized text is refused unread.
  v.check((s) => s.length <= Math.ceil(REQUEST_LIMITS.attachmentBytes / 3) * 4, `at most ${REQUEST_LIMITS.attachmentBytes} bytes decoded`),
  // Data over 1 MiB is checked as it is decoded, one file after a turn of the event loop
  // (run/request-attachments.ts), with this message at the same path: five 5 MiB files checked
  // here held the loop for about 80 ms in one stretch (docs/run-api.md, "Sizes first").
  v.check((s) => s.length > BASE64_CHECKED_ON_DECODE || isBase64(s), BASE64_MESSAGE),
  // Canonical by now, so its size follows from its length and padding: no second read of it
  // (a run's five 5 MiB attachments are checked in one stretch, docs/run-api.md, "Sizes first").
  v.check(
    (s) => (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0) <= REQUEST_LIMITS.attachmentBytes,
    `at most ${REQUEST_LIMITS.attachmentBytes} bytes decoded`,
  ),
);

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/i;

/**
 * The longest attachment file name, in UTF-8 bytes: what ext4, XFS, Btrfs, APFS and ZFS allow for
 * one name (NTFS counts 255 UTF-16 units, which every name within 255 bytes also fits). Counted in
 * bytes, not characters, because an executor writes the file under this name (docs/run-api.md):
 * 255 × "é" is 255 characters but 510 bytes, which no such file system takes.
 */
const FILE_NAME_MAX_BYTES = 255;

/** A file name that is safe as a single URL path segment and on any file system. */
export const FileNameSchema = v.pipe(
  v.string(),
  v.minLength(1),
  // Implied by the byte limit (a UTF-16 unit is at least a byte); kept for the OpenAPI schema,
  // which has no byte count.
  v.maxLength(FILE_NAME_MAX_BYTES),
  v.maxBytes(FILE_NAME_MAX_BYTES, `must be at most ${FILE_NAME_MAX_BYTES} bytes in UTF-8 (a file name's limit on common file systems)`),
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
  v.maxEntries(20, 'at most 20 metadata keys'),
);

/**
 * Sources a caller may declare for its run (`source`): the API's own and the `agentrun` CLI's. The
 * others (`WEBHOOK`, `SCHEDULED_AGENT`, …) are set by agentrun for what it starts itself, so no
 * client can claim them (docs/run-api.md, "Start a run").
 */
export const CLIENT_DECLARED_SOURCES = ['API', 'CLI'] as const;

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
    source: v.optional(v.picklist(CLIENT_DECLARED_SOURCES, `must be one of ${CLIENT_DECLARED_SOURCES.join(', ')}`)),
  }),
  v.check(
    (r) =>
      (r.prompt !== undefined && r.prompt.trim() !== '') ||
      r.skill !== undefined ||
      r.config?.skill_spec !== undefined ||
      (r.config?.skills?.length ?? 0) > 0,
    'prompt is required unless a skill is given (skill, config.skill_spec or config.skills)',
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

// List queries live with the one query rule in list-queries.ts (docs/run-api.md, "List runs").
export {
  ListDeliveriesQuerySchema,
  ListRunEventsQuerySchema,
  type ListRunsQuery,
  ListRunsQuerySchema,
  METADATA_PARAM,
  REPEATABLE_QUERY_PARAMS,
} from './list-queries.js';
