/**
 * What the last apply of a factory's definition files left (docs/definitions.md): which webhook
 * and automation each file became, so a re-apply finds them again by file name.
 */
export interface DefinitionSetRecord {
  teamUid: string;
  factoryUid: string;
  /** 1 after the first apply; each apply that writes adds one. */
  version: number;
  appliedAt: string;
  webhooks: AppliedWebhook[];
  automations: AppliedAutomation[];
}

/** `webhooks/<name>.yaml` as last applied. */
export interface AppliedWebhook {
  name: string;
  uid: string;
  /** The team secret the file names (`secretName`); the webhook verifies with a copy of it. */
  secretName: string;
  /** The team secret's `updatedAt` when it was copied: a later value is pending until the next apply. */
  secretUpdatedAt: string;
}

/** An automation file as last applied. */
export interface AppliedAutomation {
  name: string;
  id: string;
}
