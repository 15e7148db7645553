import { writeFile } from 'node:fs/promises';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../output.js';

/** `agentrun runs artifacts` and `agentrun artifacts download` (docs/cli.md, "Artifacts"; docs/artifacts.md). */

/** What one artifact is, in a table cell: a pull request's URL, a plan's title, a file's path. */
const what = (a: { artifact_type: string; data: Record<string, unknown> }): string => {
  const d = a.data;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (a.artifact_type === 'PULL_REQUEST') return `${text(d.url)} (${text(d.branch)})`;
  if (a.artifact_type === 'PLAN') return text(d.title) || text(d.url);
  if (a.artifact_type === 'FILE') return `${text(d.filepath)} (${text(d.mime_type)}, ${String(d.size_bytes ?? '?')} bytes)`;
  return `${text(d.description)} (${text(d.mime_type)})`.trim();
};

export const runsArtifacts: Command = {
  name: 'runs artifacts',
  summary: 'List what a run’s agent reported: plans, pull requests, screenshots, files',
  description: 'The UID of a plan, screenshot or file is what `agentrun artifacts download` takes.',
  arguments: ['<run-id>'],
  examples: [
    'agentrun runs artifacts $RUN_ID',
    'agentrun runs artifacts $RUN_ID --json | jq -r \'.[] | select(.artifact_type == "PULL_REQUEST") | .data.url\'',
  ],
  async run(context) {
    const artifacts = await context.client().artifacts.list(context.positionals[0] as string);
    if (context.json) {
      context.printJson(artifacts);
      return EXIT.ok;
    }
    if (artifacts.length === 0) {
      context.note('No artifacts.');
      return EXIT.ok;
    }
    const rows = artifacts.map((a) => {
      const data = a.data as Record<string, unknown>;
      return [
        a.artifact_type,
        typeof data.artifact_uid === 'string' ? data.artifact_uid : '-',
        what({ artifact_type: a.artifact_type, data }),
        a.created_at,
      ];
    });
    context.print(table(['TYPE', 'UID', 'WHAT', 'CREATED'], rows));
    return EXIT.ok;
  },
};

export const artifactsDownload: Command = {
  name: 'artifacts download',
  summary: 'Save a screenshot’s, file’s or plan’s bytes to a file',
  arguments: ['<artifact-uid>'],
  options: { out: { type: 'string', short: 'o', valueName: 'path', description: 'the file to write (required; replaced if it exists)' } },
  examples: ['agentrun artifacts download $UID --out report.pdf'],
  async run(context) {
    const out = context.requireString('out');
    const bytes = new Uint8Array(await context.client().artifacts.download(context.positionals[0] as string));
    await writeFile(out, bytes);
    if (context.json) context.printJson({ path: out, size_bytes: bytes.byteLength });
    else context.note(`Saved ${bytes.byteLength} bytes to ${out}`);
    return EXIT.ok;
  },
};
