/**
 * The budgets pages' data shaping (pure, no DOM): `GET /budgets/{id}/status` → the rows of the
 * status table, every figure in the budget's currency (docs/budgets.md, "Status").
 */
import { formatFigure } from '../../shared/charts/spec';
import type { BudgetStatus, StatusFigures } from '../../shared/domain/budgets/status';
import type { BudgetAlert, BudgetAlertEvaluation } from '../../shared/model/budget-alerts';
import { type Budget, type BudgetVersion, budgetFieldsOf } from '../../shared/model/budgets';
import { causesText } from './alerts-shape';
import { monthLabel } from './words';

/** `GET /budgets/{id}/status`, a budget alert and its evaluations (the service's own types: the console only reads them). */
export type { Budget, BudgetAlert, BudgetAlertEvaluation, BudgetStatus, BudgetVersion };

/** `POST /budgets/suggest`: per line, each month's forecast total with its 80 % interval (docs/budgets.md). */
export interface Suggestion {
  currency: string;
  groupBy: string | null;
  dataThrough: string | null;
  months: string[];
  lines: {
    value: string | null;
    amounts: Record<string, { value: number; lower80: number; upper80: number }>;
  }[];
}

type Figures = StatusFigures;

export interface StatusRow {
  line: string;
  owner: string;
  budget: string;
  actual: string;
  forecast: string;
  /** The 80 % interval of the forecast, `$380.40 – $411.00`, or '' without a forecast. */
  range: string;
  /** Forecast less budget, signed (`+$12.30`, `−$4.90`), '–' without a forecast. */
  delta: string;
  over: boolean;
}

