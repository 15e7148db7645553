import type { BodyOf, ResponseOf } from '@agentrun/client';
import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorText, FieldErrors } from '../components/error-text.js';
import { FactoryCrumbs } from '../components/factory-crumbs.js';
import { describe, type Problem, problemsAt } from '../problems.js';
import { Link, useRouter } from '../router.js';
import { useLoad } from '../use-load.js';
import { TestFilter } from './test-filter.js';

type Automation = ResponseOf<'getAutomation'>;
type Webhook = ResponseOf<'listWebhooks'>['webhooks'][number];

/** One trigger as edited: the selected webhooks and the payload filter as typed (JSON). */
interface TriggerDraft {
  webhookIds: string[];
  payload: string;
}

const draftsOf = (automation: Automation | undefined): TriggerDraft[] =>
  automation?.triggers.map((t) => ({
    webhookIds: [...t.filter.webhook_ids],
    payload: t.filter.payload === undefined ? '' : JSON.stringify(t.filter.payload, null, 2),
  })) ?? [];

/**
 * The automation editor (docs/management-api.md, "Automations"; filters in docs/filters.md):
 * prompt, triggers (Add trigger → Webhook: pick webhooks, a payload filter), each problem the
 * API finds shown at its path; and Test filter against a stored delivery.
 */
export function AutomationPage({ factoryUid, automationId }: { factoryUid: string; automationId: string | undefined }) {
  const client = useClient();
  const loaded = useLoad(
    () => (automationId ? client.automations.get(factoryUid, automationId) : Promise.resolve(undefined)),
    [factoryUid, automationId],
  );
  const webhooks = useLoad(() => client.webhooks.list(factoryUid), [factoryUid]);
  // The editor stays while a saved automation reloads (its "Saved." with it).
  return (
    <>
      <FactoryCrumbs factoryUid={factoryUid} />
      <h1 tabIndex={-1}>{automationId ? `Automation ${loaded.data?.name ?? ''}` : 'New automation'}</h1>
      <ErrorText problem={loaded.problem ?? webhooks.problem} />
      {(automationId ? loaded.data !== undefined : !loaded.loading) && webhooks.data && !loaded.problem ? (
        <>
          <Editor
            key={automationId ?? 'new'}
            factoryUid={factoryUid}
            automation={loaded.data}
            webhooks={webhooks.data.webhooks}
            onSaved={loaded.reload}
          />
          {loaded.data ? <TestFilter factoryUid={factoryUid} automation={loaded.data} webhooks={webhooks.data.webhooks} /> : null}
        </>
      ) : null}
    </>
  );
}

