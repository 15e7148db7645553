import { APIError } from '@agentrun/client';
import type { SourceApplyView } from '@agentrun/core/api';
import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { useLoad } from '../use-load.js';

/**
 * A factory's source repository (docs/repositories.md, "Factories from a repository"): where its
 * definitions come from, the last applied commit and the last apply's outcome (a failed one's
 * errors at file:line), the history of applies, and a button that syncs now.
 */
export function FactorySource({ factoryUid, hasSource }: { factoryUid: string; hasSource: boolean }) {
  const client = useClient();
  // The factory's read says whether it has a source (`has_source`): one without is not asked for
  // it, so its page makes no request that fails. A source cleared since answers 404: shown as none.
  const source = useLoad(
    () =>
      hasSource
        ? client.sources
            .get(factoryUid)
            .catch((error: unknown) => (error instanceof APIError && error.status === 404 ? null : Promise.reject(error)))
        : Promise.resolve(null),
    [factoryUid, hasSource],
  );
  const applies = useLoad(
    () => (source.data ? client.sources.appliesPage(factoryUid, { limit: 20 }) : Promise.resolve(undefined)),
    [factoryUid, source.data],
  );
  const [syncing, setSyncing] = useState(false);
  const [syncProblem, setSyncProblem] = useState<Problem | undefined>(undefined);
  const sync = async () => {
    setSyncing(true);
    setSyncProblem(undefined);
    try {
      await client.sources.sync(factoryUid);
      source.reload();
    } catch (error) {
      setSyncProblem(describe(error));
    } finally {
      setSyncing(false);
    }
  };
  const s = source.data;
  return (
    <section aria-labelledby="source-heading">
      <h2 id="source-heading">Source</h2>
      <ErrorText problem={source.problem} />
      {s === null ? (
        <p class="empty">
          Not applied from a repository. Set a source with <code>agentrun factory source set</code> to apply each commit of a branch.
        </p>
      ) : null}
      {s ? (
        <>
          <dl class="facts">
            <dt>Repository</dt>
            <dd>
              <code>{s.repository}</code> {s.url ? <code>{s.url}</code> : '(no longer registered)'}
            </dd>
            <dt>Branch</dt>
            <dd>
              <code>{s.branch}</code>
            </dd>
            <dt>Directory</dt>
            <dd>
              <code>{s.directory || '.'}</code>
            </dd>
            <dt>Push notifications</dt>
            <dd>
              {s.push ? (
                <>
                  {s.push.scheme}, signed with team secret <code>{s.push.secret_name}</code>:{' '}
                  <code data-testid="push-url">{s.push.url}</code>
                </>
              ) : (
                'none (polled)'
              )}
            </dd>
            <dt>Last applied commit</dt>
            <dd data-testid="last-applied">{s.last_applied ? <ApplyLine apply={s.last_applied} /> : 'none yet'}</dd>
            <dt>Last apply</dt>
            <dd data-testid="last-apply">{s.last_apply ? <ApplyLine apply={s.last_apply} /> : 'none yet'}</dd>
          </dl>
          {s.last_apply && s.last_apply.errors.length > 0 ? <ApplyErrors apply={s.last_apply} /> : null}
          <p>
            <button type="button" onClick={sync} disabled={syncing}>
              {syncing ? 'Syncing…' : 'Sync now'}
            </button>
          </p>
          <ErrorText problem={syncProblem} />
          <h3 id="applies-heading">History</h3>
          <ErrorText problem={applies.problem} />
          {applies.data && applies.data.applies.length > 0 ? (
            <table class="list" aria-labelledby="applies-heading">
              <thead>
                <tr>
                  <th scope="col">Commit</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {applies.data.applies.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <code title={a.commit}>{a.commit.slice(0, 12)}</code>
                    </td>
                    <td>{outcome(a)}</td>
                    <td>{a.triggered_by}</td>
                    <td>{formatTime(a.started_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

const outcome = (a: SourceApplyView): string =>
  a.status === 'applied'
    ? `applied (version ${a.version})`
    : a.status === 'failed'
      ? `failed: ${a.errors.length} error${a.errors.length === 1 ? '' : 's'}`
      : 'applying';

function ApplyLine({ apply }: { apply: SourceApplyView }) {
  return (
    <>
      <code title={apply.commit}>{apply.commit.slice(0, 12)}</code> {outcome(apply)}, {apply.triggered_by}, {formatTime(apply.started_at)}
    </>
  );
}

/** A failed commit's errors, each at its file and line. */
function ApplyErrors({ apply }: { apply: SourceApplyView }) {
  return (
    <div role="alert">
      <p>Commit {apply.commit.slice(0, 12)} was not applied (nothing changed):</p>
      <ul class="field-errors" data-testid="apply-errors">
        {apply.errors.map((e) => (
          <li key={`${e.path}:${e.line}:${e.message}`}>
            <code>
              {e.path}
              {e.line > 0 ? `:${e.line}` : ''}
            </code>
            : {e.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
