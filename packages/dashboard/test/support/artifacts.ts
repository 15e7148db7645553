import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const artifactsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test-artifacts', 'dashboard');

/**
 * A full-page screenshot of the page as a test checked it, kept as a test artifact
 * (`test-artifacts/dashboard/<name>.png` at the repository's root, ignored by git). Answers its bytes.
 */
export async function keepScreenshot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(artifactsDir, { recursive: true });
  return page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
}
