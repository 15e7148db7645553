import type { Command, OptionSpec } from './command.js';
import { DEFAULT_BASE_URL } from './config.js';
import { columns } from './output.js';

/** What `--help` prints: the command list, a group's subcommands, or one command's usage. */

export const GLOBAL_OPTIONS = {
  json: { type: 'boolean', description: "print the API's JSON (one document; a list prints the array of all its items)" },
  profile: { type: 'string', valueName: 'name', description: 'the profile of the config file to use (default: default)' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
} as const satisfies Record<string, OptionSpec>;

export function mainHelp(commands: readonly Command[], version: string): string {
  return [
    `agentrun ${version}: the agentrun command line (docs/cli.md)`,
    '',
    'Usage: agentrun <command> [arguments] [options]',
    '',
    'Commands:',
    ...commandLines(commands),
    '',
    'Global options:',
    ...columns([...optionRows(GLOBAL_OPTIONS), ['--version', 'print the version']], INDENT),
    '',
    `Configuration: AGENTRUN_API_KEY and AGENTRUN_BASE_URL (default ${DEFAULT_BASE_URL}), else a profile`,
    'of ~/.config/agentrun/config.json ($AGENTRUN_CONFIG). Exit codes: 0 ok, 1 a negative answer,',
    '2 usage, 3 API error, 4 network error, 5 a waited-for run did not succeed.',
    "Run 'agentrun <command> --help' for a command's arguments and options.",
  ].join('\n');
}

/** `agentrun runs` alone: the commands of the group. */
export function groupHelp(group: string, commands: readonly Command[]): string {
  return [`Usage: agentrun ${group} <command>`, '', 'Commands:', ...commandLines(commands)].join('\n');
}

export function commandHelp(command: Command): string {
  const args = (command.arguments ?? []).join(' ');
  const lines = [`Usage: agentrun ${command.name}${args ? ` ${args}` : ''} [options]`, '', command.summary];
  if (command.description) lines.push('', command.description);
  // The command's options and the global ones as one table, so the two lists align.
  const own = optionRows(command.options ?? {});
  const options = columns([...own, ...optionRows(GLOBAL_OPTIONS)], INDENT);
  if (own.length > 0) lines.push('', 'Options:', ...options.slice(0, own.length));
  lines.push('', 'Global options:', ...options.slice(own.length));
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

const INDENT = { indent: '  ' };

const commandLines = (commands: readonly Command[]): string[] =>
  columns(
    commands.map((c) => [c.name, c.summary]),
    INDENT,
  );

function optionRows(options: Readonly<Record<string, OptionSpec>>): string[][] {
  return Object.entries(options).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : '';
    const value = spec.type === 'string' ? ` <${spec.valueName ?? 'value'}>` : '';
    return [`${short}--${name}${value}`, `${spec.description}${spec.multiple ? ' (repeatable)' : ''}`];
  });
}
