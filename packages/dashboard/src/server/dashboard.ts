import type { Mountable } from '@agentrun/core';
import { mountedBase } from '@agentrun/core/internal';
import { loadAssets } from './assets.js';
import { renderIndex } from './index-page.js';
import type { DashboardOptions } from './options.js';
import { extraConnectSource, securityHeaders } from './security-headers.js';

/**
 * The dashboard as a `Mountable` (docs/dashboard.md): mount it beside agentrun with
 * `composeMounts`, `agentrunExpress` or `agentrunFastify`. Under `basePath` it answers
 *
 * - `assets/app.js`, `assets/app.css`, `assets/favicon.svg`: the prebuilt app (ETag, revalidated on each load);
 * - `favicon.ico`: the same icon, for whatever asks there without reading index.html's `<link rel="icon">`;
 * - `auth/session`: the host's auth hook, when there is one (the key goes in a JSON body, never a URL);
 * - any other path: index.html, so that client-side routes (`/dashboard/runs/…`) survive a reload.
 *
 * Paths outside `basePath` are not its own (`owns` is false; `fetch` answers 404).
 */
export function createDashboard(options: DashboardOptions = {}): Mountable {
  const basePath = normaliseBasePath(options.basePath ?? '/dashboard');
  const owns = (pathname: string) => pathname === basePath || pathname.startsWith(`${basePath}/`);

  return {
    owns,
    async fetch(request) {
      const url = new URL(request.url);
      if (!owns(url.pathname)) return plain(404, 'Not found');
      const mounted = mountedBase(request, url);
      const apiBaseUrl = options.apiBaseUrl ?? mounted;
      const headers = securityHeaders(extraConnectSource(apiBaseUrl, url.origin));
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return plain(405, 'Method not allowed', { ...headers, allow: 'GET, HEAD' });
      }
      const rest = url.pathname.slice(basePath.length);

      if (rest.startsWith('/auth/')) {
        if (rest !== '/auth/session') return plain(404, 'Not found', headers);
        return session(request, options, headers);
      }

      let assets: ReturnType<typeof loadAssets>;
      try {
        assets = loadAssets();
      } catch (error) {
        return plain(503, (error as Error).message, headers);
      }

      const assetName = rest === '/favicon.ico' ? 'favicon.svg' : rest.startsWith('/assets/') ? rest.slice('/assets/'.length) : undefined;
      if (assetName !== undefined) {
        const asset = assets.files.get(assetName);
        if (!asset) return plain(404, 'Not found', headers);
        const common = { ...headers, etag: asset.etag, 'cache-control': 'no-cache' };
        if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers: common });
        const body = request.method === 'HEAD' ? null : (asset.body.slice() as Uint8Array<ArrayBuffer>);
        return new Response(body, {
          headers: { ...common, 'content-type': asset.contentType, 'content-length': String(asset.body.length) },
        });
      }

      // A host that signs people in itself may turn a request away before any page is shown.
      if (options.authHook) {
        const answer = await options.authHook(request);
        if (answer instanceof Response) return answer;
      }
      const publicBase = new URL(mounted).pathname.replace(/\/+$/, '') + basePath;
      const html = renderIndex(assets.indexTemplate, { basePath: publicBase, apiBaseUrl, hostAuth: options.authHook !== undefined });
      return new Response(request.method === 'HEAD' ? null : html, {
        headers: { ...headers, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
      });
    },
  };
}

/** `GET auth/session`: the key the host's hook hands this browser, as JSON that is never cached. */
async function session(request: Request, options: DashboardOptions, headers: Record<string, string>): Promise<Response> {
  if (!options.authHook) return plain(404, 'No host sign-in: sign in with an API key', headers);
  const answer = await options.authHook(request);
  if (answer instanceof Response) return answer;
  if (answer === undefined) return plain(401, 'Not signed in by the host', headers);
  return new Response(JSON.stringify({ api_key: answer.apiKey }), {
    headers: { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}

const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
  new Response(text, { status, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });

/** `/dashboard`, from `dashboard`, `/dashboard/` or `/dashboard`; refuses what is not a plain path. */
function normaliseBasePath(path: string): string {
  const trimmed = `/${path.replace(/^\/+|\/+$/g, '')}`;
  if (trimmed === '/' || !/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) {
    throw new TypeError(`createDashboard: basePath must be a path such as /dashboard, got ${JSON.stringify(path)}`);
  }
  return trimmed;
}
