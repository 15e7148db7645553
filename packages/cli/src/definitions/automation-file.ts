import { basename, extname } from 'node:path';
import { type AutomationFile, AutomationFileSchema, triggerParts } from '@agentrun/core/api';
import { type PayloadFilter, parseFilter } from '@agentrun/core/filter';
import * as v from 'valibot';
import { InvalidInputError } from '../errors.js';
import { describeIssues } from '../issues.js';

/**
 * One automation file (docs/definitions.md, "automations/<name>.yaml"), as `agentrun automation
 * create` and `agentrun filter test` read it: checked by core's schema for that file (the one
 * `apply` sends), and each trigger's payload filter by core's filter rules, so a file either
 * command accepts is one `apply` accepts.
 */

/** A trigger of the file: the webhooks it names (file names, or UIDs in the seed's shape) and its filter. */
interface FileTrigger {
  /** Its path in the file: `triggers.0`. */
  path: string;
  byName: boolean;
  webhooks: readonly string[];
  /** Where `webhooks` sits: `triggers.0.webhooks` or `triggers.0.filter.webhook_ids`. */
  webhooksPath: string;
  /** The payload filter, checked; none when the trigger has none (every delivery matches). */
  filter: PayloadFilter | undefined;
}

export interface ReadAutomation {
  /** The file name without `.yaml`, `.yml` or `.json`: the automation's name, as in a definitions directory. */
  name: string;
  automation: AutomationFile;
  triggers: FileTrigger[];
}

/**
 * Is this file's content an automation rather than a payload filter? A `prompt` string says so:
 * a filter's values are arrays, operator objects or nested filters, never a string.
 */
export const isAutomationContent = (content: unknown): content is Record<string, unknown> =>
  typeof content === 'object' && content !== null && typeof (content as { prompt?: unknown }).prompt === 'string';

/** The file's content, read by `readDataFile`, as an automation; an invalid one exits 2 naming the key. */
export function readAutomation(content: unknown, path: string): ReadAutomation {
  const invalid = (problem: string) => new InvalidInputError(`invalid automation file ${path}: ${problem}`);
  if (typeof content === 'object' && content !== null && 'name' in content)
    throw invalid("name: an automation's name is its file name (or --name), not a key of the file");
  const parsed = v.safeParse(AutomationFileSchema, content);
  if (!parsed.success) throw invalid(describeIssues(parsed.issues));
  const triggers = parsed.output.triggers.map((t, i): FileTrigger => {
    const { byName, webhooks, webhooksPath, payload, payloadPath } = triggerParts(t);
    const at = `triggers.${i}`;
    let filter: PayloadFilter | undefined;
    if (payload !== undefined && payload !== null) {
      try {
        filter = parseFilter(payload, `${at}.${payloadPath}`);
      } catch (error) {
        throw invalid((error as Error).message);
      }
    }
    return { path: at, byName, webhooks, webhooksPath: `${at}.${webhooksPath}`, filter };
  });
  return { name: basename(path, extname(path)), automation: parsed.output, triggers };
}
