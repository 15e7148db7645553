// An environment's `image` (docs/repositories.md, "Container image and limits"): an OCI image
// reference as container engines take one, `[registry/]path[:tag][@sha256:<digest>]`, checked at
// save so that a run does not fail later on a name no engine would pull. The grammar is the one of
// the distribution project's reference package, without the rarely used parts (IPv6 registry
// hosts, digests other than sha256).

/** A reference taken apart. */
export interface ImageReference {
  /** The registry host (and port), when the reference names one. */
  registry?: string;
  /** The repository path, e.g. `acme/agent`. */
  path: string;
  tag?: string;
  /** `sha256:<64 hex>`. */
  digest?: string;
}

export const IMAGE_REFERENCE_MAX_LENGTH = 255;

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const REGISTRY = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]{1,5})?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/**
 * `reference` taken apart, or why it is not one (a sentence for a 400's detail). The first part
 * before a `/` is the registry when it has a `.` or a `:`, is `localhost`, or has an uppercase
 * letter (as engines decide); otherwise the whole name is the repository path.
 */
export function parseImageReference(reference: string): { ok: true; reference: ImageReference } | { ok: false; problem: string } {
  const fail = (problem: string) => ({ ok: false as const, problem });
  if (reference === '') return fail('must not be empty');
  if (reference.length > IMAGE_REFERENCE_MAX_LENGTH) return fail(`must be at most ${IMAGE_REFERENCE_MAX_LENGTH} characters`);
  const at = reference.indexOf('@');
  const digest = at === -1 ? undefined : reference.slice(at + 1);
  if (digest !== undefined && !DIGEST.test(digest)) return fail('the digest after @ must be sha256:<64 lowercase hex digits>');
  const named = at === -1 ? reference : reference.slice(0, at);
  const colon = named.lastIndexOf(':');
  const hasTag = colon > named.lastIndexOf('/');
  const tag = hasTag ? named.slice(colon + 1) : undefined;
  if (tag !== undefined && !TAG.test(tag)) return fail('the tag after : must be 1-128 of A-Z a-z 0-9 _ . - and not start with . or -');
  const name = hasTag ? named.slice(0, colon) : named;
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const isRegistry = slash !== -1 && (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase());
  if (isRegistry && !REGISTRY.test(first)) return fail(`${first} is not a registry host (host[:port])`);
  const path = isRegistry ? name.slice(slash + 1) : name;
  if (!path.split('/').every((part) => PATH_COMPONENT.test(part)))
    return fail('the repository path must be lowercase: parts of a-z 0-9, each joined by . _ __ or -, separated by /');
  return {
    ok: true,
    reference: {
      ...(isRegistry ? { registry: first } : {}),
      path,
      ...(tag !== undefined ? { tag } : {}),
      ...(digest !== undefined ? { digest } : {}),
    },
  };
}

/** Why `reference` is not an image reference, or `undefined` when it is one. */
export const imageReferenceProblem = (reference: string): string | undefined => {
  const parsed = parseImageReference(reference);
  return parsed.ok ? undefined : parsed.problem;
};
