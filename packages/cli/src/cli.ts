import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { AgentRunClient } from '@agentrun/client';
import { checkAnswer } from './answer-check.js';
import type { Command, Context, Io, OptionSpec } from './command.js';
import * as registry from './commands/index.js';
import { resolveConnection } from './config.js';
import { InvalidInputError, UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { commandHelp, GLOBAL_OPTIONS, groupHelp, mainHelp } from './help.js';
import { reportError } from './report.js';
import { terminalJson, terminalText } from './terminal-text.js';

/**
 * The command line (docs/cli.md): finds the command named by the leading words of argv, parses
 * its flags with node:util `parseArgs` (strict: an unknown flag is a usage error), checks the
 * positional count, runs it, and turns whatever it throws into a message and an exit code.
 */

/** Every registered command, by name (commands/index.ts lists them). */
const COMMANDS: readonly Command[] = Object.values<Command>(registry).sort((a, b) => a.name.localeCompare(b.name));

/** Global flags that may come before the command's words. */
const LEADING_VALUE_FLAGS = new Set(['--profile']);

export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  let hint = "Run 'agentrun --help' for usage.";
  try {
    const { leading, rest } = splitLeadingFlags(argv);
    if (rest.length === 0) {
      if (leading.includes('--version')) {
        io.stdout.write(`${version()}\n`);
        return EXIT.ok;
      }
      const help = mainHelp(COMMANDS, version());
      if (leading.includes('--help') || leading.includes('-h')) {
        io.stdout.write(`${help}\n`);
        return EXIT.ok;
      }
      io.stderr.write(`${help}\n`);
      return EXIT.usage;
    }
    const found = findCommand(rest);
    if (found.kind === 'group') {
      const help = groupHelp(found.group, found.commands);
      if (found.rest.some((t) => t === '--help' || t === '-h') || leading.includes('--help')) {
        io.stdout.write(`${help}\n`);
        return EXIT.ok;
      }
      const next = found.rest[0];
      if (next === undefined || next.startsWith('-')) {
        io.stderr.write(`${help}\n`);
        return EXIT.usage;
      }
      throw new UsageError(`unknown command '${found.group} ${next}'`);
    }
    const { command } = found;
    hint = `Run 'agentrun ${command.name} --help' for usage.`;
    const { values, positionals } = parseFlags(command, [...leading, ...found.rest]);
    if (values.help === true) {
      io.stdout.write(`${commandHelp(command)}\n`);
      return EXIT.ok;
    }
    checkPositionals(command, positionals);
    return await command.run(makeContext(io, values, positionals));
  } catch (error) {
    return reportError(error, io, hint);
  }
}

function splitLeadingFlags(argv: readonly string[]): { leading: string[]; rest: string[] } {
  let i = 0;
  const leading: string[] = [];
  while (i < argv.length && (argv[i] as string).startsWith('-') && argv[i] !== '--') {
    const token = argv[i++] as string;
    leading.push(token);
    if (LEADING_VALUE_FLAGS.has(token) && i < argv.length) leading.push(argv[i++] as string);
  }
  return { leading, rest: argv.slice(i) };
}

type Found = { kind: 'command'; command: Command; rest: string[] } | { kind: 'group'; group: string; commands: Command[]; rest: string[] };

/** The command whose words start `tokens`, the longest first; or the group its first word names. */
function findCommand(tokens: readonly string[]): Found {
  let best: Command | undefined;
  let bestLength = 0;
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.length > bestLength && words.every((word, i) => tokens[i] === word)) {
      best = command;
      bestLength = words.length;
    }
  }
  if (best) return { kind: 'command', command: best, rest: tokens.slice(bestLength) };
  const group = tokens[0] as string;
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  if (members.length > 0) return { kind: 'group', group, commands: members, rest: tokens.slice(1) };
  throw new UsageError(`unknown command '${group}'`);
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parseFlags(command: Command, args: string[]): { values: Values; positionals: string[] } {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries<OptionSpec>({ ...GLOBAL_OPTIONS, ...command.options })) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    // ERR_PARSE_ARGS_UNKNOWN_OPTION, _INVALID_OPTION_VALUE, _UNEXPECTED_POSITIONAL: their messages are clear.
    throw new UsageError((error as Error).message);
  }
}

function checkPositionals(command: Command, positionals: readonly string[]): void {
  const spec = command.arguments ?? [];
  const required = spec.filter((a) => a.startsWith('<')).length;
  const variadic = spec.some((a) => a.endsWith('...'));
  const shown = spec.join(' ') || 'no arguments';
  if (positionals.length < required) throw new UsageError(`'${command.name}' needs ${shown}`);
  if (!variadic && positionals.length > spec.length) {
    throw new UsageError(
      `'${command.name}' takes ${shown}; unexpected ${JSON.stringify(positionals[spec.length])} (quote an argument with spaces)`,
    );
  }
}

function makeContext(io: Io, values: Values, positionals: string[]): Context {
  let client: AgentRunClient | undefined;
  const string = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    io,
    json: values.json === true,
    positionals,
    string,
    requireString(name) {
      const value = string(name);
      if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
      return value;
    },
    strings: (name) => {
      const value = values[name];
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : [];
    },
    flag: (name) => values[name] === true,
    client() {
      if (client) return client;
      const connection = resolveConnection(io.env, string('profile'));
      const maxRetries = io.env.AGENTRUN_MAX_RETRIES;
      if (maxRetries !== undefined && !/^\d{1,2}$/.test(maxRetries))
        throw new InvalidInputError('AGENTRUN_MAX_RETRIES must be a whole number from 0 to 99');
      client = new AgentRunClient({
        apiKey: connection.apiKey,
        baseURL: connection.baseUrl,
        checkAnswer,
        ...(maxRetries !== undefined ? { maxRetries: Number(maxRetries) } : {}),
      });
      return client;
    },
    // Everything printed passes terminal-text.ts: much of it is the server's or an agent's text.
    print: (text) => io.stdout.write(`${terminalText(text)}\n`),
    printJson: (value) => io.stdout.write(`${terminalJson(value, 2)}\n`),
    note: (text) => io.stderr.write(`${terminalText(text)}\n`),
  };
}

/** The version of package.json, one directory above this file in src/ and in dist/ alike. */
function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
