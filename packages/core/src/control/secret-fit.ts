import { isUrlSafe } from './generated-secrets.js';
import type { WebhookRecord } from './records.js';

/**
 * Why `value` cannot serve a webhook of `mode`, or undefined when it can: a bearer token must be
 * one header token (no spaces or control characters, else no `Authorization` header can carry it),
 * a URL token must be URL-safe. Signature secrets are used as given. Asked both when a webhook
 * takes a secret and when a secret in use changes (docs/management-api.md, "Team secrets").
 */
export function secretUnfitFor(mode: WebhookRecord['authMode'], value: string): string | undefined {
  if (mode === 'url_token' && !isUrlSafe(value)) return 'is not URL-safe (A-Z a-z 0-9 - . _ ~ only), so it cannot be a url_token';
  if (mode === 'token' && !/^[\x21-\x7e]+$/.test(value))
    return 'has spaces or characters outside visible ASCII, so no Authorization: Bearer header can carry it';
  return undefined;
}
