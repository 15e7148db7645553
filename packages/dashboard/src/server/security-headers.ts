/**
 * The headers every dashboard answer carries (docs/dashboard.md, "Security"): a strict CSP (no
 * inline script or style, no framing, no `<base>`), and the usual hardening.
 */
export function securityHeaders(connectSources: readonly string[]): Record<string, string> {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src ${["'self'", ...connectSources].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  };
}

/** The origin of an absolute API base URL other than the page's own, for `connect-src`; none for a path. */
export function extraConnectSource(apiBaseUrl: string, pageOrigin: string): string[] {
  if (!/^https?:\/\//i.test(apiBaseUrl)) return [];
  const origin = new URL(apiBaseUrl).origin;
  return origin === pageOrigin ? [] : [origin];
}
