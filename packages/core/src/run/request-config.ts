import type { AmbientAgentConfig } from '../models/config.js';
import type { RunAgentRequest } from '../models/requests.js';
import type { AgentSkill } from '../models/run.js';
import { parseSkillSpec } from './skill.js';

/** A run request's skill and the configuration the run keeps (`agent_config`). */
export interface RequestConfig {
  skill: AgentSkill | null;
  /** The request field the skill came from, for the 400 of a skill that does not resolve. */
  skillField: string;
  config: AmbientAgentConfig;
}

/**
 * `skill` wins over `config.skill_spec`, which wins over the first of the Python client's
 * `config.skills` (its server echoes that one as `skill_spec`); the resolved skill names the run unless
 * a name was given (docs/run-api.md, `skill` and `config`). A malformed spec is a 400 naming the
 * field it came from.
 */
export function requestConfig(request: Pick<RunAgentRequest, 'skill' | 'config'>): RequestConfig {
  const [skillSpec, skillField] =
    request.skill !== undefined
      ? [request.skill, 'skill']
      : request.config?.skill_spec !== undefined
        ? [request.config.skill_spec, 'config.skill_spec']
        : [request.config?.skills?.[0], 'config.skills[0]'];
  const skill = skillSpec === undefined ? null : parseSkillSpec(skillSpec, skillField);
  const config: AmbientAgentConfig = { ...request.config };
  // The name defaults to the skill's once it resolves (skills/skilled-config.ts).
  if (skill) config.skill_spec = skill.spec;
  return { skill, skillField, config };
}