function Editor({
  factoryUid,
  automation,
  webhooks,
  onSaved,
}: {
  factoryUid: string;
  automation: Automation | undefined;
  webhooks: Webhook[];
  onSaved: () => void;
}) {
  const client = useClient();
  const { navigate } = useRouter();
  const [name, setName] = useState(automation?.name ?? '');
  const [prompt, setPrompt] = useState(automation?.prompt ?? '');
  const [enabled, setEnabled] = useState(automation?.enabled ?? true);
  const [triggers, setTriggers] = useState<TriggerDraft[]>(() => draftsOf(automation));
  const [problem, setProblem] = useState<Problem | undefined>();
  const [saved, setSaved] = useState('');
  useEffect(() => setTriggers(draftsOf(automation)), [automation]);
  // A file-defined automation is its file's (docs/definitions.md): shown, not edited here.
  const file = automation?.definition_file;
  const readOnly = file !== undefined;
  const factoryPath = `/factories/${encodeURIComponent(factoryUid)}`;

  const setTrigger = (index: number, change: Partial<TriggerDraft>) =>
    setTriggers((list) => list.map((t, i) => (i === index ? { ...t, ...change } : t)));

  const save = async (event: Event) => {
    event.preventDefault();
    // Filters are JSON: one that does not parse is shown at its trigger before anything is sent.
    const local = triggers.flatMap((t, i) => {
      if (t.payload.trim() === '') return [];
      try {
        JSON.parse(t.payload);
        return [];
      } catch (error) {
        return [{ path: `triggers.${i}.filter.payload`, detail: `not JSON: ${(error as Error).message}` }];
      }
    });
    if (local.length > 0) return setProblem({ message: 'Fix the payload filter before saving.', fields: local });
    const body: BodyOf<'createAutomation'> = {
      name: name.trim(),
      prompt,
      enabled,
      triggers: triggers.map((t) => ({
        provider: 'webhook' as const,
        event: 'received' as const,
        filter: { webhook_ids: t.webhookIds, ...(t.payload.trim() ? { payload: JSON.parse(t.payload) } : {}) },
      })),
    };
    try {
      if (automation) {
        await client.automations.update(factoryUid, automation.id, body);
        setSaved('Saved.');
        onSaved();
      } else {
        const created = await client.automations.create(factoryUid, body);
        navigate(`${factoryPath}/automations/${encodeURIComponent(created.id)}`, { replace: true });
      }
      setProblem(undefined);
    } catch (error) {
      setSaved('');
      setProblem(describe(error));
    }
  };

  const shownAtFields = ['name', 'prompt', 'triggers'];
  const elsewhere = problem?.fields.filter((f) => !shownAtFields.some((p) => f.path === p || f.path.startsWith(`${p}.`))) ?? [];

  return (
    <form class="panel" onSubmit={save} aria-label="Automation">
      {file ? (
        <p class="hint" id="automation-file">
          This automation is defined by a file: change <code>{file}</code> and run <code>agentrun apply</code>. Edits made here would be
          undone by the next apply, so its fields are read-only.
        </p>
      ) : null}
      <label for="automation-name">Name</label>
      <input id="automation-name" value={name} disabled={readOnly} onInput={(e) => setName(e.currentTarget.value)} />
      <FieldErrors problems={problemsAt(problem, 'name')} id="automation-name-errors" />
      <label for="automation-prompt">Prompt</label>
      <textarea id="automation-prompt" rows={4} value={prompt} disabled={readOnly} onInput={(e) => setPrompt(e.currentTarget.value)} />
      <FieldErrors problems={problemsAt(problem, 'prompt')} id="automation-prompt-errors" />
      <label class="check">
        <input type="checkbox" checked={enabled} disabled={readOnly} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Enabled
      </label>

      <h2>Triggers</h2>
      {triggers.length === 0 ? <p class="empty">No trigger: add one so that a webhook delivery starts a run.</p> : null}
      {triggers.map((trigger, i) => (
        <fieldset key={i} class="trigger">
          <legend>Trigger {i + 1}: webhook</legend>
          {webhooks.length === 0 ? (
            <p class="empty">
              This factory has no webhooks: <Link to={factoryPath}>create one</Link> first.
            </p>
          ) : (
            <fieldset>
              <legend>Webhooks</legend>
              {webhooks.map((w) => (
                <label key={w.uid} class="check">
                  <input
                    type="checkbox"
                    checked={trigger.webhookIds.includes(w.uid)}
                    disabled={readOnly}
                    onChange={(e) =>
                      setTrigger(i, {
                        webhookIds: e.currentTarget.checked
                          ? [...trigger.webhookIds, w.uid]
                          : trigger.webhookIds.filter((id) => id !== w.uid),
                      })
                    }
                  />{' '}
                  {w.name}
                </label>
              ))}
            </fieldset>
          )}
          <FieldErrors problems={problemsAt(problem, `triggers.${i}.filter.webhook_ids`)} id={`trigger-${i}-webhooks-errors`} />
          <label for={`trigger-${i}-payload`}>Payload filter (JSON, optional)</label>
          <textarea
            id={`trigger-${i}-payload`}
            rows={6}
            class="code"
            value={trigger.payload}
            disabled={readOnly}
            placeholder='{ "action": ["opened"] }'
            aria-describedby={`trigger-${i}-payload-errors`}
            aria-invalid={problemsAt(problem, `triggers.${i}.filter.payload`).length > 0 ? true : undefined}
            onInput={(e) => setTrigger(i, { payload: e.currentTarget.value })}
          />
          <FieldErrors problems={problemsAt(problem, `triggers.${i}.filter.payload`)} id={`trigger-${i}-payload-errors`} />
          <FieldErrors
            problems={problemsAt(problem, `triggers.${i}`).filter(
              (f) => !f.path.startsWith(`triggers.${i}.filter.payload`) && !f.path.startsWith(`triggers.${i}.filter.webhook_ids`),
            )}
            id={`trigger-${i}-errors`}
          />
          {readOnly ? null : (
            <button type="button" onClick={() => setTriggers((list) => list.filter((_, j) => j !== i))}>
              Remove trigger {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      <FieldErrors problems={problem?.fields.filter((f) => f.path === 'triggers') ?? []} id="triggers-errors" />
      {readOnly ? null : (
        <button type="button" onClick={() => setTriggers((list) => [...list, { webhookIds: [], payload: '' }])}>
          Add trigger → Webhook
        </button>
      )}
      <FieldErrors problems={elsewhere} id="automation-other-errors" />
      <ErrorText problem={problem} />
      <p role="status">{saved}</p>
      {readOnly ? null : (
        <div class="actions">
          <button type="submit">{automation ? 'Save automation' : 'Create automation'}</button>
          {automation ? (
            <ConfirmButton
              label="Delete automation"
              question="Delete this automation?"
              confirmLabel="Yes, delete"
              onConfirm={async () => {
                try {
                  await client.automations.delete(factoryUid, automation.id);
                  navigate(factoryPath);
                } catch (error) {
                  setProblem(describe(error));
                }
              }}
            />
          ) : null}
        </div>
      )}
    </form>
  );
}
