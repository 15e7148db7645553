/**
 * Where a callback may go (docs/callbacks.md, "Where callbacks may go"): a callback is a request
 * the server makes, so by default it may not reach the server's own network. One decider for the
 * URL check at registration and the address check at each send (after DNS, sender.ts).
 */

const parseIpv4 = (text: string): number[] | undefined => {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
};

const privateIpv4 = ([a = 0, b = 0]: number[]): boolean =>
  a === 0 || // "this" network
  a === 10 ||
  a === 127 ||
  (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
  (a === 169 && b === 254) || // link-local (cloud metadata)
  (a === 172 && b >= 16 && b <= 31) ||
  (a === 192 && b === 168) ||
  (a === 198 && (b === 18 || b === 19)) || // benchmarking
  a >= 224; // multicast, reserved, broadcast

/** IPv6 as eight 16-bit groups; `undefined` when not an IPv6 literal. */
const parseIpv6 = (text: string): number[] | undefined => {
  if (!text.includes(':') || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let tail: number[] = [];
  let head = text;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const bytes = parseIpv4(v4[1]);
    if (!bytes) return undefined;
    tail = [((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0), ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)];
    head = text.slice(0, -v4[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string | undefined) =>
    s ? s.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN)) : [];
  const left = groups(halves[0]);
  const right = [...groups(halves[1]), ...tail];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...new Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...right];
  return all.some(Number.isNaN) ? undefined : all;
};

const privateIpv6 = (g: number[]): boolean => {
  const [g0 = 0, , , , , g5 = 0, g6 = 0, g7 = 0] = g;
  if (g.slice(0, 7).every((x) => x === 0) && (g7 === 0 || g7 === 1)) return true; // :: and ::1
  if (g.slice(0, 5).every((x) => x === 0) && g5 === 0xffff) return privateIpv4([g6 >> 8, g6 & 255, g7 >> 8, g7 & 255]); // v4-mapped
  return (g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfe80 || (g0 & 0xff00) === 0xff00; // unique local, link-local, multicast
};

/** Whether an IP address (v4 or v6 text) is private, loopback, link-local or otherwise not public. Not an IP: `undefined`. */
export function isPrivateAddress(address: string): boolean | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = parseIpv4(bare);
  if (v4) return privateIpv4(v4);
  const v6 = parseIpv6(bare.split('%')[0] ?? bare);
  return v6 ? privateIpv6(v6) : undefined;
}

/** Most characters a callback URL may have. */
export const MAX_CALLBACK_URL_LENGTH = 2048;

/**
 * Why a callback URL is refused, or `undefined`: not http(s), credentials in it, too long, or (unless
 * `allowPrivate`) a literal private address or a `localhost` name. Names are checked again after DNS
 * at each send.
 */
export function callbackUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  if (text.length > MAX_CALLBACK_URL_LENGTH) return `must be at most ${MAX_CALLBACK_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (allowPrivate) return undefined;
  const host = url.hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host) === true)
    return 'must not point at a private, loopback or link-local address (docs/callbacks.md)';
  return undefined;
}
