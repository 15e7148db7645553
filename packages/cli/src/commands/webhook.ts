import type { ResponseOf } from '@agentrun/client';
import { AUTH_MODES, SIGNATURE_SCHEMES } from '@agentrun/core/api';
import type { Command, Context, OptionSpec } from '../command.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';
import { readSecretValue } from '../secret-input.js';

/**
 * `agentrun webhook list|create|enable|disable|rotate|delete` (docs/management-api.md,
 * "Webhooks"). A generated secret is printed once, as the API shows it once; a provider's secret
 * goes in like a team secret's value (stdin or a hidden prompt), never in argv.
 */

const FACTORY: Record<string, OptionSpec> = {
  factory: { type: 'string', valueName: 'uid', description: 'the factory (required)' },
};

const PROVIDER_SECRET: OptionSpec = {
  type: 'boolean',
  description: 'read the provider’s signing secret from stdin or a hidden prompt (signature schemes other than standard-webhooks)',
};

type WithSecret = ResponseOf<'createWebhook'>;

function printWithSecret(context: Context, answer: WithSecret): void {
  if (context.json) {
    context.printJson(answer);
    return;
  }
  context.print(
    details([
      ['uid', answer.webhook.uid],
      ['name', answer.webhook.name],
      ['auth_mode', answer.webhook.auth_mode],
      ['signature_scheme', answer.webhook.signature_scheme],
      ['secret_name', answer.webhook.secret_name],
      ['ingress_url', answer.ingress_url],
      ['secret', answer.secret],
    ]),
  );
  if (answer.secret !== undefined) context.note('The secret is shown this once: give it to the sender now.');
}

export const webhookList: Command = {
  name: 'webhook list',
  summary: 'List a factory’s live webhooks',
  options: FACTORY,
  async run(context) {
    const { webhooks } = await context.client().webhooks.list(context.requireString('factory'));
    if (context.json) context.printJson(webhooks);
    else if (webhooks.length === 0) context.note('No webhooks.');
    else
      context.print(
        table(
          ['UID', 'NAME', 'AUTH', 'ENABLED', 'INGRESS URL'],
          webhooks.map((w) => [
            w.uid,
            cell(w.name, 32),
            w.signature_scheme ? `${w.auth_mode}/${w.signature_scheme}` : w.auth_mode,
            w.enabled ? 'yes' : 'no',
            w.ingress_url,
          ]),
        ),
      );
    return EXIT.ok;
  },
};

export const webhookCreate: Command = {
  name: 'webhook create',
  summary: 'Create a webhook; prints its ingress URL and, once, a generated secret',
  arguments: ['<name>'],
  options: {
    ...FACTORY,
    'auth-mode': { type: 'string', valueName: 'mode', description: `${AUTH_MODES.join(', ')} (default token)` },
    scheme: { type: 'string', valueName: 'scheme', description: `with --auth-mode signature: ${SIGNATURE_SCHEMES.join(', ')}` },
    'secret-name': { type: 'string', valueName: 'name', description: 'reuse an existing team secret' },
    'delivery-id-header': {
      type: 'string',
      valueName: 'header',
      description: 'the header carrying the sender’s event ID, e.g. X-GitHub-Delivery',
    },
    'provider-secret': PROVIDER_SECRET,
  },
  examples: [
    'agentrun webhook create CI --factory $FACTORY',
    'printf %s "$GH_SECRET" | agentrun webhook create GitHub --factory $FACTORY --auth-mode signature --scheme github --provider-secret --delivery-id-header X-GitHub-Delivery',
  ],
  async run(context) {
    const factory = context.requireString('factory');
    const authMode = context.string('auth-mode');
    const scheme = context.string('scheme');
    if (authMode !== undefined && !(AUTH_MODES as readonly string[]).includes(authMode)) {
      throw new UsageError(`--auth-mode ${authMode}: must be one of ${AUTH_MODES.join(', ')}`);
    }
    if (scheme !== undefined && !(SIGNATURE_SCHEMES as readonly string[]).includes(scheme)) {
      throw new UsageError(`--scheme ${scheme}: must be one of ${SIGNATURE_SCHEMES.join(', ')}`);
    }
    const secretName = context.string('secret-name');
    const header = context.string('delivery-id-header');
    const providerSecret = context.flag('provider-secret')
      ? await readSecretValue(context.io, 'Provider signing secret (not shown): ')
      : undefined;
    const answer = await context.client().webhooks.create(factory, {
      name: context.positionals[0] as string,
      ...(authMode !== undefined ? { auth_mode: authMode as (typeof AUTH_MODES)[number] } : {}),
      ...(scheme !== undefined ? { signature_scheme: scheme as (typeof SIGNATURE_SCHEMES)[number] } : {}),
      ...(secretName !== undefined ? { secret_name: secretName } : {}),
      ...(header !== undefined ? { delivery_id_header: header } : {}),
      ...(providerSecret !== undefined ? { provider_secret: providerSecret } : {}),
    });
    printWithSecret(context, answer);
    return EXIT.ok;
  },
};

const toggle = (enabled: boolean): Command => ({
  name: enabled ? 'webhook enable' : 'webhook disable',
  summary: enabled ? 'Enable a webhook' : 'Disable a webhook (its deliveries are refused until enabled)',
  arguments: ['<webhook-uid>'],
  options: FACTORY,
  async run(context) {
    const webhook = await context.client().webhooks.update(context.requireString('factory'), context.positionals[0] as string, { enabled });
    if (context.json) context.printJson(webhook);
    else context.print(`${enabled ? 'Enabled' : 'Disabled'} webhook ${webhook.uid} (${webhook.name})`);
    return EXIT.ok;
  },
});

export const webhookEnable: Command = toggle(true);
export const webhookDisable: Command = toggle(false);

export const webhookRotate: Command = {
  name: 'webhook rotate',
  summary: 'Give a webhook a new secret (shown once); the old one stops at once',
  description:
    'A generated secret is rotated with no input. For a provider-issued one, create it at the provider, then\nrotate with --provider-secret and give it on stdin or at the prompt.',
  arguments: ['<webhook-uid>'],
  options: { ...FACTORY, 'provider-secret': PROVIDER_SECRET },
  async run(context) {
    const factory = context.requireString('factory');
    const secret = context.flag('provider-secret')
      ? await readSecretValue(context.io, 'New provider signing secret (not shown): ')
      : undefined;
    const answer = await context
      .client()
      .webhooks.rotateSecret(factory, context.positionals[0] as string, secret !== undefined ? { secret } : undefined);
    printWithSecret(context, answer);
    return EXIT.ok;
  },
};

export const webhookDelete: Command = {
  name: 'webhook delete',
  summary: 'Delete a webhook (its delivery log stays readable)',
  arguments: ['<webhook-uid>'],
  options: FACTORY,
  async run(context) {
    const uid = context.positionals[0] as string;
    await context.client().webhooks.delete(context.requireString('factory'), uid);
    if (context.json) context.printJson({ uid, deleted: true });
    else context.print(`Deleted webhook ${uid}`);
    return EXIT.ok;
  },
};
