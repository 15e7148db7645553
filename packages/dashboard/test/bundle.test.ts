import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { ensureAppBuilt } from '../scripts/build-app.js';

/** The app stays small (JS at most 80 KB gzipped: quick to load on a slow link) and self-contained (no CDN). */
beforeAll(() => ensureAppBuilt(), 60_000);

const built = (name: string) => readFileSync(new URL(`../dist/app/${name}`, import.meta.url));

it('ships at most 80 KB of gzipped JavaScript', () => {
  expect(gzipSync(built('app.js')).length).toBeLessThanOrEqual(80 * 1024);
});

it('loads nothing from another origin', () => {
  for (const name of ['index.html', 'app.js', 'app.css', 'favicon.svg']) {
    expect(built(name).toString('utf8')).not.toMatch(/(src|href)=["']?https?:\/\//);
  }
  expect(built('app.css').toString('utf8')).not.toMatch(/url\(\s*["']?https?:/);
});
