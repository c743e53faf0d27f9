import type { Principal } from '../../auth/principal';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import type { CostMetricId, DASHBOARD_CURRENCIES } from '../../enums';
import { localDay } from '../alerts/dedup';
import type { ExplorerRequest } from '../common/query-model';
import { forecastSeries, forecastTotal } from '../forecast';
import { runExplorer } from '../queries/engine';
import { type ConversionOut, MAX_TOP_N, OTHER, type SeriesOut } from '../queries/model';
import type { Budget } from './model';
import { monthIndex, monthOf } from './rules';
import { loadBudget } from './service';

const DAY_MS = 86_400_000;
/** Days of history before the month that the forecast learns from (its backtest wants 56 or more). */
export const STATUS_HISTORY_DAYS = 168;

const dayMs = (ymd: string) => Date.parse(`${ymd}T00:00:00Z`);
const ymdOf = (t: number) => new Date(t).toISOString().slice(0, 10);

export interface StatusFigures {
  budget: number;
  actual: number;
  forecast: { value: number; lower80: number; upper80: number } | null;
  /** forecast − budget; null without a forecast. */
  delta: number | null;
}

export interface BudgetStatus {
  budgetId: string;
  versionId: string;
  month: string;
  currency: string;
  dataThrough: string | null;
  conversion: ConversionOut | null;
  lines: (StatusFigures & { value: string | null; owner: string | null })[];
  total: StatusFigures;
}

/** The first and last day of a `YYYY-MM` month. */
export function monthDays(month: string): { first: string; last: string } {
  const next = monthOf(monthIndex(month) + 1);
  return { first: `${month}-01`, last: ymdOf(dayMs(`${next}-01`) - DAY_MS) };
}

/**
 * Month-to-date actual and month-end forecast of one daily series (`daily`: day → amount, days up
 * to `dataThrough` only). The forecast is `forecastSeries` over the history up to `dataThrough`
 * and `forecastTotal` over the month (actual days plus forecast days, its 80 % interval on the whole
 * month); a month already complete is its actual with no width; without data, no forecast.
 */
export function monthFigures(
  daily: ReadonlyMap<string, number>,
  month: string,
  dataThrough: string | null,
  budget: number,
): StatusFigures {
  const { first, last } = monthDays(month);
  let actual = 0;
  for (const [d, value] of daily)
    if (d >= first && d <= last && (!dataThrough || d <= dataThrough)) actual += value;
  let forecast: StatusFigures['forecast'] = null;
  if (dataThrough && dataThrough >= last) forecast = { value: actual, lower80: actual, upper80: actual };
  else if (dataThrough) {
    const history = [...daily]
      .filter(([d]) => d <= dataThrough)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([date, value]) => ({ date, value }));
    const horizonDays = Math.round((dayMs(last) - dayMs(dataThrough)) / DAY_MS);
    if (history.length && horizonDays <= 1095) {
      const f = forecastSeries(history, { horizonDays, dataThrough });
      const t = forecastTotal(f, history, first, last);
      forecast = { value: t.value, lower80: t.lower80, upper80: t.upper80 };
    }
  }
  return { budget, actual, forecast, delta: forecast ? forecast.value - budget : null };
}

function addInto(into: Map<string, number>, s: SeriesOut): void {
  for (const p of s.points) if (p.value !== null) into.set(p.date, (into.get(p.date) ?? 0) + p.value);
}

/**
 * GET /budgets/{id}/status: budget, month-to-date actual and month-end forecast per line and in
 * total, for `month` (default: the current month in the organisation's time zone). The actuals are
 * one explorer query (the budget's metric, scope and filter, grouped by `groupBy`, in the budget's
 * currency, converted like the explorer); rows of no line's value make the `Other` line.
 */
export async function budgetStatus(
  principal: Principal,
  budgetId: string,
  month: string | undefined,
  now: Date = new Date(),
): Promise<BudgetStatus> {
  const [budget, timeZone] = await Promise.all([
    loadBudget(principal, budgetId),
    getOrganizationTimezone(principal.orgId),
  ]);
  return (await statusOf(budget, month ?? localDay(now, timeZone).slice(0, 7), timeZone, now)).status;
}

/** A status and the daily series behind it (the budget alerts' message and burn chart read them). */
export interface StatusDetail {
  status: BudgetStatus;
  /** Day → amount, per line value (`null`: the single line of a budget without `groupBy`; `Other`). */
  daily: Map<string | null, Map<string, number>>;
  /** Day → amount of every row (the total). */
  totalDaily: Map<string, number>;
}

