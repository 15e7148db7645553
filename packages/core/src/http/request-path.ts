/**
 * A request URL's pathname without parsing the whole URL (`new URL` per request is a measurable
 * share of a small delivery's cost: docs/production.md, "The memory path"). Read directly only
 * where the WHATWG URL parser would give the same pathname: an `http:` or `https:` URL whose
 * authority holds no `\` or `@`, and whose path is made of characters the parser keeps as they
 * are, with no dot segment (`.`, `..`, or their percent-encoded forms, which the parser resolves).
 * Anything else is parsed by `URL`, so the answer is always the one `new URL(url).pathname` gives.
 */
export function pathnameOf(url: string): string {
  const start = authorityEnd(url);
  if (start !== -1) {
    let end = url.length;
    for (let i = start; i < url.length; i++) {
      const c = url.charCodeAt(i);
      if (c === 0x3f || c === 0x23) {
        end = i; // `?` or `#`
        break;
      }
      if (!PATH_KEPT[c]) return new URL(url).pathname;
    }
    const path = url.slice(start, end);
    if (!DOT_SEGMENT.test(path)) return path;
  }
  return new URL(url).pathname;
}

/** A segment the parser resolves: `.` or `..`, plain or percent-encoded. */
const DOT_SEGMENT = /\/(?:\.|%2e)(?:\.|%2e)?(?:\/|$)/i;

/**
 * Where the path of an `http(s)://host…` URL begins (its first `/` after the authority), or -1
 * when the URL is not plainly of that shape (then `URL` decides).
 */
function authorityEnd(url: string): number {
  const after = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  if (after === -1) return -1;
  for (let i = after; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f) return i === after ? -1 : i; // `/`: an empty host is the parser's to judge
    if (c === 0x5c || c === 0x40 || c === 0x3f || c === 0x23 || c <= 0x20 || c >= 0x7f) return -1; // `\` `@` `?` `#`, controls, space, non-ASCII
  }
  return -1;
}

/**
 * Path characters the parser leaves untouched: letters, digits and `-._~!$&'()*+,;=:@/%`.
 * (It percent-encodes others, turns `\` into `/`, and drops tabs and newlines.)
 */
const PATH_KEPT: boolean[] = (() => {
  const kept: boolean[] = new Array(128).fill(false);
  for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/%") kept[ch.charCodeAt(0)] = true;
  return kept;
})();
