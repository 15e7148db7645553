// Which bytes a screenshot may be, and how each stored type is served (docs/artifacts.md,
// "Downloads"): one decider for the upload check and the download's headers.

/** The image types a screenshot may be, by their leading bytes (the agent's claim is not trusted). */
const IMAGE_SIGNATURES: readonly { type: string; matches(b: Uint8Array): boolean }[] = [
  { type: 'image/png', matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', matches: (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]) },
  // RIFF....WEBP
  { type: 'image/webp', matches: (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b.subarray(8), [0x57, 0x45, 0x42, 0x50]) },
];

const startsWith = (bytes: Uint8Array, prefix: readonly number[]) =>
  bytes.length >= prefix.length && prefix.every((x, i) => bytes[i] === x);

/** The image type these bytes are, when they are one a screenshot may be. */
export const sniffImageType = (bytes: Uint8Array): string | undefined => IMAGE_SIGNATURES.find((s) => s.matches(bytes))?.type;

/** Whether a stored type is shown in the browser (an image of the list above); anything else is an attachment. */
export const servesInline = (contentType: string): boolean => IMAGE_SIGNATURES.some((s) => s.type === contentType);

/** A media type as `type/subtype` (parameters kept), lower-cased; `undefined` when it is not one. */
export function normalizeContentType(value: string): string | undefined {
  const trimmed = value.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;\s*[a-z0-9_-]+=[a-z0-9_.-]+){0,2}$/.test(trimmed)
    ? trimmed
    : undefined;
}
