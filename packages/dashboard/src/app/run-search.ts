import { ARTIFACT_TYPES, RUN_SORT_KEYS, RUN_SOURCES } from '@agentrun/core/api';

/**
 * The runs list's search box (docs/dashboard.md, "Searching runs"): `key:value` tokens for the
 * filters of `GET /agent/runs` and free text for its `q`, e.g. `name:nightly source:webhook flaky
 * test`. A value or text with spaces, a colon or a quote goes in double quotes (`\"` and `\\`
 * inside). Pure: `parseRunSearch` and `printRunSearch` are inverses (test/run-search.test.ts), so
 * the box can show the page's URL as text and the text can become the URL again.
 */

/** What a search asks for: each filter by its search key, and the free text. */
export interface RunSearch {
  filters: Partial<Record<SearchKey, string>>;
  /** Matched against a run's title, prompt and skill (`q`). */
  text?: string;
}

export type ParsedRunSearch = { search: RunSearch; error?: undefined } | { search?: undefined; error: string };

/** Each search key, the list query parameter it sets, and how its value is checked. */
const KEYS = {
  name: { param: 'name', help: 'config name' },
  model: { param: 'model_id', help: 'model ID' },
  creator: { param: 'creator', help: 'creator UID' },
  source: { param: 'source', oneOf: RUN_SOURCES, upper: true, help: 'what created it' },
  factory: { param: 'factory_uid', help: 'factory UID' },
  automation: { param: 'automation_id', help: 'automation ID' },
  schedule: { param: 'schedule_id', help: 'schedule ID' },
  skill: { param: 'skill_spec', help: 'skill spec' },
  environment: { param: 'environment_id', help: 'environment ID' },
  ancestor: { param: 'ancestor_run_id', help: 'started by this run, at any depth' },
  artifact: { param: 'artifact_type', oneOf: ARTIFACT_TYPES, upper: true, help: 'holds an artifact of this type' },
  after: { param: 'created_after', time: true, help: 'created after (RFC 3339)' },
  before: { param: 'created_before', time: true, help: 'created before (RFC 3339)' },
  updated: { param: 'updated_after', time: true, help: 'updated after (RFC 3339)' },
  sort: { param: 'sort_by', oneOf: RUN_SORT_KEYS, help: 'order by' },
  order: { param: 'sort_order', oneOf: ['desc', 'asc'], help: 'newest or oldest first' },
  limit: { param: 'limit', digits: true, help: 'runs per page' },
} as const satisfies Record<string, KeyRule>;

interface KeyRule {
  param: string;
  /** What it filters by, for the box's help. */
  help: string;
  oneOf?: readonly string[];
  /** The value is one of `oneOf` whatever its case, and kept in upper case. */
  upper?: boolean;
  time?: boolean;
  digits?: boolean;
}

export type SearchKey = keyof typeof KEYS;

/** The search keys in the order they are printed. */
export const SEARCH_KEYS = Object.keys(KEYS) as SearchKey[];

/** Each search key with what it filters by and the values it takes, for the box's help. */
export const SEARCH_HELP: readonly { key: SearchKey; help: string; values?: readonly string[] }[] = SEARCH_KEYS.map((key) => {
  const rule: KeyRule = KEYS[key];
  return rule.oneOf ? { key, help: rule.help, values: rule.oneOf } : { key, help: rule.help };
});

/** The list query parameter of free text. */
const TEXT_PARAM = 'q';

const isSpace = (c: string): boolean => /\s/.test(c);
const ruleOf = (key: string): KeyRule | undefined => (Object.hasOwn(KEYS, key) ? KEYS[key as SearchKey] : undefined);

