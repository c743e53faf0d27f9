/** The reports pages: the list (`#/reports`) and one report (`#/reports/{id}`): schedule, send now, log. */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { describe, useAsync } from './hooks';
import {
  type Delivery,
  destinationsText,
  type Report,
  runPending,
  SCHEDULED_PERIODS,
  type ScheduleForm,
  scheduleForm,
  schedulePatch,
  scheduleText,
  utc,
  WEEKDAYS,
  widgetsText,
} from './reports-shape';
import {
  ActionOutcome,
  type ActionState,
  ArchivableList,
  BackLink,
  ErrorPage,
  Heads,
  Loaded,
  numeric,
} from './ui';

export function ReportList() {
  return (
    <ArchivableList
      title="Reports"
      load={(archived) => api.reports(archived)}
      listClass="report-list"
      empty={
        <>
          No reports yet. Create one with <code>POST /reports</code> (docs/reports.md).
        </>
      }
      item={(r) => (
        <>
          <a href={`#/reports/${encodeURIComponent(r.id)}`}>{r.name}</a>
          <span class="meta">
            {scheduleText(r)} · {r.type} · {r.destinations.length} destination
            {r.destinations.length === 1 ? '' : 's'}
            {r.nextRunAt ? ` · next ${utc(r.nextRunAt)}` : ''}
          </span>
          {r.archivedAt && <span class="badge off">Archived</span>}
        </>
      )}
    />
  );
}

export function ReportPage({ id }: { id: string }) {
  const [reload, setReload] = useState(0);
  const report = useAsync(() => api.report(id), [id, reload], true);
  if (report.status === 'loading') return <p class="loading">Loading the report…</p>;
  if (report.status === 'error')
    return <ErrorPage href="#/reports" back="Reports" message={report.message} />;
  const r = report.value;
  return (
    <section>
      <BackLink href="#/reports">Reports</BackLink>
      <h1>{r.name}</h1>
      {r.description && <p>{r.description}</p>}
      <div class="card summary">
        <dl>
          <dt>Schedule</dt>
          <dd class="report-schedule">{scheduleText(r)}</dd>
          <dt>Next run</dt>
          <dd class="report-next">{utc(r.nextRunAt)}</dd>
          <dt>Sends</dt>
          <dd>{widgetsText(r)}</dd>
          <dt>To</dt>
          <dd>{destinationsText(r)}</dd>
          <dt>Figures</dt>
          <dd>
            {r.context.metricId ?? 'cost'} over {r.context.datePreset ?? 'LAST_MONTH'} in{' '}
            {r.context.currency ?? 'USD'}
          </dd>
        </dl>
      </div>
      {r.archivedAt ? (
        <p class="empty">Archived {utc(r.archivedAt)}: it no longer delivers and cannot be changed.</p>
      ) : (
        <ScheduleEditor report={r} onSaved={() => setReload(reload + 1)} />
      )}
      <DeliveryLog report={r} />
    </section>
  );
}

