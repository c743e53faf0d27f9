/**
 * Creating a budget (`#/budgets`): name, currency, the dimension of its lines (or one total line),
 * the first month and how many; the amounts either suggested from the forecast
 * (`POST /budgets/suggest`, each month's forecast rounded up) or, for a total, one monthly amount.
 * The API's 400 is shown as it comes; a created budget opens on its page, where the grid is edited.
 */
import { useState } from 'preact/hooks';
import { formatFigure } from '../../shared/charts/spec';
import { DASHBOARD_CURRENCIES } from '../../shared/enums';
import { ApiError, api } from './api';
import { AmountGrid } from './budgets-edit';
import { type NewBudgetForm, newBudgetBody, nextMonth, type Suggestion } from './budgets-shape';
import { describe } from './hooks';

/** The dimensions a budget's lines are usually by (any dimension works through the API). */
const LINE_DIMENSIONS: [string, string][] = [
  ['', 'One total line'],
  ['provider', 'Provider'],
  ['service', 'Service'],
  ['sub_account', 'Sub-account'],
  ['region', 'Region'],
];

const thisMonth = () => new Date().toISOString().slice(0, 7);

export function BudgetCreator() {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<NewBudgetForm>({
    name: '',
    currency: 'USD',
    groupBy: '',
    startMonth: thisMonth(),
    months: 3,
    owner: '',
    monthly: '',
  });
  const [suggestion, setSuggestion] = useState<Suggestion | null>(null);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<NewBudgetForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    // What the suggestion was made for changed: it no longer applies.
    if ('currency' in patch || 'groupBy' in patch || 'startMonth' in patch || 'months' in patch)
      setSuggestion(null);
  };
  const failed = (e: unknown) =>
    setMessage(e instanceof ApiError && e.status === 400 ? `Refused: ${e.code}` : describe(e));
  const suggest = async () => {
    setBusy(true);
    setMessage('');
    try {
      setSuggestion(
        await api.suggestBudget({
          currency: form.currency,
          groupBy: form.groupBy || null,
          startMonth: form.startMonth,
          months: form.months,
        }),
      );
    } catch (e) {
      failed(e);
    } finally {
      setBusy(false);
    }
  };
  const create = async (e: Event) => {
    e.preventDefault();
    const made = newBudgetBody(form, suggestion);
    if (!made.ok) return setMessage(made.message);
    setBusy(true);
    setMessage('');
    try {
      const b = await api.createBudget(made.body);
      location.hash = `#/budgets/${encodeURIComponent(b.id)}`;
    } catch (err) {
      failed(err);
      setBusy(false);
    }
  };
  if (!open)
    return (
      <button type="button" class="new-budget" onClick={() => setOpen(true)}>
        New budget
      </button>
    );
  const months: string[] = [form.startMonth];
  while (months.length < form.months) months.push(nextMonth(months[months.length - 1]!));
  return (
    <form class="card budget-new" onSubmit={create}>
      <h2>New budget</h2>
      <label>
        Name <input value={form.name} onInput={(e) => set({ name: (e.target as HTMLInputElement).value })} />
      </label>
      <label>
        Currency{' '}
        <select
          value={form.currency}
          onChange={(e) => set({ currency: (e.target as HTMLSelectElement).value })}
        >
          {DASHBOARD_CURRENCIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Lines{' '}
        <select
          value={form.groupBy}
          onChange={(e) => set({ groupBy: (e.target as HTMLSelectElement).value })}
        >
          {LINE_DIMENSIONS.map(([value, label]) => (
            <option key={value} value={value}>
              {value ? `One per ${label.toLowerCase()}` : label}
            </option>
          ))}
        </select>
      </label>
      <label>
        First month{' '}
        <input
          type="month"
          value={form.startMonth}
          onInput={(e) => set({ startMonth: (e.target as HTMLInputElement).value })}
        />
      </label>
      <label>
        Months{' '}
        <select
          value={String(form.months)}
          onChange={(e) => set({ months: Number((e.target as HTMLSelectElement).value) })}
        >
          {[1, 3, 6, 12].map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <label>
        Owner{' '}
        <input
          value={form.owner}
          placeholder="e-mail or user id"
          onInput={(e) => set({ owner: (e.target as HTMLInputElement).value })}
        />
      </label>
      {!form.groupBy && !suggestion && (
        <label>
          Monthly amount ({form.currency}){' '}
          <input
            inputMode="decimal"
            value={form.monthly}
            onInput={(e) => set({ monthly: (e.target as HTMLInputElement).value })}
          />
        </label>
      )}
      {suggestion && (
        <AmountGrid
          class="amount-grid suggestion"
          caption={`Suggested from the forecast (data through ${suggestion.dataThrough ?? 'none'}), each month rounded up`}
          months={months}
          rows={suggestion.lines}
          label={(l) => l.value ?? 'All costs'}
          cell={(l, m) =>
            l.amounts[m] ? formatFigure(Math.ceil(l.amounts[m].value), suggestion.currency, 0) : '–'
          }
        />
      )}
      <div class="form-actions">
        <button type="button" class="link" disabled={busy} onClick={suggest}>
          Suggest amounts from the forecast
        </button>
        <button type="submit" disabled={busy}>
          Create budget
        </button>
        <button type="button" class="link" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {busy && <p class="loading">Working…</p>}
      {message && (
        <p class="error" role="alert">
          {message}
        </p>
      )}
    </form>
  );
}
