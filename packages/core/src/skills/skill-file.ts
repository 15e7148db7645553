import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import { CONFIG_LIMITS } from '../models/config.js';

/** A SKILL.md read as the Agent Skills format: front matter `name` and `description`, then the instructions. */
export interface SkillFile {
  name: string;
  description: string;
  /** The instructions: the text after the front matter, trimmed. It becomes the run's base prompt. */
  body: string;
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

const FrontMatterSchema = v.looseObject({
  name: v.pipe(v.string('name must be a string'), v.trim(), v.minLength(1, 'name must not be empty'), v.maxLength(256)),
  description: v.optional(v.pipe(v.string('description must be a string'), v.maxLength(4096)), ''),
});

/**
 * Read a SKILL.md (docs/repositories.md, "Skills"): YAML front matter between `---` lines, with a
 * string `name` (required) and `description` (optional, default empty); the rest is the body. A
 * malformed file is an `error` saying what is wrong, never a throw.
 */
export function parseSkillFile(text: string): { ok: true; skill: SkillFile } | { ok: false; error: string } {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { ok: false, error: 'no front matter: the file must start with a --- line, YAML, and a --- line' };
  let data: unknown;
  try {
    data = parseYaml(match[1] as string);
  } catch (error) {
    return { ok: false, error: `front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, error: 'front matter must be a YAML mapping with name and description' };
  }
  const checked = v.safeParse(FrontMatterSchema, data);
  if (!checked.success) {
    const issue = checked.issues[0];
    const key = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    const missing = issue.input === undefined;
    return { ok: false, error: `front matter: ${key || 'name'} ${missing ? 'is missing' : `is invalid (${issue.message})`}` };
  }
  const body = text.slice(match[0].length).trim();
  // The body becomes a run's base prompt, whose limit it must fit (models/config.ts).
  if (body.length > CONFIG_LIMITS.basePrompt)
    return { ok: false, error: `the instructions are longer than ${CONFIG_LIMITS.basePrompt} characters` };
  return { ok: true, skill: { name: checked.output.name, description: checked.output.description, body } };
}
