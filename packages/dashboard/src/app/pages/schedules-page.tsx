import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorText, FieldErrors } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { describe, type Problem, problemsAt } from '../problems.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';

/**
 * The team's schedules (docs/schedules.md; docs/dashboard.md, its pages): each with its cron
 * expression and zone, next and last run and last spawn error, pause or resume, delete, a link to
 * the runs it started; and a form to create one.
 */
export function SchedulesPage() {
  const client = useClient();
  const schedules = useLoad(() => client.schedules.list(), []);
  const [problem, setProblem] = useState<Problem | undefined>();
  const act = async (action: () => Promise<unknown>) => {
    try {
      await action();
      setProblem(undefined);
      schedules.reload();
    } catch (error) {
      setProblem(describe(error));
    }
  };
  return (
    <>
      <h1 tabIndex={-1}>Schedules</h1>
      <p class="hint">A schedule starts a run of its prompt at each due time of its cron expression, read in its time zone.</p>
      <ErrorText problem={schedules.problem ?? problem} />
      {schedules.data && schedules.data.schedules.length === 0 ? <p class="empty">No schedules.</p> : null}
      {schedules.data && schedules.data.schedules.length > 0 ? (
        <table class="list">
          <caption class="visually-hidden">Schedules</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Cron</th>
              <th scope="col">State</th>
              <th scope="col">Next run</th>
              <th scope="col">Last ran</th>
              <th scope="col">Last spawn error</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {schedules.data.schedules.map((s) => (
              <tr key={s.id} data-testid={`schedule-${s.id}`}>
                <td>
                  {s.name}
                  <br />
                  <Link to={`/runs?schedule_id=${encodeURIComponent(s.id)}`}>Runs</Link>
                </td>
                <td>
                  <code>{s.cron_schedule}</code> ({s.time_zone})
                </td>
                <td>{s.enabled ? 'Enabled' : 'Paused'}</td>
                <td>{s.history.next_run ? formatTime(s.history.next_run) : '—'}</td>
                <td>{s.history.last_ran ? formatTime(s.history.last_ran) : 'never'}</td>
                <td>{s.last_spawn_error ?? '—'}</td>
                <td>
                  {s.definition_file ? (
                    <span class="hint">
                      Defined by <code>{s.definition_file}</code>: change the file and apply
                    </span>
                  ) : (
                    <>
                      {s.enabled ? (
                        <button type="button" onClick={() => act(() => client.schedules.pause(s.id))}>
                          Pause
                        </button>
                      ) : (
                        <button type="button" onClick={() => act(() => client.schedules.resume(s.id))}>
                          Resume
                        </button>
                      )}{' '}
                      <ConfirmButton
                        label="Delete"
                        question={`Delete ${s.name}? No further runs start; the runs it started stay.`}
                        confirmLabel="Yes, delete"
                        onConfirm={() => act(() => client.schedules.delete(s.id))}
                      />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>Create a schedule</h2>
      <CreateScheduleForm onCreated={schedules.reload} />
    </>
  );
}

function CreateScheduleForm({ onCreated }: { onCreated: () => void }) {
  const client = useClient();
  const [name, setName] = useState('');
  const [cron, setCron] = useState('');
  const [timeZone, setTimeZone] = useState('UTC');
  const [prompt, setPrompt] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        if (!name.trim()) return setProblem({ message: 'Give the schedule a name.', fields: [] });
        try {
          await client.schedules.create({ name: name.trim(), cron_schedule: cron, time_zone: timeZone.trim(), prompt });
          setName('');
          setCron('');
          setPrompt('');
          setProblem(undefined);
          onCreated();
        } catch (error) {
          setProblem(describe(error));
        }
      }}
    >
      <label for="schedule-name">Name</label>
      <input id="schedule-name" value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
      <FieldErrors problems={problemsAt(problem, 'name')} id="schedule-name-errors" />
      <label for="schedule-cron">Cron expression (minute hour day-of-month month day-of-week)</label>
      <input id="schedule-cron" value={cron} placeholder="0 9 * * 1-5" onInput={(e) => setCron(e.currentTarget.value)} autoComplete="off" />
      <FieldErrors problems={problemsAt(problem, 'cron_schedule')} id="schedule-cron-errors" />
      <label for="schedule-zone">Time zone (IANA)</label>
      <input id="schedule-zone" value={timeZone} onInput={(e) => setTimeZone(e.currentTarget.value)} autoComplete="off" />
      <FieldErrors problems={problemsAt(problem, 'time_zone')} id="schedule-zone-errors" />
      <label for="schedule-prompt">Prompt</label>
      <textarea id="schedule-prompt" value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} rows={4} />
      <FieldErrors problems={problemsAt(problem, 'prompt')} id="schedule-prompt-errors" />
      <ErrorText problem={problem} />
      <button type="submit">Create schedule</button>
    </form>
  );
}
