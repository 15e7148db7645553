import type { FieldError } from '../errors.js';
import { isAgentRunError } from '../errors.js';
import { resolveSkill } from '../skills/resolve-skill.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import type { AutomationDefinition } from './schemas.js';

/**
 * Each automation file's `config.skill_spec` must resolve, as an automation saved through the API
 * must (skills/resolve-skill.ts, the one decider): one error per file whose skill does not, at its
 * path, beside the plan's other errors (docs/definitions.md).
 */
export async function skillErrors(
  skills: SkillCatalog,
  teamUid: string,
  automations: readonly Pick<AutomationDefinition, 'config'>[],
  kind: 'automations' | 'schedules' = 'automations',
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [i, automation] of automations.entries()) {
    const spec = automation.config?.skill_spec;
    if (spec === undefined) continue;
    try {
      await resolveSkill(skills, teamUid, spec, 'config.skill_spec');
    } catch (error) {
      if (!isAgentRunError(error) || error.code !== 'invalid_request') throw error;
      errors.push({ path: `${kind}.${i}.config.skill_spec`, detail: error.detail });
    }
  }
  return errors;
}
