/**
 * What a host decides when it mounts the dashboard (docs/dashboard.md, "Mounting it").
 */

/**
 * The host's own sign-in, asked each time the app starts (docs/dashboard.md, "Your own
 * authentication"): an API key for this browser's user, a `Response` to send instead (a redirect
 * to the host's login page, a 403), or `undefined` for the dashboard's own sign-in form.
 */
export type AuthHook = (request: Request) => Promise<{ apiKey: string } | Response | undefined>;

export interface DashboardOptions {
  /** The path the dashboard answers under, relative to where it is mounted. Default `/dashboard`. */
  basePath?: string;
  /**
   * Where the app finds the run and management APIs (the client adds `/api/v1/…`): an absolute URL
   * or a path. Default: where the dashboard itself is mounted, i.e. beside agentrun's API.
   */
  apiBaseUrl?: string;
  authHook?: AuthHook;
}
