import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun schedule …` (docs/cli.md, "Schedules"; docs/schedules.md) against a reference server.

let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer();
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

interface Schedule {
  id: string;
  name: string;
  cron_schedule: string;
  time_zone: string;
  enabled: boolean;
  prompt: string;
  agent_config?: { model_id?: string };
  history: { next_run: string | null };
}

describe('agentrun schedule', () => {
  it('create, list, show, update (flags given, the rest kept), pause, resume, delete', async () => {
    const created = await cliJson<Schedule>(
      [
        'schedule',
        'create',
        '--name',
        'Daily review',
        '--cron',
        '0 9 * * 1-5',
        '--time-zone',
        'Europe/Paris',
        '--prompt',
        'Review PRs',
        '--model',
        'm1',
      ],
      { env },
    );
    expect(created).toMatchObject({
      name: 'Daily review',
      cron_schedule: '0 9 * * 1-5',
      time_zone: 'Europe/Paris',
      enabled: true,
      agent_config: { model_id: 'm1' },
    });
    const listed = await cli(['schedule', 'list'], { env });
    expect(listed.stdout).toContain('Daily review');
    expect(listed.stdout).toContain('Europe/Paris');
    const shown = await cli(['schedule', 'show', created.id], { env });
    expect(shown.stdout).toMatch(/^cron_schedule:\s+0 9 \* \* 1-5 \(Europe\/Paris\)$/m);

    const updated = await cliJson<Schedule>(['schedule', 'update', created.id, '--cron', '30 8 * * *'], { env });
    expect(updated).toMatchObject({
      cron_schedule: '30 8 * * *',
      name: 'Daily review',
      prompt: 'Review PRs',
      time_zone: 'Europe/Paris',
      agent_config: { model_id: 'm1' },
    });
    expect(await cliJson<Schedule>(['schedule', 'pause', created.id], { env })).toMatchObject({
      enabled: false,
      history: { next_run: null },
    });
    expect(await cliJson<Schedule>(['schedule', 'resume', created.id], { env })).toMatchObject({ enabled: true });
    expect((await cli(['schedule', 'delete', created.id], { env })).stdout).toContain(`Deleted schedule ${created.id}`);
    const gone = await cli(['schedule', 'show', created.id], { env });
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('not found');
  });

  it('a bad cron expression is refused, naming the field', async () => {
    const bad = await cli(['schedule', 'create', '--name', 'x', '--cron', 'daily', '--prompt', 'y'], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('cron_schedule');
    expect((await cli(['schedule', 'create', '--cron', '0 9 * * *'], { env })).code).toBe(2);
  });

  it('apply reads schedules/<name>.yaml (cronSchedule, timeZone), shows it in the plan, and a problem at its file and line', async () => {
    const factory = (await cliJson<{ uid: string }>(['factory', 'create', 'Nightly jobs'], { env })).uid;
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-defs-'));
    mkdirSync(join(dir, 'schedules'));
    writeFileSync(
      join(dir, 'schedules', 'sweep.yaml'),
      'cronSchedule: "0 2 * * *"\ntimeZone: Europe/Paris\nprompt: Sweep the flaky tests\n',
    );
    const applied = await cli(['apply', dir, '--factory', factory], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/schedules\/sweep\.yaml\s+create/);
    const [made] = (await cliJson<(Schedule & { definition_file?: string })[]>(['schedule', 'list'], { env })).filter(
      (s) => s.name === 'sweep',
    );
    expect(made).toMatchObject({ cron_schedule: '0 2 * * *', time_zone: 'Europe/Paris', definition_file: 'schedules/sweep.yaml' });

    writeFileSync(join(dir, 'schedules', 'sweep.yaml'), 'cronSchedule: "0 2 * * *"\ntimeZone: Mars/Olympus\nprompt: Sweep\n');
    const refused = await cli(['apply', dir, '--factory', factory], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/schedules\/sweep\.yaml:2: timeZone: must be an IANA time zone/);
  });
});
