/**
 * The budgets pages' data shaping (pure, no DOM): `GET /budgets/{id}/status` → the rows of the
 * status table, every figure in the budget's currency (docs/budgets.md, "Status").
 */
import { formatFigure } from '../../shared/charts/spec';
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

/** `GET /budgets/{id}/status` (the service's own type: the console only reads it). */
export type { BudgetStatus };

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
