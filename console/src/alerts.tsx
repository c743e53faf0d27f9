/** The alerts pages: the list (`#/alerts`) and one alert (`#/alerts/{id}`): chart, days, history, actions. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  type AlertWidgetData,
  alertChartOption,
  alertDayRows,
  alertKind,
  type CostAlert,
  channelText,
  dedupText,
  evaluationOutcome,
  evaluationValues,
  historyCauses,
  isSnoozed,
  queryLabel,
  ruleLines,
  snoozeUntil,
  thresholdsOnChart,
} from './alerts-shape';
import { api } from './api';
import { Canvas } from './chart';
import { describe, useAsync } from './hooks';
import { utc } from './reports-shape';
import { ArchivableList, BackLink, Causes, ErrorPage, Heads, Loaded, SnoozeControls } from './ui';

function status(a: CostAlert, now: Date): string {
  if (a.archivedAt) return `Archived ${utc(a.archivedAt)}`;
  if (isSnoozed(a, now)) return `Snoozed until ${utc(a.snoozedUntil)}`;
  return 'Active';
}

export function AlertList() {
  const now = new Date();
  return (
    <ArchivableList
      title="Alerts"
      load={(archived) => api.alerts(archived)}
      listClass="alert-list"
      empty={
        <>
          No cost alerts yet. Create one with <code>POST /alerts-v2/costAlerts</code> (docs/alerts.md).
        </>
      }
      item={(a) => (
        <>
          <a href={`#/alerts/${encodeURIComponent(a.id)}`}>{a.name}</a>
          <span class="meta">
            {alertKind(a)} · {a.evaluationPeriod.toLowerCase()} · {a.currency} · {a.notificationChannel}
          </span>
          <span class={`badge ${a.archivedAt ? 'off' : isSnoozed(a, now) ? 'warn' : 'on'}`}>
            {status(a, now)}
          </span>
        </>
      )}
    />
  );
}

export function AlertPage({ id }: { id: string }) {
  const [reload, setReload] = useState(0);
  const data = useAsync(() => api.alertWidgetData(id), [id, reload], true);
  const history = useAsync(() => api.alertHistory(id), [id, reload], true);
  if (data.status === 'loading') return <p class="loading">Loading the alert…</p>;
  if (data.status === 'error') return <ErrorPage href="#/alerts" back="Alerts" message={data.message} />;
  const d = data.value;
  return (
    <section>
      <BackLink href="#/alerts">Alerts</BackLink>
      <h1>{d.name}</h1>
      {d.description && <p>{d.description}</p>}
      <AlertSummary alert={d} onChanged={() => setReload(reload + 1)} />
      <AlertSeries data={d} />
      <h2>History</h2>
      <Loaded
        state={history}
        loading="Loading the history…"
        empty="Not evaluated yet (a new alert is evaluated at the next sweep)."
      >
        {(items) => (
          <div class="table-wrap card">
            <table class="history stack">
              <Heads
                cols={['Billing day', 'Evaluated', 'Figures', 'Outcome', 'Top contributors', 'Notification']}
              />
              <tbody>
                {items.map((e) => (
                  <tr key={e.evaluatedAt} class={e.notificationId ? 'fired' : ''}>
                    <td data-label="Billing day">{e.evaluatedDay}</td>
                    <td data-label="Evaluated">{utc(e.evaluatedAt)}</td>
                    <td data-label="Figures">{evaluationValues(e, d, d.thresholds)}</td>
                    <td data-label="Outcome">{evaluationOutcome(e)}</td>
                    <td data-label="Top contributors">
                      <Causes causes={historyCauses(e, d.currency)} />
                    </td>
                    <td data-label="Notification">{e.notificationId ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}

function AlertSummary({ alert, onChanged }: { alert: AlertWidgetData; onChanged: () => void }) {
  const [busy, setBusy] = useState(false);
  const [confirmArchive, setConfirmArchive] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const now = new Date();
  const act = async (what: string, run: () => Promise<unknown>) => {
    setBusy(true);
    setMessage(null);
    try {
      await run();
      setMessage({ ok: true, text: what });
      onChanged();
    } catch (err) {
      setMessage({ ok: false, text: describe(err) });
    } finally {
      setBusy(false);
      setConfirmArchive(false);
    }
  };
  // The button pressed is disabled, then replaced (Snooze ↔ Unsnooze): focus goes to the outcome so a
  // keyboard user is not dropped at the top of the document.
  const said = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (message) said.current?.focus();
  }, [message]);
  const snoozed = isSnoozed(alert, now);
  return (
    <div class="card summary">
      <dl>
        <dt>Status</dt>
        <dd class="alert-status">{status(alert, now)}</dd>
        <dt>Rule</dt>
        <dd>
          {ruleLines(alert, alert.thresholds).map((l) => (
            <div key={l}>{l}</div>
          ))}
        </dd>
        <dt>Notifies</dt>
        <dd>
          {channelText(alert)}. {dedupText(alert)}.
        </dd>
        <dt>Figures</dt>
        <dd>
          {alert.currency}, query “{queryLabel(alert, alert.queryName)}”, evaluated{' '}
          {alert.evaluationPeriod.toLowerCase()}
        </dd>
      </dl>
      {!alert.archivedAt && (
        <AlertActions
          alert={alert}
          busy={busy}
          snoozed={snoozed}
          confirmArchive={confirmArchive}
          setConfirmArchive={setConfirmArchive}
          act={act}
        />
      )}
      {message && (
        <p
          ref={said}
          tabIndex={-1}
          class={message.ok ? 'ok' : 'error'}
          role={message.ok ? 'status' : 'alert'}
        >
          {message.text}
        </p>
      )}
    </div>
  );
}

function AlertSeries({ data }: { data: AlertWidgetData }) {
  const option = useMemo(() => alertChartOption(data), [data]);
  const table = useMemo(() => alertDayRows(data), [data]);
  if (!data.series || !option)
    return <p class="empty">No billing data in the last three months: nothing to draw yet.</p>;
  const drawn = thresholdsOnChart(data).length > 0;
  return (
    <div class="card">
      <h2>Last 30 complete days (through {data.series.dataThrough})</h2>
      {!drawn && !data.condition && (
        <p class="stamp">
          The thresholds apply to the {data.evaluationPeriod.toLowerCase()} figure, so they are not drawn on
          the daily line.
        </p>
      )}
      <Canvas
        option={option}
        height={320}
        label={`${data.name}: daily ${queryLabel(data, data.queryName)}`}
      />
      <details>
        <summary>Figures by day</summary>
        <div class="table-wrap">
          <table class="alert-days">
            <thead>
              <tr>
                <th scope="col">Day</th>
                {table.columns.map((c) => (
                  <th key={c} scope="col" class="num">
                    {c}
                  </th>
                ))}
                <th scope="col">Rule</th>
              </tr>
            </thead>
            <tbody>
              {table.rows.map((r) => (
                <tr key={r.date} class={r.fired ? 'fired' : ''}>
                  <td>{r.date}</td>
                  {r.cells.map((c, i) => (
                    <td key={i} class="num">
                      {c}
                    </td>
                  ))}
                  <td>{r.fired ? 'fired' : r.triggered ? 'held (below minimum cost)' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </div>
  );
}

/** Snooze (for 1, 7 or 30 days) or unsnooze, and archive after a confirmation. */
function AlertActions(p: {
  alert: AlertWidgetData;
  busy: boolean;
  snoozed: boolean;
  confirmArchive: boolean;
  setConfirmArchive: (v: boolean) => void;
  act: (what: string, run: () => Promise<unknown>) => Promise<void>;
}) {
  const { alert, busy, act, confirmArchive, setConfirmArchive } = p;
  const snoozed = p.snoozed;
  return (
    <div class="actions">
      <SnoozeControls
        snoozed={snoozed}
        busy={busy}
        dayChoices={[1, 7, 30]}
        endLabel="Unsnooze"
        onEnd={() => act('Snooze ended.', () => api.unsnoozeAlert(alert.id))}
        onSnooze={(days) =>
          act(`Snoozed for ${days} day${days === 1 ? '' : 's'}.`, () =>
            api.snoozeAlert(alert.id, snoozeUntil(new Date(), days)),
          )
        }
      />
      {confirmArchive ? (
        <>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => act('Archived: it is no longer evaluated.', () => api.archiveAlert(alert.id))}
          >
            Archive it
          </button>
          <button type="button" class="link" onClick={() => setConfirmArchive(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" class="link" disabled={busy} onClick={() => setConfirmArchive(true)}>
          Archive…
        </button>
      )}
    </div>
  );
}
