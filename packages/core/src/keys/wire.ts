import * as v from 'valibot';

/**
 * What the key routes answer (docs/management-api.md, "API keys"): never the key, nor its hash,
 * except the one answer that creates it (`key`).
 */
export const ApiKeyViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  /** The key's first 8 characters, to recognise it. */
  prefix: v.string(),
  /** `null`: a key minted before scopes existed, with the powers it always had. */
  scopes: v.nullable(v.array(v.string())),
  created_by: v.nullable(v.object({ type: v.string(), uid: v.string(), display_name: v.optional(v.string()) })),
  created_at: v.string(),
  /** Up to a flush interval stale (docs/operations.md, "API keys"). */
  last_used_at: v.nullable(v.string()),
  expires_at: v.nullable(v.string()),
});

export const ApiKeyListSchema = v.object({ api_keys: v.array(ApiKeyViewSchema) });

export const ApiKeyCreatedSchema = v.object({ ...ApiKeyViewSchema.entries, key: v.string() });

export type ApiKeyView = v.InferOutput<typeof ApiKeyViewSchema>;
