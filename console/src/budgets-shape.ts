/**
 * The budgets pages' data shaping (pure, no DOM): `GET /budgets/{id}/status` → the rows of the
 * status table, every figure in the budget's currency (docs/budgets.md, "Status").
 */
import { formatFigure } from '../../shared/charts/spec';
import type { BudgetAlert, BudgetAlertEvaluation } from '../../shared/domain/budgets/alerts/model';
import type { BudgetStatus, StatusFigures } from '../../shared/domain/budgets/status';
import { monthLabel } from './words';

export interface Budget {
  id: string;
  name: string;
  description: string;
  currency: string;
  groupBy: string | null;
  startMonth: string;
  versionNumber: number;
  lines: { value: string | null; owner: string | null }[];
  archivedAt: string | null;
}

/** `GET /budgets/{id}/status`, a budget alert and its evaluations (the service's own types: the console only reads them). */
export type { BudgetAlert, BudgetAlertEvaluation, BudgetStatus };

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
