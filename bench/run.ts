import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claimRoutesGroup } from './claim-routes.js';
import { dashboardGroup } from './dashboard.js';
import { executorGroup } from './executor.js';
import { executorContainerGroup } from './executor-container.js';
import { filterGroup } from './filter.js';
import { gitSourcesGroup } from './git-sources.js';
import { harnessGroup } from './harness.js';
import { hostileGroup } from './hostile.js';
import { ingressGroup } from './ingress.js';
import { ingressCoreGroup } from './ingress-core.js';
import { ingressTelemetryGroup } from './ingress-telemetry.js';
import { instructionsGroup } from './instructions.js';
import { notifyGroup } from './notify.js';
import { postgresGroup } from './postgres.js';
import { postgresIngressGroup } from './postgres-ingress.js';
import { queueGroup } from './queue.js';
import { runIndexesGroup } from './run-indexes.js';
import { runsGroup } from './runs.js';
import { sseGroup } from './sse.js';
import { transcriptGroup } from './transcript.js';
import { validationGroup } from './validation.js';

/**
 * `npm run bench [-- <group> …]`: run benchmark groups, print a table, and merge the figures
 * (name → number) into bench/results.json (not committed). Benchmarks measure; tests never time.
 */
export interface BenchGroup {
  name: string;
  description: string;
  /** Another group's name: asking for that group runs this one too (a part kept apart to be asked for alone). */
  partOf?: string;
  run(): Promise<Record<string, number>>;
}

const groups: BenchGroup[] = [
  runsGroup,
  postgresGroup,
  runIndexesGroup,
  postgresIngressGroup,
  filterGroup,
  ingressGroup,
  ingressCoreGroup,
  ingressTelemetryGroup,
  instructionsGroup,
  notifyGroup,
  queueGroup,
  claimRoutesGroup,
  sseGroup,
  executorGroup,
  executorContainerGroup,
  transcriptGroup,
  validationGroup,
  gitSourcesGroup,
  hostileGroup,
  harnessGroup,
  dashboardGroup,
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !groups.some((g) => g.name === w));
if (unknown.length > 0) {
  console.error(`unknown group(s): ${unknown.join(', ')}; groups: ${groups.map((g) => g.name).join(', ')}`);
  process.exit(2);
}

const resultsPath = join(dirname(fileURLToPath(import.meta.url)), 'results.json');
const results: Record<string, number> = await readFile(resultsPath, 'utf8').then(JSON.parse, () => ({}));
const asked = (g: BenchGroup) => wanted.includes(g.name) || (g.partOf !== undefined && wanted.includes(g.partOf));
for (const group of groups.filter((g) => wanted.length === 0 || asked(g))) {
  console.log(`\n## ${group.name}: ${group.description}`);
  const figures = await group.run();
  console.table(Object.entries(figures).map(([figure, value]) => ({ figure, value: Number(value.toPrecision(4)) })));
  Object.assign(results, figures);
}
await mkdir(dirname(resultsPath), { recursive: true });
await writeFile(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote ${resultsPath}`);
