/**
 * What an adapter mounts: a fetch-style handler and the paths it answers (relative to where it is
 * mounted). The whole of agentrun is one, and so is each part of it (`agentrun.api`,
 * `agentrun.ingress`), so a host can mount them apart (docs/embedding.md).
 */
export interface Mountable {
  fetch(request: Request): Promise<Response>;
  /** Whether `pathname` (relative to the mount point) belongs to this handler. */
  owns(pathname: string): boolean;
}

/** One mountable over several: the first that owns a path answers it; a path none owns is a 404. */
export function composeMounts(mounts: readonly Mountable[], notOwned: (request: Request) => Promise<Response>): Mountable {
  const ownerOf = (request: Request) => {
    const { pathname } = new URL(request.url);
    return mounts.find((m) => m.owns(pathname));
  };
  return {
    fetch: (request) => (ownerOf(request) ?? { fetch: notOwned }).fetch(request),
    owns: (pathname) => mounts.some((m) => m.owns(pathname)),
  };
}
