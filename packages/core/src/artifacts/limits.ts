// What a run's agent may upload (docs/artifacts.md, "Limits"): checked when an artifact is
// reported, before any byte is stored.

export interface ArtifactLimits {
  /** Bytes of one screenshot or file (a plan's text too). Default 25 MiB. */
  maxFileBytes: number;
  /** Bytes of all of a run's uploads together. Default 100 MiB. */
  maxRunBytes: number;
  /** Artifacts of one run, of every kind. Default 100. */
  maxPerRun: number;
}

export const DEFAULT_ARTIFACT_LIMITS: ArtifactLimits = {
  maxFileBytes: 25 * 1024 * 1024,
  maxRunBytes: 100 * 1024 * 1024,
  maxPerRun: 100,
};

/** How long a `download_url` opens its artifact. */
export const DOWNLOAD_URL_TTL_MS = 15 * 60 * 1000;

/** Characters of a reported title, description, branch or path (URLs: models/served-url.ts). */
export const MAX_ARTIFACT_TEXT = 1024;
