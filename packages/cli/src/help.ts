import type { Command, OptionSpec } from './command.js';
import { DEFAULT_BASE_URL } from './config.js';

/** What `--help` prints: the command list, a group's subcommands, or one command's usage. */

export const GLOBAL_OPTIONS = {
  json: { type: 'boolean', description: "print the API's JSON (one document; a list prints the array of all its items)" },
  profile: { type: 'string', valueName: 'name', description: 'the profile of the config file to use (default: default)' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
} as const satisfies Record<string, OptionSpec>;

export function mainHelp(commands: readonly Command[], version: string): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `agentrun ${version}: the agentrun command line (docs/cli.md)`,
    '',
    'Usage: agentrun <command> [arguments] [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '  --version             print the version',
    '',
    `Configuration: AGENTRUN_API_KEY and AGENTRUN_BASE_URL (default ${DEFAULT_BASE_URL}), else a profile`,
    'of ~/.config/agentrun/config.json ($AGENTRUN_CONFIG). Exit codes: 0 ok, 1 a negative answer,',
    '2 usage, 3 API error, 4 network error, 5 a waited-for run did not succeed.',
    "Run 'agentrun <command> --help' for a command's arguments and options.",
  ].join('\n');
}

/** `agentrun runs` alone: the commands of the group. */
export function groupHelp(group: string, commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [`Usage: agentrun ${group} <command>`, '', 'Commands:', ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)].join(
    '\n',
  );
}

export function commandHelp(command: Command): string {
  const args = (command.arguments ?? []).join(' ');
  const lines = [`Usage: agentrun ${command.name}${args ? ` ${args}` : ''} [options]`, '', command.summary];
  if (command.description) lines.push('', command.description);
  if (command.options && Object.keys(command.options).length > 0) lines.push('', 'Options:', ...optionLines(command.options));
  lines.push('', 'Global options:', ...optionLines(GLOBAL_OPTIONS));
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const flags = Object.entries(options).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : '';
    const value = spec.type === 'string' ? ` <${spec.valueName ?? 'value'}>` : '';
    return [`${short}--${name}${value}`, `${spec.description}${spec.multiple ? ' (repeatable)' : ''}`] as const;
  });
  const width = Math.max(20, ...flags.map(([flag]) => flag.length));
  return flags.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}
