/**
 * The budgets pages: the list (`#/budgets`) and one budget's month (`#/budgets/{id}?month&line`,
 * shared/links.ts): a month picker, its status table, the line a link names marked, the lines ×
 * months grid of amounts (editable: a save is a new version, If-Match the version read), and the
 * budget's alerts (created, edited and archived here).
 */
import { useState } from 'preact/hooks';
import { type BudgetPageState, budgetPageRoute } from '../../shared/links';
import { ApiError, api } from './api';
import { AlertEditor, AmountsEditor } from './budgets-edit';
import {
  type AlertRow,
  alertRow,
  type Budget,
  monthChoices,
  type StatusRow,
  statusRows,
} from './budgets-shape';
import { useAsync } from './hooks';
import { BackLink, ErrorPage, Loaded } from './ui';
import { monthLabel } from './words';

export function BudgetList() {
  const list = useAsync(() => api.budgets(), []);
  return (
    <section>
      <h1>Budgets</h1>
      <Loaded
        state={list}
        loading="Loading budgets…"
        empty={
          <>
            No budgets yet. Create one with <code>POST /budgets</code> (docs/budgets.md).
          </>
        }
      >
        {(items) => (
          <ul class="dash-list budget-list">
            {items.map((b: Budget) => (
              <li key={b.id}>
                <a href={`#/budgets/${encodeURIComponent(b.id)}`}>{b.name}</a>
                <span class="meta">
                  {b.currency} · from {b.startMonth} · {b.lines.length} line{b.lines.length === 1 ? '' : 's'}
                  {b.groupBy ? ` by ${b.groupBy}` : ''} · version {b.versionNumber}
                </span>
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
      <AmountsEditor key={`${b.id}:${b.versionNumber}`} budget={b} onSaved={reload} />
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
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Owner</th>
            <th scope="col" class="num">
              Budget
            </th>
            <th scope="col" class="num">
              Actual
            </th>
            <th scope="col" class="num">
              Forecast (80% range)
            </th>
            <th scope="col" class="num">
              Delta
            </th>
          </tr>
        </thead>
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
