import { useClient } from '../api-context.js';
import { useLoad } from '../use-load.js';
import { ErrorText } from './error-text.js';

/**
 * The agent CLIs the server's executor runs (`GET /agent/harnesses`), each with its version and
 * the default marked: what a run's `config.harness.type` may name. Loaded once per visit, not with
 * every page of runs, since it changes only when the server is redeployed.
 */
export function HarnessList() {
  const client = useClient();
  const harnesses = useLoad(() => client.agents.harnesses(), []);
  const list = harnesses.data?.harnesses;
  return (
    <section class="harnesses" aria-labelledby="harnesses-heading">
      <h2 id="harnesses-heading">Agents this server runs</h2>
      <ErrorText problem={harnesses.problem} />
      {list && list.length === 0 ? <p class="empty">Its executor lists no agent CLIs; runs go to the agent it runs itself.</p> : null}
      {list && list.length > 0 ? (
        <ul class="harness-items">
          {list.map((harness) => (
            <li key={harness.type}>
              {/* The spaces keep the words apart when read aloud or copied; the layout's gap spaces them on screen. */}
              <code>{harness.type}</code>
              {harness.version ? (
                <>
                  {' '}
                  <span class="harness-version">{harness.version}</span>
                </>
              ) : null}
              {harness.default ? (
                <>
                  {' '}
                  <span class="label label-ok">default</span>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