/** The status of a loaded budget for `m` (the route's and the budget alerts' one computation). */
export async function statusOf(
  budget: Budget,
  m: string,
  timeZone: string | undefined,
  now: Date,
): Promise<StatusDetail> {
  const { first, last } = monthDays(m);
  // One request, two queries: the total (every row), and with `groupBy` the lines' values only
  // (filtered to them, so the engine groups at most 200 values, never past its group cap); the
  // `Other` line is the total less the lines, day by day.
  const from = ymdOf(dayMs(first) - STATUS_HISTORY_DAYS * DAY_MS);
  const totalRequest = statusRequest({ ...budget, groupBy: null }, from, last);
  const values = budget.lines.flatMap((l) => (l.value === null ? [] : [l.value]));
  const lineQuery =
    budget.groupBy && values.length
      ? statusRequest(
          {
            ...budget,
            whereClause: {
              combinator: 'and',
              rules: [
                ...(budget.whereClause ? [budget.whereClause] : []),
                { field: budget.groupBy, operator: 'in', value: values },
              ],
            },
          },
          from,
          last,
        ).queries.map((q) => ({ ...q, name: 'lines' }))
      : [];
  const result = await runExplorer(
    { ...totalRequest, queries: [...totalRequest.queries, ...lineQuery] },
    {
      orgId: budget.organizationId,
      currency: budget.currency,
      timeZone: timeZone ?? 'UTC',
      now,
    },
  );
  const series = result.queries.find((q) => q.name === 'lines')?.series ?? [];
  const dataThrough = result.dataThrough;
  const total = new Map<string, number>();
  for (const s of result.queries[0]?.series ?? []) addInto(total, s);
  const lines: BudgetStatus['lines'] = [];
  const dailyOf = new Map<string | null, Map<string, number>>();
  const budgetOf = (b: Budget['lines'][number]) => b.amounts[m] ?? 0;
  if (budget.groupBy === null) {
    const line = budget.lines[0];
    dailyOf.set(null, total);
    if (line)
      lines.push({ value: null, owner: line.owner, ...monthFigures(total, m, dataThrough, budgetOf(line)) });
  } else {
    const dim = budget.groupBy;
    for (const line of budget.lines) {
      const daily = new Map<string, number>();
      for (const s of series) if (!s.other && s.group[dim] === line.value) addInto(daily, s);
      dailyOf.set(line.value, daily);
      lines.push({
        value: line.value,
        owner: line.owner,
        ...monthFigures(daily, m, dataThrough, budgetOf(line)),
      });
    }
    const rest = new Map(total);
    for (const daily of dailyOf.values()) for (const [d, x] of daily) rest.set(d, (rest.get(d) ?? 0) - x);
    dailyOf.set(OTHER, rest);
    lines.push({ value: OTHER, owner: null, ...monthFigures(rest, m, dataThrough, 0) });
  }
  const budgetTotal = budget.lines.reduce((a, l) => a + budgetOf(l), 0);
  const status: BudgetStatus = {
    budgetId: budget.id,
    versionId: budget.versionId,
    month: m,
    currency: budget.currency,
    dataThrough,
    conversion: result.conversion,
    lines,
    total: monthFigures(total, m, dataThrough, budgetTotal),
  };
  return { status, daily: dailyOf, totalDaily: total };
}

/**
 * The explorer request of a status: the budget's cost by day from `from` to `last`, grouped by
 * `groupBy` (the budget's own by default) and filtered by its where clause.
 */
export function statusRequest(
  budget: Pick<Budget, 'scopeId' | 'metricId' | 'currency' | 'groupBy' | 'whereClause'>,
  from: string,
  last: string,
): ExplorerRequest {
  return {
    period: { aggBy: 'Day', startDate: from, endDate: last },
    ...(budget.scopeId ? { scopeId: budget.scopeId } : {}),
    limitOverride: MAX_TOP_N,
    queries: [
      {
        type: 'cost',
        name: 'a',
        visible: true,
        colorIndex: 0,
        chartType: 'LINE',
        colorPalette: 'DEFAULT',
        extendDashboardConditions: true,
        metricId: budget.metricId as CostMetricId,
        currency: budget.currency as (typeof DASHBOARD_CURRENCIES)[number],
        ...(budget.groupBy ? { groupBy: budget.groupBy } : {}),
        ...(budget.whereClause ? { whereClause: budget.whereClause } : {}),
      },
    ],
  };
}
