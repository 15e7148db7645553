import * as v from 'valibot';
import { servedUrlProblem } from '../models/served-url.js';
import { normalizeContentType, sniffImageType } from './content-types.js';
import { type ArtifactLimits, MAX_ARTIFACT_TEXT } from './limits.js';
import type { ArtifactItem } from './model.js';

// The one decider for what an agent reports as an artifact (docs/artifacts.md, "Reporting artifacts"):
// whatever an executor hands `context.reportArtifact` is checked here (shape, lengths, URLs, the
// size limit, a screenshot's bytes) before anything is stored. The agent is untrusted.

const text = v.pipe(v.string(), v.maxLength(MAX_ARTIFACT_TEXT));
/** A URL the API will serve back: models/served-url.ts decides, as for a run's session_link. */
const httpUrl = v.pipe(
  v.string(),
  v.check(
    (s) => servedUrlProblem(s) === undefined,
    (issue) => servedUrlProblem(issue.input) ?? 'must be an http(s) URL',
  ),
);
const bytes = v.custom<Uint8Array>((x) => x instanceof Uint8Array, 'must be bytes');

/** What an executor reports: a plan, a pull request, or bytes it read from the workspace. */
const ReportedArtifactSchema = v.variant('type', [
  v.strictObject({ type: v.literal('PLAN'), title: v.optional(text), url: v.optional(httpUrl), content: v.optional(v.string()) }),
  v.strictObject({ type: v.literal('PULL_REQUEST'), url: httpUrl, branch: v.pipe(text, v.minLength(1)) }),
  v.strictObject({
    type: v.literal('SCREENSHOT'),
    filepath: v.pipe(text, v.minLength(1)),
    content: bytes,
    description: v.optional(text),
  }),
  v.strictObject({
    type: v.literal('FILE'),
    filepath: v.pipe(text, v.minLength(1)),
    content: bytes,
    content_type: v.optional(v.pipe(v.string(), v.maxLength(200))),
    description: v.optional(text),
  }),
]);
export type ReportedArtifact = v.InferInput<typeof ReportedArtifactSchema>;

/** What `context.reportArtifact` answers: the artifact's UID, or why it was not kept. */
export type ArtifactReportResult = { accepted: true; artifact_uid: string } | { accepted: false; reason: string };

/** An artifact decided on: its RunItem entry and the bytes to upload, if any. */
export interface DecidedArtifact {
  item: ArtifactItem;
  upload?: { bytes: Uint8Array; contentType: string };
}

/** Decide on a report, or say why it is refused (a string). */
export function decideArtifact(input: unknown, uid: string, createdAt: string, limits: ArtifactLimits): DecidedArtifact | string {
  const parsed = v.safeParse(ReportedArtifactSchema, input);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((p) => String(p.key)).join('.');
    return `invalid artifact${path ? `: ${path}` : ''}: ${issue.message}`;
  }
  const a = parsed.output;
  const created_at = createdAt;
  switch (a.type) {
    case 'PULL_REQUEST':
      return { item: { artifact_type: 'PULL_REQUEST', created_at, data: { url: a.url, branch: a.branch } } };
    case 'PLAN': {
      if (a.url === undefined && a.content === undefined) return 'invalid artifact: a plan needs content or a url';
      const data = {
        document_uid: uid,
        artifact_uid: uid,
        ...(a.title !== undefined ? { title: a.title } : {}),
        ...(a.url ? { url: a.url } : {}),
      };
      if (a.content === undefined) return { item: { artifact_type: 'PLAN', created_at, data } };
      const content = new TextEncoder().encode(a.content);
      if (content.byteLength > limits.maxFileBytes) return `plan is ${content.byteLength} bytes; at most ${limits.maxFileBytes}`;
      return { item: { artifact_type: 'PLAN', created_at, data }, upload: { bytes: content, contentType: 'text/markdown; charset=utf-8' } };
    }
    case 'SCREENSHOT': {
      if (a.content.byteLength > limits.maxFileBytes)
        return `${a.filepath} is ${a.content.byteLength} bytes; at most ${limits.maxFileBytes}`;
      const mime_type = sniffImageType(a.content);
      if (mime_type === undefined) return `${a.filepath} is not a PNG, JPEG, GIF or WebP image`;
      const data = { artifact_uid: uid, mime_type, ...(a.description !== undefined ? { description: a.description } : {}) };
      return { item: { artifact_type: 'SCREENSHOT', created_at, data }, upload: { bytes: a.content, contentType: mime_type } };
    }
    case 'FILE': {
      if (a.content.byteLength > limits.maxFileBytes)
        return `${a.filepath} is ${a.content.byteLength} bytes; at most ${limits.maxFileBytes}`;
      const mime_type = (a.content_type === undefined ? undefined : normalizeContentType(a.content_type)) ?? 'application/octet-stream';
      const filename = a.filepath.split('/').filter(Boolean).pop() ?? a.filepath;
      const data = {
        artifact_uid: uid,
        filename,
        filepath: a.filepath,
        mime_type,
        size_bytes: a.content.byteLength,
        ...(a.description !== undefined ? { description: a.description } : {}),
      };
      return { item: { artifact_type: 'FILE', created_at, data }, upload: { bytes: a.content, contentType: mime_type } };
    }
  }
}
