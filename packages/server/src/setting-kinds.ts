import * as v from 'valibot';

/**
 * What a setting's variable holds (settings.ts): how its text is read, and how the kind is named
 * in the one-line error, in `npm start -- --help` and in docs/server.md.
 */
export interface SettingKind<T> {
  /** The type column: `port`, `ms`, `0|1`, … */
  readonly type: string;
  /** What a bad value is told it must be: `PORT must be <expected>, got "abc"`. */
  readonly expected: string;
  readonly schema: v.GenericSchema<string, T>;
  /** A value as docs show it (a default), in Markdown; default `String(value)` as code. */
  readonly show?: (value: T) => string;
  /** Keys and connection strings: a bad value is never echoed, only its length. */
  readonly secret?: boolean;
}

const wholeNumber = (least: number) => v.pipe(v.string(), v.regex(/^\d{1,15}$/), v.transform(Number), v.minValue(least));
const commaList = <T extends string>(item: v.GenericSchema<string, T>): v.GenericSchema<string, T[]> =>
  v.pipe(
    v.string(),
    v.transform((text) =>
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    v.array(item),
  );

export const port: SettingKind<number> = {
  type: 'port',
  expected: 'a port number',
  schema: v.pipe(wholeNumber(0), v.maxValue(65535)),
};

/** `600,000 (10 min)`: milliseconds as docs show them. */
export const showMs = (n: number): string => {
  const human = n % 60_000 === 0 && n >= 60_000 ? `${n / 60_000} min` : `${n / 1000} s`;
  return n >= 1000 ? `${n.toLocaleString('en-US')} (${human})` : String(n);
};

/** Milliseconds, a whole number above 0 (or from `least`). */
export const ms = (least = 1): SettingKind<number> => ({
  type: 'ms',
  expected: `a whole number of milliseconds${least === 0 ? ', 0 or more' : ' above 0'}`,
  schema: wholeNumber(least),
  show: showMs,
});

/** A whole number from `least`. */
export const count = (least: number): SettingKind<number> => ({
  type: 'count',
  expected: `a whole number, ${least} or more`,
  schema: wholeNumber(least),
});

/** A decimal number from `least` (CPUs). */
export const decimal = (least: number): SettingKind<number> => ({
  type: 'number',
  expected: `a number, ${least} or more`,
  schema: v.pipe(v.string(), v.regex(/^\d{1,7}(\.\d{1,6})?$/), v.transform(Number), v.minValue(least)),
});

/** A worker host id (docs/operations.md, "Worker hosts"): what runs name in `config.worker_host`. */
export const hostId: SettingKind<string> = {
  type: 'host',
  expected: 'a host id of 1 to 256 characters',
  schema: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
};

export const bytes: SettingKind<number> = {
  type: 'bytes',
  expected: 'a whole number of bytes above 0',
  schema: wholeNumber(1),
};

/** `1` on, `0` off. */
export const flag: SettingKind<boolean> = {
  type: '0|1',
  expected: '0 or 1',
  schema: v.pipe(
    v.picklist(['0', '1']),
    v.transform((s) => s === '1'),
  ),
  show: (on) => (on ? '`1`' : '`0`'),
};

export const oneOf = <const T extends string>(values: readonly T[]): SettingKind<T> => ({
  type: values.join('|'),
  expected: `one of ${values.join(', ')}`,
  schema: v.picklist(values),
});

export const text: SettingKind<string> = { type: 'text', expected: 'text', schema: v.string() };

export const path: SettingKind<string> = { type: 'path', expected: 'a path', schema: v.string() };

export const httpUrl: SettingKind<string> = {
  type: 'URL',
  expected: 'an http(s) URL',
  schema: v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//i)),
};

/** A connection string: never echoed, it may hold a password. */
export const connectionString: SettingKind<string> = {
  type: 'URL',
  expected: 'a postgres:// connection string',
  schema: v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//i)),
  secret: true,
};

/** Comma-separated environment variable names. */
export const names: SettingKind<string[]> = {
  type: 'names',
  expected: 'comma-separated variable names',
  schema: commaList(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/))),
};

/** Comma-separated absolute paths. */
export const paths: SettingKind<string[]> = {
  type: 'paths',
  expected: 'comma-separated absolute paths',
  schema: commaList(v.pipe(v.string(), v.startsWith('/'))),
};

/** `uid:gid`, both numbers. */
export const userAndGroup: SettingKind<{ uid: number; gid: number }> = {
  type: 'uid:gid',
  expected: 'uid:gid (numbers)',
  schema: v.pipe(
    v.string(),
    v.regex(/^\d{1,10}:\d{1,10}$/),
    v.transform((s) => {
      const [uid, gid] = s.split(':').map(Number) as [number, number];
      return { uid, gid };
    }),
  ),
};

/** `auto`, or a comma-separated list of `values`. */
export const autoOrList = <const T extends string>(values: readonly T[]): SettingKind<'auto' | T[]> => ({
  type: `auto|${values.join(',')}`,
  expected: `auto or a comma-separated list of ${values.join(', ')}`,
  schema: v.union([v.literal('auto'), commaList(v.picklist(values))]),
});

/** A comma-separated list of `values`, each alone or `value=/absolute/path`: `claude=/opt/agent/bin/claude,codex`. */
export const listWithPaths = <const T extends string>(values: readonly T[]): SettingKind<Partial<Record<T, { path?: string }>>> => ({
  type: `${values.join('|')}[=/path],…`,
  expected: `a comma-separated list of ${values.join(', ')}, each alone or name=/absolute/path`,
  schema: v.pipe(
    commaList(v.pipe(v.string(), v.regex(new RegExp(`^(${values.join('|')})(=/[^,]*)?$`)))),
    v.transform(
      (items) =>
        Object.fromEntries(
          items.map((item) => {
            const at = item.indexOf('=');
            return at === -1 ? [item, {}] : [item.slice(0, at), { path: item.slice(at + 1) }];
          }),
        ) as Partial<Record<T, { path?: string }>>,
    ),
  ),
});

/**
 * One key, or a comma-separated list whose first key seals and every key opens (docs/operations.md,
 * "Rotating the secret key"). Base64 and hex keys hold no comma; blanks around a key are ignored,
 * an empty entry is refused.
 */
export const secretKeys: SettingKind<string | string[]> = {
  type: 'key[,key…]',
  expected: 'a key, or comma-separated keys with no empty entry',
  schema: v.pipe(
    v.string(),
    v.transform((s) => s.split(',').map((k) => k.trim())),
    v.check((keys) => !keys.includes('')),
    v.transform((keys) => (keys.length === 1 ? (keys[0] as string) : keys)),
  ),
  secret: true,
};

/** A key chosen by the operator: never echoed. */
export const secretText = (least: number): SettingKind<string> => ({
  type: 'key',
  expected: `at least ${least} characters`,
  schema: v.pipe(v.string(), v.minLength(least)),
  secret: true,
});
