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

/** IPv4 bytes from two 16-bit groups. */
const ipv4Of = (high: number, low: number): number[] => [high >> 8, high & 255, low >> 8, low & 255];

/**
 * The IPv4 address an IPv6 address stands for, where its form carries one that a host, a
 * translator or a relay would reach: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d` (deprecated, `::` and `::1` among them), NAT64's
 * well-known prefix `64:ff9b::a.b.c.d` and 6to4's `2002:aabb:ccdd::/48`. Such an address is as
 * private as the IPv4 address in it: on a NAT64 network `64:ff9b::a9fe:a9fe` is 169.254.169.254.
 */
const embeddedIpv4 = (g: number[]): number[] | undefined => {
  const [g0 = 0, g1 = 0, g2 = 0, , g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g5 === 0xffff || g5 === 0)) return ipv4Of(g6, g7); // mapped, compatible
  if (zeros(0, 4) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7); // translated
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return ipv4Of(g6, g7); // NAT64, well-known prefix
  if (g0 === 0x2002) return ipv4Of(g1, g2); // 6to4
  return undefined;
};

const privateIpv6 = (g: number[]): boolean => {
  const [g0 = 0, g1 = 0, g2 = 0] = g;
  const v4 = embeddedIpv4(g);
  if (v4) return privateIpv4(v4);
  return (
    // NAT64 outside the well-known /96, 64:ff9b:1::/48 (local use) among it: the network's own
    // translator, the IPv4 address at a place the network chose.
    (g0 === 0x64 && g1 === 0xff9b) ||
    (g0 === 0x100 && g1 === 0 && g2 === 0) || // discard-only 100::/64
    (g0 & 0xfe00) === 0xfc00 || // unique local
    (g0 & 0xffc0) === 0xfe80 || // link-local
    (g0 & 0xffc0) === 0xfec0 || // site-local (deprecated, still routed by some networks)
    (g0 & 0xff00) === 0xff00 // multicast
  );
};

/** Whether an IP address (v4 or v6 text) is private, loopback, link-local or otherwise not public. Not an IP: `undefined`. */
export function isPrivateAddress(address: string): boolean | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = parseIpv4(bare);
  if (v4) return privateIpv4(v4);
  const v6 = parseIpv6(bare.split('%')[0] ?? bare);
  return v6 ? privateIpv6(v6) : undefined;
}

/**
 * A host name as a resolver reads it: in lower case, without the trailing dot of a fully
 * qualified name (`LOCALHOST.` is `localhost`).
 */
const normalHostname = (hostname: string): string => hostname.toLowerCase().replace(/\.+$/, '');

/** Whether a name is `localhost` or under it, which resolves to the host itself (RFC 6761). */
const isLocalhostName = (hostname: string): boolean => {
  const host = normalHostname(hostname);
  return host === 'localhost' || host.endsWith('.localhost');
};

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
  if (isLocalhostName(url.hostname) || isPrivateAddress(url.hostname) === true)
    return 'must not point at a private, loopback or link-local address (docs/callbacks.md)';
  return undefined;
}
