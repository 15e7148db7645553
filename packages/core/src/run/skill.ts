import { invalidRequest } from '../errors.js';
import type { AgentSkill } from '../models/run.js';

const SEGMENT = '[A-Za-z0-9_.-]+';
const NAME_FORM = new RegExp(`^(${SEGMENT})/(${SEGMENT}):(${SEGMENT})$`);
const PATH_FORM = new RegExp(`^(${SEGMENT})/(${SEGMENT}):((?:${SEGMENT}/)+)SKILL\\.md$`);

/**
 * Parse a skill spec: `<owner>/<repo>:<skill-name>` or `<owner>/<repo>:<path>/SKILL.md`, where the
 * skill's name is the folder holding SKILL.md. Anything else is a 400 naming `field`.
 */
export function parseSkillSpec(spec: string, field: string): AgentSkill {
  const byName = NAME_FORM.exec(spec);
  // `SKILL.md` alone is the path form without the folder that names the skill, not a skill name.
  if (byName && !isDots(byName[3] ?? '') && byName[3] !== 'SKILL.md') return { spec, name: byName[3] as string };
  const byPath = PATH_FORM.exec(spec);
  if (byPath) {
    const dirs = (byPath[3] as string).split('/').filter(Boolean);
    if (!dirs.some(isDots)) return { spec, name: dirs.at(-1) as string, full_path: `${dirs.join('/')}/SKILL.md` };
  }
  throw invalidRequest(
    `invalid ${field}: expected <owner>/<repo>:<skill-name> or <owner>/<repo>:<path>/SKILL.md, got ${JSON.stringify(spec.slice(0, 100))}`,
  );
}

const isDots = (s: string) => s === '.' || s === '..';
