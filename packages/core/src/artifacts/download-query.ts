import * as v from 'valibot';

/** The query of a signed download link (signed-url.ts): both parts are checked by the signature, not here. */
export const DownloadArtifactQuerySchema = v.object({
  expires: v.optional(v.pipe(v.string(), v.maxLength(32))),
  signature: v.optional(v.pipe(v.string(), v.maxLength(128))),
});
