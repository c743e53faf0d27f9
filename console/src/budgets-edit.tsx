/**
 * The budget page's editors: the lines × months grid of amounts (saved as a new version with
 * `If-Match` the version read; a 409 says someone saved first) and a budget alert's form (create
 * or edit: the line watched, thresholds, where to notify). Shaping and checks: ./budgets-shape.ts.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { formatFigure } from '../../shared/charts/spec';
import { ApiError, api } from './api';
import {
  type AlertForm,
  alertBody,
  alertFormOf,
  type Budget,
  type BudgetAlert,
  budgetPutBody,
  emptyAlertForm,
  gridOf,
  staleVersionMessage,
  withNextMonth,
} from './budgets-shape';
import { describe } from './hooks';
import { WordSelect } from './ui';
import { monthLabel } from './words';

/** A grid cell as read (`4000` → `$4,000.00`), '–' for a month without an amount. */
const figureOf = (cell: string | undefined, currency: string) =>
  cell ? formatFigure(Number(cell), currency, 2) : '–';

/**
 * A lines × months grid of amounts: "Line", then each month in words, as column heads; a row per
 * line headed by its `label`, each month's cell drawn by `cell` (the month, its index, the row's).
 */
export function AmountGrid<R>(p: {
  class: string;
  caption?: ComponentChildren;
  months: readonly string[];
  rows: readonly R[];
  label: (row: R) => string;
  cell: (row: R, month: string, k: number, i: number) => ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class={p.class}>
        {p.caption && <caption>{p.caption}</caption>}
        <thead>
          <tr>
            <th scope="col">Line</th>
            {p.months.map((m) => (
              <th scope="col" class="num" key={m}>
                {monthLabel(`${m}-01`)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r, i) => (
            <tr key={p.label(r)}>
              <th scope="row">{p.label(r)}</th>
              {p.months.map((m, k) => (
                <td class="num" key={m}>
                  {p.cell(r, m, k, i)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type Saving = { status: 'idle' } | { status: 'saving' } | { status: 'error'; message: string };

/** An API refusal in words: a 409 as `conflict`, a 400 with the API's own message. */
function refusal(e: unknown, conflict: string): string {
  if (e instanceof ApiError && e.status === 409) return conflict;
  if (e instanceof ApiError && e.status === 400) return `Not saved: ${e.code}`;
  return `Not saved. ${describe(e)}`;
}

export function AmountsEditor({
  budget,
  onSaved,
  readOnly = false,
  title = 'Amounts by line and month',
}: {
  budget: Budget;
  onSaved: () => void;
  /** An older version shown for reading: no edit button. */
  readOnly?: boolean;
  title?: string;
}) {
  const [grid, setGrid] = useState(() => gridOf(budget));
  const [open, setOpen] = useState(false);
  const [saving, setSaving] = useState<Saving>({ status: 'idle' });
  const set = (row: number, col: number, text: string) =>
    setGrid((g) => ({
      ...g,
      rows: g.rows.map((r, i) =>
        i === row ? { ...r, cells: r.cells.map((c, k) => (k === col ? text : c)) } : r,
      ),
    }));
  const save = async (e: Event) => {
    e.preventDefault();
    const put = budgetPutBody(budget, grid);
    if (!put.ok) return setSaving({ status: 'error', message: put.message });
    setSaving({ status: 'saving' });
    try {
      await api.updateBudget(budget.id, budget.versionNumber, put.body);
      setSaving({ status: 'idle' });
      setOpen(false);
      onSaved();
    } catch (err) {
      setSaving({ status: 'error', message: refusal(err, staleVersionMessage(budget.versionNumber)) });
    }
  };
  return (
    <div class="card budget-amounts">
      <h2>{title}</h2>
      <form onSubmit={save}>
        <AmountGrid
          class="amount-grid"
          months={grid.months}
          rows={grid.rows}
          label={(r) => r.label}
          cell={(r, m, k, i) =>
            open ? (
              <input
                inputMode="decimal"
                aria-label={`${r.label}, ${monthLabel(`${m}-01`)}`}
                value={r.cells[k]}
                onInput={(ev) => set(i, k, (ev.target as HTMLInputElement).value)}
              />
            ) : (
              figureOf(r.cells[k], budget.currency)
            )
          }
        />
        <div class="form-actions">
          {open ? (
            <>
              <button type="submit" disabled={saving.status === 'saving'}>
                Save as version {budget.versionNumber + 1}
              </button>
              <button type="button" class="link" onClick={() => setGrid(withNextMonth(grid))}>
                Add a month
              </button>
              <button
                type="button"
                class="link"
                onClick={() => {
                  setGrid(gridOf(budget));
                  setSaving({ status: 'idle' });
                  setOpen(false);
                }}
              >
                Cancel
              </button>
            </>
          ) : readOnly ? null : (
            <button type="button" class="edit-amounts" onClick={() => setOpen(true)}>
              Edit amounts
            </button>
          )}
        </div>
        {saving.status === 'saving' && <p class="loading">Saving…</p>}
        {saving.status === 'error' && (
          <p class="error" role="alert">
            {saving.message}
          </p>
        )}
      </form>
    </div>
  );
}

const SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
const MODES = ['PERCENTAGE_OF_BUDGET', 'ABSOLUTE_SPEND'] as const;
const BASES = ['ACTUAL', 'FORECASTED'] as const;
const CHANNELS = ['EMAIL', 'SLACK', 'TEAMS'] as const;
const TARGET_FIELD: Record<
  AlertForm['notificationChannel'],
  [string, 'emails' | 'slackChannelId' | 'teamsChannelId']
> = {
  EMAIL: ['E-mails', 'emails'],
  SLACK: ['Slack channel id', 'slackChannelId'],
  TEAMS: ['Teams webhook URL', 'teamsChannelId'],
};

/** Create (`alert` absent) or edit a budget alert. */
export function AlertEditor(p: {
  budget: Budget;
  alert?: BudgetAlert;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState<AlertForm>(() => (p.alert ? alertFormOf(p.alert) : emptyAlertForm()));
  const [saving, setSaving] = useState<Saving>({ status: 'idle' });
  const patch = (x: Partial<AlertForm>) => setForm((f) => ({ ...f, ...x }));
  const setThreshold = (i: number, x: Partial<AlertForm['thresholds'][number]>) =>
    setForm((f) => ({ ...f, thresholds: f.thresholds.map((t, k) => (k === i ? { ...t, ...x } : t)) }));
  const lines = p.budget.groupBy ? p.budget.lines.flatMap((l) => (l.value === null ? [] : [l.value])) : [];
  const save = async (e: Event) => {
    e.preventDefault();
    const body = alertBody(form, p.budget.id);
    if (!body.ok) return setSaving({ status: 'error', message: body.message });
    setSaving({ status: 'saving' });
    try {
      if (p.alert) await api.updateBudgetAlert(p.alert.id, body.body);
      else await api.createBudgetAlert(body.body);
      setSaving({ status: 'idle' });
      p.onDone();
    } catch (err) {
      setSaving({
        status: 'error',
        message: refusal(
          err,
          'Not saved: this alert changed since you opened it. Reload the page and edit it again.',
        ),
      });
    }
  };
  return (
    <form class="alert-editor" onSubmit={save}>
      <h3>{p.alert ? `Edit "${p.alert.name}"` : 'New budget alert'}</h3>
      <div class="filters">
        <label>
          Name{' '}
          <input value={form.name} onInput={(e) => patch({ name: (e.target as HTMLInputElement).value })} />
        </label>
        <WordSelect
          label="Watches"
          value={form.line}
          codes={['', ...(lines.length ? ['*'] : []), ...lines]}
          words={(c) => (c === '' ? 'The total' : c === '*' ? 'Each line' : c)}
          onChange={(line) => patch({ line })}
        />
      </div>
      <fieldset>
        <legend>Thresholds</legend>
        {form.thresholds.map((t, i) => (
          <div class="filters threshold" key={i}>
            <label>
              Value{' '}
              <input
                inputMode="decimal"
                value={t.value}
                onInput={(e) => setThreshold(i, { value: (e.target as HTMLInputElement).value })}
              />
            </label>
            <WordSelect
              label="Of"
              value={t.metricMode}
              codes={MODES}
              words={(c) => (c === 'ABSOLUTE_SPEND' ? `${p.budget.currency} spent` : '% of budget')}
              onChange={(metricMode) => setThreshold(i, { metricMode })}
            />
            <WordSelect
              label="Compared with"
              value={t.basis}
              codes={BASES}
              words={(c) => (c === 'ACTUAL' ? 'the actual to date' : 'the month-end forecast')}
              onChange={(basis) => setThreshold(i, { basis })}
            />
            <WordSelect
              label="Severity"
              value={t.severityLevel}
              codes={SEVERITIES}
              words={(c) => c}
              onChange={(severityLevel) => setThreshold(i, { severityLevel })}
            />
            <button
              type="button"
              class="link"
              onClick={() => patch({ thresholds: form.thresholds.filter((_, k) => k !== i) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="link"
          onClick={() => patch({ thresholds: [...form.thresholds, ...emptyAlertForm().thresholds] })}
        >
          Add a threshold
        </button>
      </fieldset>
      <div class="filters">
        <WordSelect
          label="Notify by"
          value={form.notificationChannel}
          codes={CHANNELS}
          words={(c) => (c === 'EMAIL' ? 'E-mail' : c === 'SLACK' ? 'Slack' : 'Teams')}
          onChange={(c) => patch({ notificationChannel: c as AlertForm['notificationChannel'] })}
        />
        {(() => {
          // The one target field of the chosen channel.
          const [label, key] = TARGET_FIELD[form.notificationChannel];
          return (
            <label>
              {label}{' '}
              <input
                value={form[key]}
                onInput={(e) => patch({ [key]: (e.target as HTMLInputElement).value })}
              />
            </label>
          );
        })()}
      </div>
      <div class="form-actions">
        <button type="submit" disabled={saving.status === 'saving'}>
          {p.alert ? 'Save the alert' : 'Create the alert'}
        </button>
        <button type="button" class="link" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
      {saving.status === 'error' && (
        <p class="error" role="alert">
          {saving.message}
        </p>
      )}
    </form>
  );
}
