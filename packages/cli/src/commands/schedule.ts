import type { ResponseOf } from '@agentrun/client';
import type { Command, Context } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';

/**
 * `agentrun schedule create|list|show|update|pause|resume|delete`: cron schedules that start runs
 * (docs/cli.md, "Schedules"; docs/schedules.md).
 */

type Schedule = ResponseOf<'getSchedule'>;
type AgentConfig = NonNullable<Schedule['agent_config']>;

const fields = {
  name: { type: 'string', description: 'its name', valueName: 'name' },
  cron: { type: 'string', description: 'five-field cron expression, e.g. "0 9 * * 1-5"', valueName: 'expression' },
  'time-zone': { type: 'string', description: 'IANA time zone the expression is read in (default UTC)', valueName: 'zone' },
  prompt: { type: 'string', description: 'what each run is asked', valueName: 'text' },
  skill: { type: 'string', description: 'a skill spec instead of (or with) a prompt (agent_config.skill_spec)', valueName: 'spec' },
  model: { type: 'string', description: 'the model (agent_config.model_id)', valueName: 'id' },
  environment: { type: 'string', description: 'the environment (agent_config.environment_id)', valueName: 'id' },
} as const;

/** The agent_config the flags give, over `base`. */
function configOf(context: Context, base: AgentConfig | undefined): AgentConfig | undefined {
  const config: AgentConfig = { ...base };
  const set = (flag: string, key: 'skill_spec' | 'model_id' | 'environment_id') => {
    const value = context.string(flag);
    if (value !== undefined) config[key] = value;
  };
  set('skill', 'skill_spec');
  set('model', 'model_id');
  set('environment', 'environment_id');
  return Object.keys(config).length > 0 ? config : undefined;
}

function show(context: Context, s: Schedule): void {
  if (context.json) {
    context.printJson(s);
    return;
  }
  context.print(
    details([
      ['id', s.id],
      ['name', s.name],
      ['cron_schedule', `${s.cron_schedule} (${s.time_zone})`],
      ['enabled', String(s.enabled)],
      ['prompt', s.prompt || '-'],
      ['skill', s.agent_config?.skill_spec ?? '-'],
      ['last_ran', s.history.last_ran ?? '-'],
      ['next_run', s.history.next_run ?? '-'],
      ['last_spawn_error', s.last_spawn_error ?? '-'],
    ]),
  );
}

export const scheduleCreate: Command = {
  name: 'schedule create',
  summary: 'Create a schedule: a run of a prompt or skill at each due time of a cron expression',
  options: { ...fields, disabled: { type: 'boolean', description: 'create it paused' } },
  examples: ['agentrun schedule create --name "Daily review" --cron "0 9 * * 1-5" --time-zone Europe/Paris --prompt "Review open PRs"'],
  async run(context) {
    const prompt = context.string('prompt');
    const timeZone = context.string('time-zone');
    const config = configOf(context, undefined);
    const created = await context.client().schedules.create({
      name: context.requireString('name'),
      cron_schedule: context.requireString('cron'),
      ...(prompt !== undefined ? { prompt } : {}),
      ...(timeZone !== undefined ? { time_zone: timeZone } : {}),
      ...(config ? { agent_config: config } : {}),
      enabled: !context.flag('disabled'),
    });
    show(context, created);
    return EXIT.ok;
  },
};

export const scheduleList: Command = {
  name: 'schedule list',
  summary: 'List the team’s schedules',
  async run(context) {
    const { schedules } = await context.client().schedules.list();
    if (context.json) context.printJson(schedules);
    else if (schedules.length === 0) context.note('No schedules.');
    else
      context.print(
        table(
          ['ID', 'NAME', 'CRON', 'ZONE', 'ENABLED', 'NEXT RUN', 'LAST RAN', 'LAST ERROR'],
          schedules.map((s) => [
            s.id,
            cell(s.name, 40),
            cell(s.cron_schedule),
            cell(s.time_zone),
            String(s.enabled),
            s.history.next_run ?? '-',
            s.history.last_ran ?? '-',
            cell(s.last_spawn_error ?? '-', 40),
          ]),
        ),
      );
    return EXIT.ok;
  },
};

export const scheduleShow: Command = {
  name: 'schedule show',
  summary: 'Show a schedule, with its last and next run',
  arguments: ['<id>'],
  async run(context) {
    show(context, await context.client().schedules.get(context.positionals[0] as string));
    return EXIT.ok;
  },
};

export const scheduleUpdate: Command = {
  name: 'schedule update',
  summary: 'Change a schedule: the flags given, the rest kept',
  arguments: ['<id>'],
  options: { ...fields, enable: { type: 'boolean', description: 'resume it' }, disable: { type: 'boolean', description: 'pause it' } },
  examples: ['agentrun schedule update 01J… --cron "30 8 * * *"'],
  async run(context) {
    const id = context.positionals[0] as string;
    const client = context.client();
    const current = await client.schedules.get(id);
    const config = configOf(context, current.agent_config);
    const updated = await client.schedules.update(id, {
      name: context.string('name') ?? current.name,
      cron_schedule: context.string('cron') ?? current.cron_schedule,
      time_zone: context.string('time-zone') ?? current.time_zone,
      prompt: context.string('prompt') ?? current.prompt,
      enabled: context.flag('enable') ? true : context.flag('disable') ? false : current.enabled,
      ...(config ? { agent_config: config } : {}),
    });
    show(context, updated);
    return EXIT.ok;
  },
};

const toggle = (verb: 'pause' | 'resume', summary: string): Command => ({
  name: `schedule ${verb}`,
  summary,
  arguments: ['<id>'],
  async run(context) {
    show(context, await context.client().schedules[verb](context.positionals[0] as string));
    return EXIT.ok;
  },
});

export const schedulePause = toggle('pause', 'Pause a schedule: no run starts until it is resumed');
export const scheduleResume = toggle('resume', 'Resume a schedule from its next due time');

export const scheduleDelete: Command = {
  name: 'schedule delete',
  summary: 'Delete a schedule (the runs it started stay)',
  arguments: ['<id>'],
  async run(context) {
    const id = context.positionals[0] as string;
    await context.client().schedules.delete(id);
    if (context.json) context.printJson({ id, deleted: true });
    else context.print(`Deleted schedule ${id}`);
    return EXIT.ok;
  },
};
