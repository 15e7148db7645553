import { createAgentRun, type ResealReport, type SecretKeyOption, type Store } from '@agentrun/core';

/**
 * `npm start -- reseal-secrets`: re-seal every team secret (and every callback's signing secret) with the first key of
 * AGENTRUN_SECRET_KEY, print the counts as one JSON line, and exit (non-zero when a secret could
 * not be opened). Safe beside running servers and other runs of itself; a stopped run is started
 * again from the beginning (docs/operations.md, "Rotating the secret key").
 */
export async function resealCommand(store: Store, secretKey: SecretKeyOption | undefined, write = console.log): Promise<number> {
  if (secretKey === undefined) {
    write(JSON.stringify({ error: 'AGENTRUN_SECRET_KEY is not set: there is no key to seal with' }));
    return 1;
  }
  const agentrun = createAgentRun({ store, secretKey });
  const report: ResealReport = await agentrun.maintenance.resealSecrets();
  // Run-state callbacks' signing secrets are sealed with the same key (docs/callbacks.md).
  const callbacks = await agentrun.maintenance.resealCallbackSecrets();
  write(
    JSON.stringify({
      sealing_key_id: report.sealingKeyId,
      scanned: report.scanned,
      resealed: report.resealed,
      already_current: report.current,
      changed_meanwhile: report.changed,
      unopenable: report.unopenable.map((s) => ({ team_uid: s.teamUid, name: s.name })),
      callbacks: {
        scanned: callbacks.scanned,
        resealed: callbacks.resealed,
        already_current: callbacks.current,
        changed_meanwhile: callbacks.changed,
        unopenable: callbacks.unopenable,
      },
    }),
  );
  return report.unopenable.length > 0 || callbacks.unopenable.length > 0 ? 1 : 0;
}
