import { API_KEY_SCOPE_DESCRIPTIONS, API_KEY_SCOPES, type ApiKeyScope } from '@agentrun/core/api';
import type { Command } from '../command.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';

/**
 * `agentrun keys create|list|revoke`: the team's API keys (docs/management-api.md, "API keys";
 * docs/operations.md, "API keys"). A new key is printed once, on stdout, as the API shows it once;
 * the scopes are core's list, checked here before any request.
 */

const SCOPES_HELP = `Scopes (repeat --scope):\n${API_KEY_SCOPES.map((s) => `  ${s.padEnd(15)} ${API_KEY_SCOPE_DESCRIPTIONS[s]}`).join('\n')}`;

const isScope = (s: string): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s);

/** `30d`, `12h`, `90m` → milliseconds; anything else is a usage error. */
function durationMs(text: string): number {
  const match = /^([1-9][0-9]{0,5})([dhm])$/.exec(text);
  if (!match) throw new UsageError(`--expires-in must be a number and d, h or m (e.g. 90d), not ${JSON.stringify(text)}`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[match[2] as 'd' | 'h' | 'm'];
  return Number(match[1]) * unit;
}

export const keysCreate: Command = {
  name: 'keys create',
  summary: 'Create an API key of the team (the key is printed once)',
  description: `The key is printed on stdout this once; only its hash is kept.\n${SCOPES_HELP}`,
  options: {
    name: { type: 'string', description: 'a label for people (1-100 characters)', valueName: 'name' },
    scope: { type: 'string', multiple: true, description: 'a scope the key gets (repeatable; at least one)', valueName: 'scope' },
    'expires-in': { type: 'string', description: 'expire after this long: 90d, 12h, 30m', valueName: 'duration' },
    'expires-at': { type: 'string', description: 'expire at this RFC 3339 time', valueName: 'time' },
  },
  examples: ['agentrun keys create --name ci --scope read_runs --scope write_runs --expires-in 90d'],
  async run(context) {
    const name = context.requireString('name');
    const scopes = context.strings('scope');
    if (scopes.length === 0) throw new UsageError(`give at least one --scope: ${API_KEY_SCOPES.join(', ')}`);
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}; the scopes are ${API_KEY_SCOPES.join(', ')}`);
    const expiresIn = context.string('expires-in');
    const expiresAt = context.string('expires-at');
    if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
    const expires = expiresIn !== undefined ? new Date(Date.now() + durationMs(expiresIn)).toISOString() : expiresAt;
    const created = await context.client().apiKeys.create({
      name,
      scopes: [...new Set(scopes)] as ApiKeyScope[],
      ...(expires !== undefined ? { expires_at: expires } : {}),
    });
    if (context.json) context.printJson(created);
    else {
      context.print(
        details([
          ['id', created.id],
          ['name', created.name],
          ['scopes', (created.scopes ?? []).join(', ')],
          ['expires_at', created.expires_at ?? 'never'],
          ['key', created.key],
        ]),
      );
      context.note('The key is shown this once: store it now (e.g. as AGENTRUN_API_KEY in your CI secrets).');
    }
    return EXIT.ok;
  },
};

export const keysList: Command = {
  name: 'keys list',
  summary: 'List the team’s API keys not revoked (never the keys themselves)',
  async run(context) {
    const { api_keys } = await context.client().apiKeys.list();
    if (context.json) context.printJson(api_keys);
    else if (api_keys.length === 0) context.note('No API keys.');
    else
      context.print(
        table(
          ['ID', 'PREFIX', 'NAME', 'SCOPES', 'CREATED BY', 'CREATED', 'LAST USED', 'EXPIRES'],
          api_keys.map((k) => [
            k.id,
            cell(k.prefix),
            cell(k.name, 32),
            // A key minted before scopes existed keeps its old powers (docs/operations.md).
            k.scopes === null ? '(from before scopes)' : k.scopes.join(','),
            cell(k.created_by ? (k.created_by.display_name ?? k.created_by.uid) : '-', 24),
            k.created_at,
            k.last_used_at ?? '-',
            k.expires_at ?? 'never',
          ]),
        ),
      );
    return EXIT.ok;
  },
};

export const keysRevoke: Command = {
  name: 'keys revoke',
  summary: 'Revoke an API key: every server refuses it from its next request',
  arguments: ['<id>'],
  examples: ['agentrun keys revoke 3f2c9a0e-…   # the ID from keys list, not the key'],
  async run(context) {
    const id = context.positionals[0] as string;
    await context.client().apiKeys.revoke(id);
    if (context.json) context.printJson({ id, revoked: true });
    else context.print(`Revoked API key ${id}`);
    return EXIT.ok;
  },
};
