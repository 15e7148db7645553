import { describe, expect, it } from 'vitest';
import { jsonReaders } from '../src/http/json-readers.js';
import { ROUTES } from '../src/routes/table.js';
import { expectProblem, setup } from './helpers.js';

// Routes that take no body (docs/management-api.md, "Routes without a body"): one reader,
// JsonReaders.readEmpty, admits nothing or `{}` and answers anything else with a 400 problem
// before the route does anything.

const encode = (text: string) => new TextEncoder().encode(text);

/** Bodies no route without one admits: not JSON, or JSON that is not `{}`. */
const REFUSED: [string, BodyInit][] = [
  ['truncated JSON', '{"'],
  ['an unclosed object', '{'],
  ['invalid UTF-8', new Uint8Array([0x7b, 0x80, 0x7d])],
  ['a NUL byte', '\0'],
  ['NUL inside an object', '{\0}'],
  ['nesting past the limit', `${'['.repeat(2000)}${']'.repeat(2000)}`],
  ['a key', '{"secret":"x"}'],
  ['an empty array', '[]'],
  ['null', 'null'],
  ['a string', '"x"'],
  ['two objects', '{}{}'],
];
/** Bodies every route without one admits. */
const ADMITTED: [string, BodyInit | undefined][] = [
  ['no body', undefined],
  ['{}', '{}'],
  ['{} among whitespace', ' \n{ }\t'],
  ['{} after a byte order mark', new Uint8Array([0xef, 0xbb, 0xbf, ...encode('{}')])],
];

/** The routes whose table entry says they take no body but `{}`. */
const EMPTY_BODY_ROUTES = Object.entries(ROUTES).filter(([, route]) => {
  const body = (route as { body?: { schema: { type?: string; entries?: object }; presence: string } }).body;
  return body?.presence === 'optional' && body.schema.type === 'strict_object' && Object.keys(body.schema.entries ?? {}).length === 0;
});

describe('JsonReaders.readEmpty', () => {
  const { readEmpty } = jsonReaders(1024 * 1024);
  const request = (body: BodyInit | undefined) =>
    new Request('http://x.test/', { method: 'POST', ...(body === undefined ? {} : { body }) });

  it.each(ADMITTED)('admits %s', async (_, body) => {
    expect(await readEmpty(request(body), 'rotate-secret')).toEqual(body === undefined ? undefined : {});
  });

  it.each(REFUSED)('refuses %s with a 400', async (_, body) => {
    await expect(readEmpty(request(body), 'rotate-secret')).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('names the route in its refusal of JSON that is not {}', async () => {
    await expect(readEmpty(request('{"a":1}'), 'rotate-secret')).rejects.toThrow(/rotate-secret takes no body \(or an empty JSON object\)/);
  });

  it('refuses more than 4 KiB with a 413, or more than the handler’s limit when that is smaller', async () => {
    await expect(readEmpty(request(`{}${' '.repeat(4096)}`), 'cancel')).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(jsonReaders(16).readEmpty(request(`{}${' '.repeat(20)}`), 'cancel')).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    expect(await readEmpty(request(`{}${' '.repeat(4094)}`), 'cancel')).toEqual({});
  });
});

describe('every route that takes no body', () => {
  it('includes the cancel, the schedules’ pause and resume, the source sync, the rotations and the resends', () => {
    expect(EMPTY_BODY_ROUTES.map(([name]) => name).sort()).toEqual(
      expect.arrayContaining([
        'cancelRun',
        'pauseSchedule',
        'resumeSchedule',
        'syncFactorySource',
        'rotateCallbackSecret',
        'resendCallbackDelivery',
        'resendDelivery',
      ]),
    );
  });

  it.each(EMPTY_BODY_ROUTES)('%s: refuses every malformed body with a 400 problem before looking for what it names', async (_, route) => {
    const h = await setup();
    const path = route.path.replace(/\{[^}]+\}/g, 'no-such-thing');
    for (const [what, raw] of REFUSED) {
      const res = await h.call(route.method, path, { raw, headers: { 'content-type': 'application/json' } });
      expect({ what, status: res.status }).toEqual({ what, status: 400 });
      await expectProblem(res, 400, 'invalid_request');
    }
    for (const [what, raw] of ADMITTED) {
      const res = await h.call(route.method, path, raw === undefined ? {} : { raw, headers: { 'content-type': 'application/json' } });
      expect({ what, status: res.status }).toEqual({ what, status: 404 });
    }
    expect(h.errors).toEqual([]);
  });
});
