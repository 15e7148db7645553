import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Bundles the app (src/app/, Preact + @agentrun/client) into dist/app/: app.js, app.css,
 * index.html and favicon.svg, copied as it is (docs/dashboard.md, "Building"). `npm run build` runs it after tsup; the tests call
 * `ensureAppBuilt()` so a fresh clone needs no build first.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(packageDir, 'dist', 'app');
const sources = [
  join(packageDir, 'src', 'app'),
  join(packageDir, '..', 'client', 'src'),
  // What the app takes from core, directly (the keys page's scopes, the tool summaries) or through
  // the client (the lists of run states and audit kinds).
  join(packageDir, '..', 'core', 'src'),
  fileURLToPath(import.meta.url),
];

/**
 * index.html: the server fills the `{{…}}` slots (src/server/index-page.ts); no inline script or
 * style. The icon's link keeps a browser from asking for /favicon.ico at the site's root, which
 * is not the dashboard's (it may be mounted under any prefix).
 */
const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentrun dashboard</title>
<link rel="icon" type="image/svg+xml" href="{{base}}/assets/favicon.svg">
<link rel="stylesheet" href="{{base}}/assets/app.css">
<script type="module" src="{{base}}/assets/app.js"></script>
</head>
<body>
<div id="app" data-base-path="{{base}}" data-api-base="{{api}}" data-auth="{{auth}}"></div>
</body>
</html>
`;

export async function buildApp(): Promise<void> {
  const result = await build({
    entryPoints: { app: join(packageDir, 'src', 'app', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // The client from its TypeScript sources, as the tests read it (no build of it needed).
    conditions: ['agentrun-source'],
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    outdir: outDir,
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(outDir, { recursive: true });
  // Each file written beside its place and renamed into it: test files building at once never
  // leave a half-written file for a server to read.
  const files = [
    ...result.outputFiles.map((f) => ({ path: f.path, contents: f.contents })),
    { path: join(outDir, 'index.html'), contents: INDEX_HTML },
    { path: join(outDir, 'favicon.svg'), contents: readFileSync(join(packageDir, 'src', 'app', 'favicon.svg')) },
  ];
  for (const file of files) {
    const temporary = `${file.path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}

/** Builds the app when dist/app is missing or older than any of its sources. */
export async function ensureAppBuilt(): Promise<void> {
  const built = mtime(join(outDir, 'index.html'));
  if (built === undefined || sources.some((source) => newest(source) > built)) await buildApp();
}

const mtime = (path: string): number | undefined => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
};

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildApp();
