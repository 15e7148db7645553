/**
 * The address of the peer that sent a request, as the adapter's socket saw it (a proxy's, behind
 * one: no forwarding header is trusted). A Web `Request` has no such member, so an adapter puts
 * it here; a registered symbol, so that separately bundled copies agree on it (docs/embedding.md,
 * "Writing an adapter for another Node framework").
 */
export const REMOTE_ADDRESS = Symbol.for('agentrun.remote-address');

/** The request's peer address, or `undefined` when its adapter gave none. */
export function remoteAddress(request: Request): string | undefined {
  const address = (request as Request & { [REMOTE_ADDRESS]?: unknown })[REMOTE_ADDRESS];
  return typeof address === 'string' && address !== '' ? address : undefined;
}
