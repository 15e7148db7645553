import * as v from 'valibot';

// A run's artifacts (docs/artifacts.md): what its agent made, in the four kinds the published
// clients type (oz-agent-sdk resources/agent/runs.d.ts `ArtifactItem`; the Python client's
// types/agent/artifact_item.py and agent_get_artifact_response.py). The RunItem carries each as
// `ArtifactItem`; `GET /agent/artifacts/{artifactUid}` answers a stored one with a signed URL.

export const ARTIFACT_TYPES = ['PLAN', 'PULL_REQUEST', 'SCREENSHOT', 'FILE'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

const PlanDataSchema = v.object({
  document_uid: v.string(),
  artifact_uid: v.optional(v.string()),
  notebook_uid: v.optional(v.string()),
  title: v.optional(v.string()),
  url: v.optional(v.string()),
});
const PullRequestDataSchema = v.object({ branch: v.string(), url: v.string() });
const ScreenshotDataSchema = v.object({ artifact_uid: v.string(), mime_type: v.string(), description: v.optional(v.string()) });
const FileDataSchema = v.object({
  artifact_uid: v.string(),
  filename: v.string(),
  filepath: v.string(),
  mime_type: v.string(),
  description: v.optional(v.string()),
  size_bytes: v.optional(v.number()),
});

/** One artifact as a RunItem's `artifacts` carries it. */
export const ArtifactItemSchema = v.variant('artifact_type', [
  v.object({ artifact_type: v.literal('PLAN'), created_at: v.string(), data: PlanDataSchema }),
  v.object({ artifact_type: v.literal('PULL_REQUEST'), created_at: v.string(), data: PullRequestDataSchema }),
  v.object({ artifact_type: v.literal('SCREENSHOT'), created_at: v.string(), data: ScreenshotDataSchema }),
  v.object({ artifact_type: v.literal('FILE'), created_at: v.string(), data: FileDataSchema }),
]);
export type ArtifactItem = v.InferOutput<typeof ArtifactItemSchema>;

/** Where a stored artifact's bytes are read from, and what a signed URL serves them as. */
const DownloadSchema = v.object({
  content_type: v.string(),
  download_url: v.string(),
  expires_at: v.string(),
});

/**
 * `GET /agent/artifacts/{artifactUid}`: the Python client's `AgentGetArtifactResponse` for a
 * screenshot or file (a signed `download_url` valid until `expires_at`); a plan or pull request
 * answers its RunItem data, with the plan's text downloadable when the agent reported one.
 */
export const GetArtifactResponseSchema = v.variant('artifact_type', [
  v.object({
    artifact_type: v.literal('SCREENSHOT'),
    artifact_uid: v.string(),
    created_at: v.string(),
    data: v.object({ ...DownloadSchema.entries, description: v.optional(v.string()) }),
  }),
  v.object({
    artifact_type: v.literal('FILE'),
    artifact_uid: v.string(),
    created_at: v.string(),
    data: v.object({
      ...DownloadSchema.entries,
      filename: v.string(),
      filepath: v.string(),
      description: v.optional(v.string()),
      size_bytes: v.optional(v.number()),
    }),
  }),
  v.object({
    artifact_type: v.literal('PLAN'),
    artifact_uid: v.string(),
    created_at: v.string(),
    data: v.object({
      ...PlanDataSchema.entries,
      content_type: v.optional(v.string()),
      download_url: v.optional(v.string()),
      expires_at: v.optional(v.string()),
    }),
  }),
  v.object({ artifact_type: v.literal('PULL_REQUEST'), artifact_uid: v.string(), created_at: v.string(), data: PullRequestDataSchema }),
]);
export type GetArtifactResponse = v.InferOutput<typeof GetArtifactResponseSchema>;
