import type { AmbientAgentConfig } from '../models/config.js';
import type { ResolvedSkill } from './resolve-skill.js';

/**
 * A run's configuration once its skill resolved (docs/repositories.md, "Skills"), the same for
 * API and webhook-started runs: `skill_spec` as asked, `name` the skill's front-matter name unless
 * one was given, and `base_prompt` the SKILL.md body, followed by a `base_prompt` the caller gave.
 */
export function skilledConfig(config: AmbientAgentConfig, resolved: ResolvedSkill): AmbientAgentConfig {
  const parts = [resolved.basePrompt, config.base_prompt?.trim()].filter((p): p is string => Boolean(p));
  const next: AmbientAgentConfig = { ...config, skill_spec: resolved.skill.spec, name: config.name ?? resolved.skill.name };
  if (parts.length > 0) next.base_prompt = parts.join('\n\n');
  return next;
}
