/**
 * A request URL's pathname without parsing the whole URL (`new URL` per request is a measurable
 * share of a small delivery's cost: bench/README.md, "What was tried"). Read directly only
 * where the WHATWG URL parser gives the same pathname: an `http:` or `https:` URL whose authority
 * is plain (no `\`, `@`, space, control or non-ASCII character), and whose path segments are made
 * of characters the parser keeps as they are (letters, digits, `-._~!$&'()*+,;=:@%`; it
 * percent-encodes others, turns `\` into `/`, drops tabs and newlines) and none starts with `.` or
 * `%` (so no dot segment, plain or percent-encoded, which the parser resolves). Anything else is
 * parsed by `URL`, so the answer is always the one `new URL(url).pathname` gives.
 *
 * One regular expression: each segment is a `/` and characters that cannot be one, so a failing
 * match gives back at most one segment's worth and the scan stays linear.
 */
const PLAIN =
  /^https?:\/\/[^/\\@?#\x00-\x20\x7f-\uffff]+((?:\/(?:[A-Za-z0-9\-_~!$&'()*+,;=:@][A-Za-z0-9\-._~!$&'()*+,;=:@%]*)?)+)(?:[?#]|$)/;

export function pathnameOf(url: string): string {
  const plain = PLAIN.exec(url);
  return plain ? (plain[1] as string) : new URL(url).pathname;
}