/** Reads `text` into a search, or says which token is wrong and how to write it. */
export function parseRunSearch(text: string): ParsedRunSearch {
  const filters: Partial<Record<SearchKey, string>> = {};
  const words: string[] = [];
  let i = 0;
  /** A quoted string starting at `i` (on its `"`): its text, and `i` moved past it. */
  const quoted = (): string | { error: string } => {
    const start = i;
    let out = '';
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\' && i + 1 < text.length) i++;
      out += text[i];
      i++;
    }
    if (i >= text.length) return { error: `Unclosed quote: ${text.slice(start)} needs a closing ".` };
    i++;
    if (i < text.length && !isSpace(text[i]!)) return { error: `Put a space after the closing quote of ${text.slice(start, i)}.` };
    return out;
  };
  while (i < text.length) {
    if (isSpace(text[i]!)) {
      i++;
      continue;
    }
    if (text[i] === '"') {
      const phrase = quoted();
      if (typeof phrase !== 'string') return phrase;
      if (phrase !== '') words.push(phrase);
      continue;
    }
    const start = i;
    while (i < text.length && !isSpace(text[i]!) && text[i] !== ':' && text[i] !== '"') i++;
    const word = text.slice(start, i);
    if (i < text.length && text[i] === '"') {
      return { error: `A quote inside ${tokenAt(text, start)}: quote the whole word, or a filter's whole value (name:"my config").` };
    }
    if (i >= text.length || text[i] !== ':') {
      words.push(word);
      continue;
    }
    // `key:value`
    const key = word.toLowerCase();
    const rule = ruleOf(key);
    if (!rule) {
      const hint = key === 'state' ? ' Pick states with the State picker.' : ' To search for text with a colon, put it in quotes.';
      return {
        error: `Unknown filter "${word}:" in ${tokenAt(text, start)}. Filters: ${SEARCH_KEYS.map((k) => `${k}:`).join(' ')}.${hint}`,
      };
    }
    i++;
    let value: string;
    if (text[i] === '"') {
      const v = quoted();
      if (typeof v !== 'string') return v;
      value = v;
    } else {
      const from = i;
      while (i < text.length && !isSpace(text[i]!) && text[i] !== '"') i++;
      if (text[i] === '"') return { error: `A quote inside ${tokenAt(text, start)}: quote the whole value (${key}:"…").` };
      value = text.slice(from, i);
    }
    const checked = checkValue(key as SearchKey, rule, value);
    if (checked.error !== undefined) return { error: checked.error };
    if (filters[key as SearchKey] !== undefined) return { error: `${key}: is given twice; give each filter once.` };
    filters[key as SearchKey] = checked.value;
  }
  return { search: words.length > 0 ? { filters, text: words.join(' ') } : { filters } };
}

function checkValue(
  key: SearchKey,
  rule: KeyRule,
  value: string,
): { value: string; error?: undefined } | { value?: undefined; error: string } {
  if (value === '') return { error: `${key}: needs a value, e.g. ${key}:${example(rule)}.` };
  if (rule.oneOf) {
    const found = rule.oneOf.find((option) => (rule.upper ? option === value.toUpperCase() : option === value));
    return found ? { value: found } : { error: `${key}:${value} is not one of ${rule.oneOf.join(', ')}.` };
  }
  if (rule.digits && !/^\d+$/.test(value)) return { error: `${key}:${value}: give a whole number, e.g. ${key}:50.` };
  if (rule.time && !/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    return { error: `${key}:${value}: give a time such as ${key}:2026-11-28T09:00:00Z.` };
  }
  return { value };
}

const example = (rule: KeyRule): string =>
  rule.oneOf ? rule.oneOf[0]! : rule.digits ? '50' : rule.time ? '2026-11-28T09:00:00Z' : 'nightly';

/** The token of `text` starting at `start`, for a message. */
const tokenAt = (text: string, start: number): string => {
  let end = start;
  while (end < text.length && !isSpace(text[end]!)) end++;
  return `"${text.slice(start, end)}"`;
};

const quote = (s: string): string => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** The text of a search, which `parseRunSearch` reads back to the same search. */
export function printRunSearch(search: RunSearch): string {
  const tokens: string[] = [];
  for (const key of SEARCH_KEYS) {
    const value = search.filters[key];
    if (value === undefined) continue;
    tokens.push(`${key}:${value !== '' && /^[^\s"]+$/.test(value) ? value : quote(value)}`);
  }
  const text = search.text;
  if (text !== undefined && text !== '') {
    const words = text.split(' ');
    tokens.push(words.every((w) => /^[^\s":]+$/.test(w)) ? text : quote(text));
  }
  return tokens.join(' ');
}

/** The search a list URL's query parameters ask for (parameters the box has no key for are left out). */
export function searchFromParams(params: URLSearchParams): RunSearch {
  const filters: Partial<Record<SearchKey, string>> = {};
  for (const key of SEARCH_KEYS) {
    const value = params.get(KEYS[key].param);
    if (value !== null && value !== '') filters[key] = value;
  }
  const text = params.get(TEXT_PARAM);
  return text ? { filters, text } : { filters };
}

/** The list query parameters of a search. */
export function paramsOfSearch(search: RunSearch): [string, string][] {
  const params: [string, string][] = [];
  for (const key of SEARCH_KEYS) {
    const value = search.filters[key];
    if (value !== undefined) params.push([KEYS[key].param, value]);
  }
  if (search.text) params.push([TEXT_PARAM, search.text]);
  return params;
}
