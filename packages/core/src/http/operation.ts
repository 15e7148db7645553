import type { Principal } from '../auth/principal.js';
import type { PathParams, RouteAuth, RouteSpec } from '../routes/route.js';
import type { OperationId, RouteTable } from '../routes/table.js';

/** What a handler of an API-key route gets: the caller is already authenticated. */
export interface ApiContext {
  request: Request;
  url: URL;
  principal: Principal;
}

/** What a handler of an unauthenticated (or self-authenticating) route gets. */
export interface PublicContext {
  request: Request;
  url: URL;
}

type ContextFor<A extends RouteAuth> = A extends 'api_key' ? ApiContext : PublicContext;

/**
 * The code behind one route of the table, typed by it: its params are exactly the `{names}` of
 * its path (decoded, except on the ingress, which answers a bad encoding with its own 404).
 */
type OperationHandler<R extends RouteSpec> = (ctx: ContextFor<R['auth']>, params: PathParams<R['path']>) => Promise<Response>;

/** Handlers for some operations of the table; all of them together make the HTTP surface. */
export type OperationHandlers<K extends OperationId = OperationId> = { [Op in K]: OperationHandler<RouteTable[Op]> };
