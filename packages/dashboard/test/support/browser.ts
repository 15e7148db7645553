import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * The headless Chromium the browser tests drive (docs/dashboard.md, "Tests"): Debian's `chromium`
 * package, which .ci/run installs. Outside CI a missing browser skips those tests with a warning;
 * with CI=true it fails them.
 */

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Whether the browser tests run here; throws under CI when they cannot. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium package`);
  console.warn(`[dashboard tests] no Chromium at ${CHROMIUM}; the browser tests are skipped (apt-get install chromium)`);
  return false;
}

let shared: Promise<Browser> | undefined;

/**
 * The Chromium of this test process, launched by the first file that asks and shared by the files
 * after it in the same worker (vitest.config.ts): each test opens a context of its own
 * (`openPage`), so nothing of one test's pages reaches another. Files never close it; Playwright
 * ends it with the process.
 */
export function sharedBrowser(): Promise<Browser> {
  shared ??= chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  return shared;
}

/**
 * A page that records what should never happen: a script error, a failed CSP check, a console
 * error. `problems` is asserted empty at the end of each test.
 */
export async function openPage(browser: Browser, origin: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  // Well inside the test's own timeout, so a wait that fails names what it waited for.
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A 4xx the app asked for on purpose (a wrong key, an invalid filter) is logged by Chromium as
    // a failed resource; those are expected, anything else is not.
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  return { page, problems };
}

const axeSource = (): string => {
  const require = createRequire(import.meta.url);
  return require('axe-core').source as string;
};

/**
 * Runs axe-core on the page as it is now (injected through the DevTools protocol, which the page's
 * CSP does not govern) and answers its serious and critical violations, described.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource());
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(', ')}`);
}