function ScheduleEditor({ report, onSaved }: { report: Report; onSaved: () => void }) {
  const [form, setForm] = useState<ScheduleForm>(() => scheduleForm(report));
  const [state, setState] = useState<ActionState>({
    kind: 'idle',
  });
  useEffect(() => setForm(scheduleForm(report)), [report]);
  const save = async (e: Event) => {
    e.preventDefault();
    setState({ kind: 'busy' });
    try {
      const saved = await api.patchReport(report.id, report.version, schedulePatch(form));
      setState({ kind: 'ok', text: `Saved: ${scheduleText(saved)}.` });
      onSaved();
    } catch (err) {
      setState({ kind: 'error', text: describe(err) });
    }
  };
  return (
    <form class="card schedule" onSubmit={save}>
      <h2>Schedule</h2>
      <label>
        Deliver{' '}
        <select
          value={form.period}
          onChange={(e) =>
            setForm({ ...form, period: (e.target as HTMLSelectElement).value as ScheduleForm['period'] })
          }
        >
          <option value="">On demand only</option>
          {SCHEDULED_PERIODS.map((p) => (
            <option key={p} value={p}>
              {p === 'WEEKDAYS' ? 'Weekdays' : p.charAt(0) + p.slice(1).toLowerCase()}
            </option>
          ))}
        </select>
      </label>
      {form.period === 'WEEKLY' && (
        <label>
          On{' '}
          <select
            value={String(form.weekday)}
            onChange={(e) => setForm({ ...form, weekday: Number((e.target as HTMLSelectElement).value) })}
          >
            {WEEKDAYS.map((d, i) => (
              <option key={d} value={String(i)}>
                {d}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        <input
          type="checkbox"
          checked={form.status === 'ACTIVE'}
          onChange={(e) =>
            setForm({ ...form, status: (e.target as HTMLInputElement).checked ? 'ACTIVE' : 'INACTIVE' })
          }
        />{' '}
        Active
      </label>
      <button type="submit" disabled={state.kind === 'busy'}>
        Save schedule
      </button>
      <ActionOutcome state={state} />
    </form>
  );
}

/** How long the page keeps re-reading the log after "Send now" while a destination is pending. */
const POLL_MS = 2_000;
const POLL_FOR_MS = 90_000;

function DeliveryLog({ report }: { report: Report }) {
  const [reload, setReload] = useState(0);
  const [sent, setSent] = useState<{ runAt: string; destinations: number; since: number } | null>(null);
  const [sendState, setSendState] = useState<ActionState>({
    kind: 'idle',
  });
  const log = useAsync(() => api.deliveries(report.id), [report.id, reload], true);
  // After "Send now", read the log again every 2 s until the run's destinations are all settled.
  useEffect(() => {
    if (!sent || log.status !== 'ok') return;
    const items = log.value.items;
    if (!runPending(items, sent.runAt, sent.destinations) || Date.now() - sent.since > POLL_FOR_MS) return;
    const t = setTimeout(() => setReload((n) => n + 1), POLL_MS);
    return () => clearTimeout(t);
  }, [log, sent]);
  const send = async () => {
    setSendState({ kind: 'busy' });
    try {
      const r = await api.sendReport(report.id);
      setSent({ runAt: r.runAt, destinations: r.destinations, since: Date.now() });
      setSendState({
        kind: 'ok',
        text: `Queued for ${r.destinations} destination${r.destinations === 1 ? '' : 's'} at ${utc(r.runAt)}.`,
      });
      setReload((n) => n + 1);
    } catch (err) {
      setSendState({ kind: 'error', text: describe(err) });
    }
  };
  return (
    <div class="card">
      <div class="log-head">
        <h2>Delivery log</h2>
        {!report.archivedAt && (
          <button type="button" disabled={sendState.kind === 'busy'} onClick={send}>
            {sendState.kind === 'busy' ? 'Sending…' : 'Send now'}
          </button>
        )}
        <button type="button" class="link" onClick={() => setReload((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <ActionOutcome state={sendState} />
      <Loaded state={log} loading="Loading the delivery log…" empty="Not delivered yet.">
        {(items) => <DeliveryTable items={items} />}
      </Loaded>
    </div>
  );
}

/** The log's rows, newest first (stacked cards on a phone: `table.stack`). */
function DeliveryTable({ items }: { items: Delivery[] }) {
  return (
    <div class="table-wrap">
      <table class="deliveries stack">
        <Heads cols={['Run', 'Trigger', 'Destination', 'Status', numeric('Attempts'), 'Sent', 'Error']} />
        <tbody>
          {items.map((d) => (
            <tr key={`${d.runAt}|${d.destinationType}|${d.destination}`}>
              <td data-label="Run">{utc(d.runAt)}</td>
              <td data-label="Trigger">{d.trigger === 'MANUAL' ? 'Send now' : 'Schedule'}</td>
              <td data-label="Destination">
                {d.destinationType === 'EMAIL' ? 'E-mail' : 'Slack'} {d.destination}
              </td>
              <td data-label="Status">
                <span class={`badge ${d.status === 'SENT' ? 'on' : d.status === 'FAILED' ? 'bad' : 'warn'}`}>
                  {d.status}
                </span>
              </td>
              <td data-label="Attempts" class="num">
                {d.attempts}
              </td>
              <td data-label="Sent">{utc(d.sentAt)}</td>
              <td data-label="Error">{d.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
