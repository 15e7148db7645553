/**
 * Automation triggers as the user wrote them. `jsonb` stores object keys sorted (shorter keys
 * first), so a filter read back from `triggers` shows another key order than the one sent, and
 * Test filter would name another "first failing path" than on the memory store
 * (docs/filters.md). `triggers_text` keeps the JSON text, in order, and is what reads return;
 * `triggers` stays for the containment index the ingress uses. Rows written before this
 * migration have no text and read as before.
 */
export const up = `
ALTER TABLE automations ADD COLUMN triggers_text text;
`;
