import type { AutomationRecord } from '../control/records.js';
import { parseSkillSpec } from '../run/skill.js';
import { type ResolvedSkill, resolveSkill } from './resolve-skill.js';
import type { SkillCatalog } from './skill-catalog.js';

/**
 * The skill of a run an automation starts (docs/repositories.md, "Skills"): its `skill_spec`
 * resolved now, as the run API resolves a request's. A spec that resolved when the automation was
 * saved but no longer does (the repository was removed, the file deleted) still starts the run,
 * with the skill recorded as named and no base prompt from it; `onError` hears why.
 */
export async function automationSkill(
  skills: SkillCatalog,
  automation: AutomationRecord,
  onError: (error: unknown) => void,
): Promise<ResolvedSkill | null> {
  const spec = automation.config?.skill_spec;
  if (spec === undefined) return null;
  try {
    return await resolveSkill(skills, automation.teamUid, spec, 'config.skill_spec');
  } catch (error) {
    onError(error);
    try {
      return { skill: parseSkillSpec(spec, 'config.skill_spec'), basePrompt: '' };
    } catch {
      return null;
    }
  }
}
