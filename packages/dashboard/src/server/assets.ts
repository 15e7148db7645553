import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The prebuilt app (`dist/app/`, made by scripts/build-app.ts): read from disk at the first request
 * and kept. Found relative to this module, so the same code works built (`dist/index.js`, assets
 * in `dist/app/`) and from source in tests (`src/server/assets.ts`, assets in `../../dist/app/`).
 */

interface Asset {
  body: Uint8Array;
  contentType: string;
  etag: string;
}

export interface AppAssets {
  /** index.html with its `{{…}}` slots (see index-page.ts). */
  indexTemplate: string;
  /** By file name: `app.js`, `app.css`, `favicon.svg`. */
  files: ReadonlyMap<string, Asset>;
}

const CONTENT_TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

// CJS builds have __dirname; ESM builds and sources have import.meta.url.
const here = (): string => (typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url)));

/** Where the built app is, or undefined when it was never built. */
function findAppDirectory(): string | undefined {
  const base = here();
  return [join(base, 'app'), join(base, '..', '..', 'dist', 'app')].find((dir) => existsSync(join(dir, 'index.html')));
}

let cached: AppAssets | undefined;

/** The app's files; throws a clear error when the package was not built. */
export function loadAssets(): AppAssets {
  if (cached) return cached;
  const dir = findAppDirectory();
  if (dir === undefined) {
    throw new Error('@agentrun/dashboard: the app is not built (no dist/app/index.html); run `npm run build` in packages/dashboard');
  }
  const files = new Map<string, Asset>();
  for (const [name, contentType] of Object.entries(CONTENT_TYPES)) {
    const body = new Uint8Array(readFileSync(join(dir, name)));
    files.set(name, { body, contentType, etag: `"${body.length.toString(36)}-${checksum(body)}"` });
  }
  cached = { indexTemplate: readFileSync(join(dir, 'index.html'), 'utf8'), files };
  return cached;
}

/** A cheap content fingerprint for the ETag (FNV-1a): a changed file gets a new tag. */
function checksum(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(36);
}
