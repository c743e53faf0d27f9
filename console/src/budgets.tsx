/**
 * The budgets pages: the list (`#/budgets`) and one budget's month (`#/budgets/{id}?month&line`,
 * shared/links.ts): a month picker, its status table, the line a link names marked, the lines ×
 * months grid of amounts (editable: a save is a new version, If-Match the version read), and the
 * budget's alerts (created, edited and archived here).
 */
import { useState } from 'preact/hooks';
import { burnChartSpec } from '../../shared/charts/burn';
import { type BudgetPageState, budgetPageRoute } from '../../shared/links';
import { snoozeUntil } from './alerts-shape';
import { ApiError, api } from './api';
import { AlertEditor, AmountsEditor } from './budgets-edit';
import { BudgetCreator } from './budgets-new';
import {
  type AlertRow,
  alertRow,
  type Budget,
  type BudgetAlertEvaluation,
  lastCauses,
  monthChoices,
  type StatusRow,
  statusRows,
} from './budgets-shape';
import { Canvas } from './chart';
import { useAsync } from './hooks';
import { BackLink, Causes, ErrorPage, Heads, Loaded, numeric, SnoozeControls } from './ui';
import { useUsers } from './users';
import { monthLabel } from './words';

export function BudgetList() {
  const list = useAsync(() => api.budgets(), []);
  return (
    <section>
      <h1>Budgets</h1>
      <BudgetCreator />
      <Loaded state={list} loading="Loading budgets…" empty="No budgets yet.">
        {(items) => (
          <ul class="dash-list budget-list">
            {items.map((b: Budget) => (
              <li key={b.id}>
                <a href={`#/budgets/${encodeURIComponent(b.id)}`}>{b.name}</a>
                <span class="meta">
                  {b.currency} · from {b.startMonth} · {b.lines.length} line{b.lines.length === 1 ? '' : 's'}
                  {b.groupBy ? ` by ${b.groupBy}` : ''} · version {b.versionNumber}
                </span>
                <MonthFigures id={b.id} />
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}

export function BudgetPage({ id, state = {} }: { id: string; state?: BudgetPageState }) {
  // Bumped after a save: the budget, its status and its alerts are read again.
  const [rev, setRev] = useState(0);
  const reload = () => setRev((r) => r + 1);
  const budget = useAsync(() => api.budget(id), [id, rev], true);
  const status = useAsync(() => api.budgetStatus(id, state.month), [id, state.month, rev]);
  // Each alert with its evaluations (newest first), for its last firing.
  const alerts = useAsync(
    async () => {
      const list = await api.budgetAlerts(id);
      return {
        items: await Promise.all(
          list.items.map(async (a) => ({ alert: a, history: (await api.budgetAlertHistory(a.id)).items })),
        ),
      };
    },
    [id, rev],
    true,
  );
  const [editing, setEditing] = useState<string | null>(null);
  const [archiveError, setArchiveError] = useState('');
  const [snoozing, setSnoozing] = useState<string | null>(null);
  /** Snoozes an alert for `days` days (0: ends its snooze); a snoozed alert is evaluated and recorded, and notifies nothing. */
  const snooze = async (alertId: string, days: number) => {
    setSnoozing(alertId);
    try {
      if (days > 0) await api.snoozeBudgetAlert(alertId, snoozeUntil(new Date(), days));
      else await api.unsnoozeBudgetAlert(alertId);
      setArchiveError('');
      reload();
    } catch (e) {
      setArchiveError(
        e instanceof ApiError ? `Not changed: the API answered ${e.status} (${e.code})` : String(e),
      );
    } finally {
      setSnoozing(null);
    }
  };
  if (budget.status === 'loading') return <p class="loading">Loading the budget…</p>;
  if (budget.status === 'error')
    return <ErrorPage href="#/budgets" back="Budgets" message={budget.message} />;
  const b = budget.value;
  const shown = state.month ?? (status.status === 'ok' ? status.value.month : undefined);
  const pick = (month: string) => {
    location.hash = `#/${budgetPageRoute(id, { month, ...(state.line !== undefined ? { line: state.line } : {}) })}`;
  };
  const archive = async (alertId: string, name: string) => {
    if (!confirm(`Archive the alert "${name}"? It will no longer be evaluated.`)) return;
    try {
      await api.archiveBudgetAlert(alertId);
      setArchiveError('');
      reload();
    } catch (e) {
      setArchiveError(
        e instanceof ApiError ? `Not archived: the API answered ${e.status} (${e.code})` : String(e),
      );
    }
  };
  return (
    <section>
      <BackLink href="#/budgets">Budgets</BackLink>
      <h1>{b.name}</h1>
      {b.description && <p>{b.description}</p>}
      <form class="filters month-picker" onSubmit={(e) => e.preventDefault()}>
        <label>
          Month{' '}
          <select
            value={shown ?? ''}
            onChange={(e) => pick((e.target as HTMLSelectElement).value)}
            aria-label="Month of the budget"
          >
            {!shown && <option value="">Current month</option>}
            {monthChoices(b, shown).map((m) => (
              <option key={m} value={m}>
                {monthLabel(`${m}-01`)}
              </option>
            ))}
          </select>
        </label>
        <span class="meta">
          Version {b.versionNumber} · {b.currency}
          {b.groupBy ? ` · lines by ${b.groupBy}` : ''}
        </span>
      </form>
      {status.status === 'loading' && <p class="loading">Loading the month's status…</p>}
      {status.status === 'error' && <ErrorPage href="#/budgets" back="Budgets" message={status.message} />}
      {status.status === 'ok' && (
        <StatusTable
          shape={statusRows(status.value)}
          through={status.value.dataThrough}
          marked={state.line === undefined ? undefined : (state.line ?? 'Total')}
        />
      )}
      {status.status === 'ok' && status.value.burn && (
        <div class="card burn">
          <h2>Burn: {statusRows(status.value).month}</h2>
          <Canvas
            label={`Burn chart of ${b.name}, ${status.value.month}: cumulative actual against cumulative budget, forecast shaded`}
            height={320}
            option={
              burnChartSpec({
                title: '',
                currency: status.value.currency,
                stamp: [],
                burn: status.value.burn,
              }).option
            }
          />
        </div>
      )}
      <AmountsEditor key={`${b.id}:${b.versionNumber}`} budget={b} onSaved={reload} />
      <VersionsAndCsv budget={b} onImported={reload} />
      <div class="card budget-alerts-card">
        <h2>Alerts on this budget</h2>
        {archiveError && <p class="error">{archiveError}</p>}
        <Loaded state={alerts} loading="Loading the budget's alerts…" empty="No alerts on this budget yet.">
          {(items) => (
            <ul class="budget-alerts">
              {items.map(({ alert, history }) => {
                const a: AlertRow = alertRow(alert, history, b.currency);
                return (
                  <li key={a.id}>
                    <strong>{a.name}</strong>
                    <span class="meta">
                      Watches {a.watches === 'Total' ? 'the total' : a.watches}
                      {a.snoozedUntil ? ` · snoozed until ${a.snoozedUntil.slice(0, 10)}` : ''}
                    </span>
                    <span class="thresholds">{a.thresholds.join(' · ')}</span>
                    <span class="last-fired">Last fired: {a.lastFired}</span>
                    <LastCauses history={history} currency={b.currency} />
                    <span class="snooze">
                      <SnoozeControls
                        snoozed={!!a.snoozedUntil && Date.parse(a.snoozedUntil) > Date.now()}
                        busy={snoozing === a.id}
                        dayChoices={[1, 7, 30]}
                        endLabel="End snooze"
                        onSnooze={(days) => snooze(a.id, days)}
                        onEnd={() => snooze(a.id, 0)}
                      />
                    </span>
                    {editing === a.id ? (
                      <AlertEditor
                        budget={b}
                        alert={alert}
                        onDone={() => {
                          setEditing(null);
                          reload();
                        }}
                        onCancel={() => setEditing(null)}
                      />
                    ) : (
                      <span class="actions">
                        <button type="button" class="link" onClick={() => setEditing(a.id)}>
                          Edit
                        </button>
                        <button type="button" class="link" onClick={() => archive(a.id, a.name)}>
                          Archive
                        </button>
                      </span>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
        </Loaded>
        {editing === 'new' ? (
          <AlertEditor
            budget={b}
            onDone={() => {
              setEditing(null);
              reload();
            }}
            onCancel={() => setEditing(null)}
          />
        ) : (
          <button type="button" class="new-alert" onClick={() => setEditing('new')}>
            New alert
          </button>
        )}
      </div>
    </section>
  );
}

function StatusTable({
  shape,
  through,
  marked,
}: {
  shape: ReturnType<typeof statusRows>;
  through: string | null;
  /** The row a link named (a line's value, or "Total"). */
  marked?: string | undefined;
}) {
  const cells = (r: StatusRow) => (
    <>
      <td data-label="Line">{r.line}</td>
      <td data-label="Owner">{r.owner}</td>
      <td data-label="Budget" class="num">
        {r.budget}
      </td>
      <td data-label="Actual" class="num">
        {r.actual}
      </td>
      <td data-label="Forecast" class="num">
        <span class="fig">{r.forecast}</span>
        {r.range && <span class="range">80%: {r.range}</span>}
      </td>
      <td data-label="Delta" class={`num ${r.over ? 'over' : ''}`}>
        {r.delta}
      </td>
    </>
  );
  return (
    <div class="card table-wrap">
      <h2>
        {shape.month}: month to date {through ? `(data through ${through})` : '(no billing data yet)'}
      </h2>
      <table class="budget-status stack">
        <Heads
          cols={['Line', 'Owner', ...['Budget', 'Actual', 'Forecast (80% range)', 'Delta'].map(numeric)]}
        />
        <tbody>
          {shape.rows.map((r) => (
            <tr key={r.line} class={r.line === marked ? 'marked' : undefined}>
              {cells(r)}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr class={marked === 'Total' ? 'marked' : undefined}>{cells(shape.total)}</tr>
        </tfoot>
      </table>
    </div>
  );
}

/** Why the alert last fired: its root causes as the message gave them. */
function LastCauses({ history, currency }: { history: BudgetAlertEvaluation[]; currency: string }) {
  const last = lastCauses(history, currency);
  if (!last) return null;
  return (
    <details class="last-causes">
      <summary>Top contributors when it last fired (data through {last.day})</summary>
      <Causes causes={last.causes} />
    </details>
  );
}

/**
 * The budget's versions (newest first; one opens read-only) and its grid as CSV: the export
 * downloads `GET /budgets/{id}/export.csv`; an import (a file or pasted text) is a new version,
 * `If-Match` the version shown, each bad cell named by the API with its row and column.
 */
function VersionsAndCsv({ budget, onImported }: { budget: Budget; onImported: () => void }) {
  const versions = useAsync(() => api.budgetVersions(budget.id), [budget.id, budget.versionNumber]);
  const users = useUsers();
  const [shown, setShown] = useState<number | null>(null);
  const [csv, setCsv] = useState('');
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const download = async () => {
    try {
      const text = await api.budgetCsv(budget.id);
      const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${budget.name.replace(/[^\w.-]+/g, '-')}-v${budget.versionNumber}.csv`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (e) {
      setMessage({ error: true, text: `Not exported: ${e instanceof ApiError ? e.code : String(e)}` });
    }
  };
  const load = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (file) setCsv(await file.text());
  };
  const importCsv = async (e: Event) => {
    e.preventDefault();
    if (!csv.trim()) return setMessage({ error: true, text: 'Choose a CSV file or paste the grid first.' });
    try {
      const saved = await api.importBudgetCsv(budget.id, budget.versionNumber, csv);
      setCsv('');
      setMessage({ error: false, text: `Imported as version ${saved.versionNumber}.` });
      onImported();
    } catch (err) {
      setMessage({
        error: true,
        text:
          err instanceof ApiError && err.status === 409
            ? `Not imported: the budget changed since version ${budget.versionNumber} was read. Reload and import again.`
            : `Not imported: ${err instanceof ApiError ? err.code : String(err)}`,
      });
    }
  };
  const version =
    versions.status === 'ok' ? versions.value.items.find((v) => v.versionNumber === shown) : undefined;
  return (
    <div class="card budget-versions">
      <h2>Versions and CSV</h2>
      <Loaded state={versions} loading="Loading the versions…" empty="No versions.">
        {(items) => (
          <ul class="versions">
            {items.map((v) => (
              <li key={v.versionId}>
                <button
                  type="button"
                  class="link"
                  aria-pressed={shown === v.versionNumber}
                  onClick={() => setShown(shown === v.versionNumber ? null : v.versionNumber)}
                >
                  Version {v.versionNumber}
                </button>
                <span class="meta">
                  {v.createdAt.slice(0, 16).replace('T', ' ')} UTC by {users.nameOf(v.createdById)}
                  {v.versionNumber === budget.versionNumber ? ' · current' : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      {version && (
        <AmountsEditor
          key={version.versionId}
          budget={{ ...budget, ...version, id: budget.id }}
          onSaved={() => undefined}
          readOnly
          title={`Amounts of version ${version.versionNumber}`}
        />
      )}
      <form class="csv" onSubmit={importCsv}>
        <button type="button" onClick={download}>
          Export CSV
        </button>
        <label>
          Import a CSV file <input type="file" accept=".csv,text/csv" onChange={load} />
        </label>
        <label>
          or paste it
          <textarea rows={4} value={csv} onInput={(e) => setCsv((e.target as HTMLTextAreaElement).value)} />
        </label>
        <button type="submit">Import as version {budget.versionNumber + 1}</button>
      </form>
      {message && (
        <p class={message.error ? 'error' : 'ok'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
    </div>
  );
}

/**
 * A budget's current month on the list: budget, actual to date, month-end forecast and delta of
 * its total (red when the forecast is over), and how many lines are forecast over.
 */
function MonthFigures({ id }: { id: string }) {
  const status = useAsync(() => api.budgetStatus(id), [id]);
  if (status.status === 'loading') return <span class="figures loading">Loading this month…</span>;
  if (status.status === 'error') return <span class="figures error">{status.message}</span>;
  const { rows, total, month } = statusRows(status.value);
  const over = rows.filter((r) => r.over && r.line !== 'Other').length;
  return (
    <span class={`figures ${total.over ? 'over' : ''}`}>
      {month}: budget {total.budget} · actual {total.actual} · forecast {total.forecast} · delta{' '}
      <strong>{total.delta}</strong>
      {rows.length > 1 &&
        ` · ${over} of ${rows.filter((r) => r.line !== 'Other').length} lines forecast over`}
    </span>
  );
}