function row(f: Figures, line: string, owner: string, currency: string): StatusRow {
  const money = (x: number) => formatFigure(x, currency, 2);
  const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${money(Math.abs(x))}`;
  return {
    line,
    owner,
    budget: money(f.budget),
    actual: money(f.actual),
    forecast: f.forecast ? money(f.forecast.value) : '–',
    range: f.forecast ? `${money(f.forecast.lower80)} – ${money(f.forecast.upper80)}` : '',
    delta: f.delta === null ? '–' : signed(f.delta),
    over: (f.delta ?? 0) > 0,
  };
}

/** One row per line (a line without a value is the budget's single "Total" line), then the total. */
export function statusRows(s: BudgetStatus): { rows: StatusRow[]; total: StatusRow; month: string } {
  return {
    rows: s.lines.map((l) => row(l, l.value ?? 'All costs', l.owner ?? '', s.currency)),
    total: row(s.total, 'Total', '', s.currency),
    month: monthLabel(`${s.month}-01`),
  };
}

/** One alert of the budget as its page lists it: what it watches and when it last fired. */
export interface AlertRow {
  id: string;
  name: string;
  /** "Total", a line's value, or "Each line". */
  watches: string;
  /** Its thresholds in words: `WARNING: actual ≥ 50% of budget`, `INFO: forecast ≥ $3,000.00`. */
  thresholds: string[];
  /** The newest evaluation that sent a notification (`2026-11-14 06:00 UTC: Total, actual $512.00 ≥ $500.00`), or "Never". */
  lastFired: string;
  snoozedUntil: string | null;
}

/** The alert's row; `history` its evaluations, newest first (`GET …/history`). */
export function alertRow(a: BudgetAlert, history: BudgetAlertEvaluation[], currency: string): AlertRow {
  const money = (x: number) => formatFigure(x, currency, 2);
  const thresholds = a.thresholds.map(
    (t) =>
      `${t.severityLevel}: ${t.basis === 'FORECASTED' ? 'forecast' : 'actual'} ≥ ${
        t.metricMode === 'PERCENTAGE_OF_BUDGET' ? `${t.value}% of budget` : money(t.value)
      }`,
  );
  let lastFired = 'Never';
  for (const e of history) {
    const sent = e.checks.filter((c) => c.notificationId !== null);
    if (!sent.length) continue;
    const when = `${e.evaluatedAt.slice(0, 10)} ${e.evaluatedAt.slice(11, 16)} UTC`;
    lastFired = `${when}: ${sent
      .map(
        (c) =>
          `${c.line ?? 'Total'}, ${c.basis === 'FORECASTED' ? 'forecast' : 'actual'} ${
            c.measured === null ? '–' : money(c.measured)
          } ≥ ${money(c.amount)}`,
      )
      .join('; ')}`;
    break;
  }
  return {
    id: a.id,
    name: a.name,
    watches: a.line === null ? 'Total' : a.line === '*' ? 'Each line' : a.line,
    thresholds,
    lastFired,
    snoozedUntil: a.snoozedUntil,
  };
}

/** The months a budget plans (every month any line has an amount for, from `startMonth`), sorted. */
export function budgetMonths(b: Pick<Budget, 'startMonth' | 'lines'>): string[] {
  const months = new Set<string>([b.startMonth]);
  for (const l of b.lines) for (const m of Object.keys(l.amounts)) months.add(m);
  return [...months].sort();
}

/** The month picker's months: the budget's, and the month shown if it is none of them (the current one). */
export function monthChoices(b: Pick<Budget, 'startMonth' | 'lines'>, shown: string | undefined): string[] {
  const months = budgetMonths(b);
  return shown && !months.includes(shown) ? [...months, shown].sort() : months;
}

/** The month after `YYYY-MM`. */
export function nextMonth(m: string): string {
  const [y, mo] = m.split('-').map(Number) as [number, number];
  return mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
}

/** The lines × months grid being edited: each cell as typed ('' = no amount that month). */
export interface AmountGrid {
  months: string[];
  rows: { label: string; cells: string[] }[];
}

export function gridOf(b: Pick<Budget, 'startMonth' | 'lines'>): AmountGrid {
  const months = budgetMonths(b);
  return {
    months,
    rows: b.lines.map((l) => ({
      label: l.value ?? 'All costs',
      cells: months.map((m) => (l.amounts[m] === undefined ? '' : String(l.amounts[m]))),
    })),
  };
}

/** The grid with one more month after its last (at most 36, the API's bound). */
export function withNextMonth(g: AmountGrid): AmountGrid {
  if (g.months.length >= 36) return g;
  const last = g.months[g.months.length - 1]!;
  return {
    months: [...g.months, nextMonth(last)],
    rows: g.rows.map((r) => ({ ...r, cells: [...r.cells, ''] })),
  };
}

/**
 * The PUT /budgets/{id} body of the edited grid (every other field as read), or the first cell
 * that is not an amount, named by its line and month. An empty cell leaves that month out; a line
 * left with no month at all is refused (the API wants at least one).
 */
export function budgetPutBody(
  b: Budget,
  g: AmountGrid,
): { ok: true; body: Record<string, unknown> } | { ok: false; message: string } {
  const lines = [];
  for (const [i, line] of b.lines.entries()) {
    const row = g.rows[i]!;
    const amounts: Record<string, number> = {};
    for (const [k, m] of g.months.entries()) {
      const text = (row.cells[k] ?? '').trim().replaceAll(',', '');
      if (text === '') continue;
      const n = Number(text);
      if (!Number.isFinite(n) || n < 0)
        return {
          ok: false,
          message: `${row.label}, ${monthLabel(`${m}-01`)}: "${row.cells[k]}" is not an amount`,
        };
      amounts[m] = n;
    }
    if (!Object.keys(amounts).length)
      return { ok: false, message: `${row.label}: give at least one month an amount` };
    lines.push({ value: line.value, owner: line.owner, amounts });
  }
  return {
    ok: true,
    body: { ...budgetFieldsOf(b), lines },
  };
}

/** What the page says when a save is refused because someone saved a newer version first (409). */
export function staleVersionMessage(read: number): string {
  return `Not saved: this budget changed since you opened it (you edited version ${read}; someone saved a newer one). Reload the page to see the latest amounts, then make your change again.`;
}

/** The budget-alert form's fields, as typed. */
export interface AlertForm {
  name: string;
  /** '' the total, '*' each line, else a line's value. */
  line: string;
  thresholds: { value: string; severityLevel: string; metricMode: string; basis: string }[];
  notificationChannel: 'EMAIL' | 'SLACK' | 'TEAMS';
  /** Comma- or space-separated addresses. */
  emails: string;
  slackChannelId: string;
  teamsChannelId: string;
}

export function emptyAlertForm(): AlertForm {
  return {
    name: '',
    line: '',
    thresholds: [
      { value: '100', severityLevel: 'WARNING', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' },
    ],
    notificationChannel: 'EMAIL',
    emails: '',
    slackChannelId: '',
    teamsChannelId: '',
  };
}

export function alertFormOf(a: BudgetAlert): AlertForm {
  return {
    name: a.name,
    line: a.line ?? '',
    thresholds: a.thresholds.map((t) => ({
      value: String(t.value),
      severityLevel: t.severityLevel,
      metricMode: t.metricMode,
      basis: t.basis,
    })),
    notificationChannel: a.notificationChannel as AlertForm['notificationChannel'],
    emails: a.emails.join(', '),
    slackChannelId: a.slackChannelId ?? '',
    teamsChannelId: a.teamsChannelId ?? '',
  };
}

/** The POST/PUT body of the form for `budgetId`, or the first field that is not usable, in words. */
export function alertBody(
  f: AlertForm,
  budgetId: string,
): { ok: true; body: Record<string, unknown> } | { ok: false; message: string } {
  if (!f.name.trim()) return { ok: false, message: 'Name: give the alert a name' };
  if (!f.thresholds.length) return { ok: false, message: 'Thresholds: add at least one' };
  const thresholds = [];
  for (const [i, t] of f.thresholds.entries()) {
    const n = Number(t.value.trim().replaceAll(',', ''));
    if (t.value.trim() === '' || !Number.isFinite(n) || n < 0)
      return { ok: false, message: `Threshold ${i + 1}: "${t.value}" is not a number` };
    thresholds.push({ value: n, severityLevel: t.severityLevel, metricMode: t.metricMode, basis: t.basis });
  }
  const target =
    f.notificationChannel === 'EMAIL'
      ? { emails: f.emails.split(/[\s,;]+/).filter(Boolean) }
      : f.notificationChannel === 'SLACK'
        ? { slackChannelId: f.slackChannelId.trim() }
        : { teamsChannelId: f.teamsChannelId.trim() };
  return {
    ok: true,
    body: {
      name: f.name.trim(),
      budgetId,
      line: f.line === '' ? null : f.line,
      thresholds,
      notificationChannel: f.notificationChannel,
      ...target,
    },
  };
}

/** The newest evaluation that fired with root causes, in the messages' words (the budget page's "why"). */
export function lastCauses(
  history: readonly BudgetAlertEvaluation[],
  currency: string,
): { day: string; causes: { heading: string | null; lines: string[] } } | null {
  const e = history.find((h) => h.triggered && h.rootCauses?.top.length);
  const causes = e?.rootCauses ? causesText(e.rootCauses, currency) : null;
  return e && causes ? { day: e.dataThrough ?? e.evaluatedAt.slice(0, 10), causes } : null;
}

/** The new-budget form (`#/budgets`): what a user types before the first version is saved. */
export interface NewBudgetForm {
  name: string;
  currency: string;
  /** A dimension for the lines, or '' for one total line. */
  groupBy: string;
  startMonth: string;
  months: number;
  owner: string;
  /** Each month's amount of a total budget, when no suggestion is used. */
  monthly: string;
}

/** A suggestion's amounts as a budget's lines: each month's forecast rounded up to a whole unit. */
export function suggestedLines(s: Suggestion, owner: string | null): Budget['lines'] {
  return s.lines.map((l) => ({
    value: l.value,
    owner,
    amounts: Object.fromEntries(Object.entries(l.amounts).map(([m, a]) => [m, Math.ceil(a.value)])),
  }));
}

/**
 * `POST /budgets` from the form: the suggestion's lines when there is one, else one total line of
 * `monthly` for each month; a field the user must fix answered as a message instead.
 */
export function newBudgetBody(
  f: NewBudgetForm,
  suggestion: Suggestion | null,
): { ok: true; body: Record<string, unknown> } | { ok: false; message: string } {
  if (!f.name.trim()) return { ok: false, message: 'Give the budget a name.' };
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(f.startMonth)) return { ok: false, message: 'Pick the first month.' };
  const owner = f.owner.trim() || null;
  let lines: Budget['lines'];
  if (suggestion) lines = suggestedLines(suggestion, owner);
  else if (f.groupBy)
    return { ok: false, message: 'Suggest the amounts of each line first (lines come from the data).' };
  else {
    const amount = Number(f.monthly);
    if (f.monthly.trim() === '' || !Number.isFinite(amount) || amount < 0)
      return { ok: false, message: 'Monthly amount: a number of at least 0.' };
    const months = [f.startMonth];
    while (months.length < f.months) months.push(nextMonth(months[months.length - 1]!));
    lines = [{ value: null, owner, amounts: Object.fromEntries(months.map((m) => [m, amount])) }];
  }
  if (!lines.length) return { ok: false, message: 'The suggestion found no spend for these lines.' };
  return {
    ok: true,
    body: {
      name: f.name.trim(),
      currency: f.currency,
      groupBy: f.groupBy || null,
      startMonth: f.startMonth,
      lines,
    },
  };
}
