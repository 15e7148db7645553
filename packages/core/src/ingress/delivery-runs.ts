import type { AutomationRecord, WebhookRecord } from '../control/records.js';
import { automationSkill } from '../skills/automation-skill.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import { createAutomationMatcher } from './automation-matchers.js';
import type { DeliveryRecord } from './records.js';
import { webhookRun } from './webhook-run.js';

/** What an accepted delivery starts: a run for each automation that wants it (docs/webhooks.md, "When runs start"). */
export type DeliveryRuns = (input: {
  webhook: WebhookRecord;
  /** The enabled automations selecting the webhook (`DeliveryContext.automations`). */
  automations: readonly AutomationRecord[];
  /** The delivery, `Accepted`, with its payload. */
  delivery: DeliveryRecord & { payload: Uint8Array };
  /** The payload parsed. */
  value: unknown;
}) => Promise<ReturnType<typeof webhookRun>[]>;

/**
 * The one decider of which runs a delivery starts, for the ingress and for a resend
 * (control/resend-delivery.ts) alike: each automation's triggers compiled once and reused
 * (automation-matchers.ts), its skill resolved as the run API resolves one.
 */
export function createDeliveryRuns(options: { skills?: SkillCatalog | undefined; onError: (error: unknown) => void }): DeliveryRuns {
  const wants = createAutomationMatcher();
  return async ({ webhook, automations, delivery, value }) => {
    const runs: ReturnType<typeof webhookRun>[] = [];
    for (const automation of automations) {
      if (automation.teamUid !== webhook.teamUid || automation.factoryUid !== webhook.factoryUid) continue;
      if (!wants(automation, webhook.uid, value)) continue;
      // Only an automation with a skill waits for it (most have none: no await on the hot path).
      const skill =
        options.skills && automation.config?.skill_spec !== undefined
          ? await automationSkill(options.skills, automation, options.onError)
          : null;
      runs.push(webhookRun({ automation, webhook, deliveryId: delivery.id, payload: delivery.payload, now: delivery.receivedAt, skill }));
    }
    return runs;
  };
}
