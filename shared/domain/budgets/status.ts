import type { Principal } from '../../auth/principal';
import { remember } from '../../bounded-map';
import type { BurnLines } from '../../charts/burn';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import type { CostMetricId, DASHBOARD_CURRENCIES } from '../../enums';
import type { Budget } from '../../model/budgets';
import type { ConversionOut } from '../../model/conversion';
import type { ExplorerRequest } from '../../model/query-model';
import { getWarehouseQueries } from '../../warehouse/queries';
import { localDay } from '../alerts/dedup';
import { daysBetween } from '../alerts/schedule';
import { forecastSeries, forecastTotal, seriesFingerprint } from '../forecast';
import { runExplorer } from '../queries/engine';
import { MAX_TOP_N, OTHER, type SeriesOut } from '../queries/model';
import { scopesWhere } from '../queries/scopes';
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
  /** The total's burn over the month (the console's burn chart); null without billing data. */
  burn: BurnLines | null;
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

/**
 * What a status read from the warehouse and forecast, kept for the same budget scope, month and
 * data (see `statusOf`): each line's daily series and its month figures without the budget amount
 * (actual and forecast depend on the data only, so a new version with other amounts reuses them).
 */
interface StatusEntry {
  /** The total's days (their fingerprint is in the key). */
  totalFingerprint: string;
  daily: Map<string | null, Map<string, number>>;
  figures: Map<string | null, Omit<StatusFigures, 'budget' | 'delta'>>;
  total: Omit<StatusFigures, 'budget' | 'delta'>;
}
/** Entries by everything but the total's fingerprint (one per budget scope and month), newest last. */
const statusCache = new Map<string, StatusEntry>();
const STATUS_ENTRIES = 64;

/** Empties the status cache (the benchmark's cold runs). */
export function clearStatusCache(): void {
  statusCache.clear();
}

/** A day → amount map's values in day order, fingerprinted (`seriesFingerprint`). */
function fingerprintOf(daily: ReadonlyMap<string, number>): string {
  return seriesFingerprint(
    [...daily].sort(([a], [b]) => a.localeCompare(b)).flatMap(([d, v]) => [dayMs(d), v]),
  );
}

/**
 * The status of a loaded budget for `m` (the route's, the digest's and the budget alerts' one
 * computation). The total's daily series is read on every call (one ungrouped scan); the lines'
 * daily series (a second query filtered to the lines' values, so the engine groups at most 200
 * values, never past its group cap) and every line's forecast are kept and reused while the same
 * budget scope and month read the same data: same total days (a fingerprint of them), same
 * `dataThrough`, same refresh of the organisation's dimensions and scope filter, like the
 * explorer's forecast cache. On a first read both queries run side by side. The `Other` line is
 * the total less the lines, day by day.
 */
export async function statusOf(
  budget: Budget,
  m: string,
  timeZone: string | undefined,
  now: Date,
): Promise<StatusDetail> {
  const { first, last } = monthDays(m);
  const from = ymdOf(dayMs(first) - STATUS_HISTORY_DAYS * DAY_MS);
  const ctx = { orgId: budget.organizationId, currency: budget.currency, timeZone: timeZone ?? 'UTC', now };
  const totalRequest = statusRequest({ ...budget, groupBy: null }, from, last);
  const values = budget.lines.flatMap((l) => (l.value === null ? [] : [l.value]));
  const lineRequest =
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
        )
      : null;
  const wh = await getWarehouseQueries();
  const [catalog, scope] = await Promise.all([
    wh.catalog(budget.organizationId),
    budget.scopeId ? scopesWhere(budget.organizationId, [budget.scopeId]) : null,
  ]);
  const key = JSON.stringify([
    budget.organizationId,
    budget.metricId,
    budget.currency,
    budget.scopeId,
    scope,
    budget.whereClause,
    budget.groupBy,
    values,
    m,
    ctx.timeZone,
    catalog?.refreshedAt ?? null,
  ]);
  const known = statusCache.get(key);
  // Known scope and month: the total first, then the lines only if its days changed.
  const both = !known && lineRequest;
  const result = await runExplorer(
    both
      ? { ...totalRequest, queries: [...totalRequest.queries, { ...lineRequest.queries[0]!, name: 'lines' }] }
      : totalRequest,
    ctx,
  );
  const dataThrough = result.dataThrough;
  const total = new Map<string, number>();
  for (const s of result.queries[0]?.series ?? []) addInto(total, s);
  const totalFingerprint = `${dataThrough}|${fingerprintOf(total)}`;
  let entry = known?.totalFingerprint === totalFingerprint ? known : undefined;
  if (!entry) {
    const series = both
      ? (result.queries.find((q) => q.name === 'lines')?.series ?? [])
      : lineRequest
        ? ((await runExplorer(lineRequest, ctx)).queries[0]?.series ?? [])
        : [];
    entry = measure(budget, m, dataThrough, total, series, totalFingerprint);
  }
  remember(statusCache, key, entry, STATUS_ENTRIES);
  const amountOf = (b: Budget['lines'][number]) => b.amounts[m] ?? 0;
  const withBudget = (f: Omit<StatusFigures, 'budget' | 'delta'>, amount: number): StatusFigures => ({
    budget: amount,
    actual: f.actual,
    forecast: f.forecast ? { ...f.forecast } : null,
    delta: f.forecast ? f.forecast.value - amount : null,
  });
  const lines: BudgetStatus['lines'] = [];
  for (const line of budget.groupBy === null ? budget.lines.slice(0, 1) : budget.lines) {
    const value = budget.groupBy === null ? null : line.value;
    const f = entry.figures.get(value);
    if (f) lines.push({ value, owner: line.owner, ...withBudget(f, amountOf(line)) });
  }
  const other = budget.groupBy === null ? undefined : entry.figures.get(OTHER);
  if (other) lines.push({ value: OTHER, owner: null, ...withBudget(other, 0) });
  const status: BudgetStatus = {
    budgetId: budget.id,
    versionId: budget.versionId,
    month: m,
    currency: budget.currency,
    dataThrough,
    conversion: result.conversion,
    lines,
    total: withBudget(
      entry.total,
      budget.lines.reduce((a, l) => a + amountOf(l), 0),
    ),
    burn: null,
  };
  if (dataThrough) status.burn = burnSeries(total, m, dataThrough, status.total);
  const copy = (daily: Map<string, number>) => new Map(daily);
  return {
    status,
    daily: new Map([...entry.daily].map(([v, d]) => [v, copy(d)])),
    totalDaily: total,
  };
}

/** A day's `Other` amount within this fraction of the day's total is rounding, not spend. */
const RESIDUE = 1e-9;

/** Each line's daily series and month figures (actual, forecast) from the total and the lines' series. */
function measure(
  budget: Budget,
  m: string,
  dataThrough: string | null,
  total: Map<string, number>,
  series: readonly SeriesOut[],
  totalFingerprint: string,
): StatusEntry {
  const daily = new Map<string | null, Map<string, number>>();
  const figures = new Map<string | null, Omit<StatusFigures, 'budget' | 'delta'>>();
  const of = (d: ReadonlyMap<string, number>) => {
    const { actual, forecast } = monthFigures(d, m, dataThrough, 0);
    return { actual, forecast };
  };
  if (budget.groupBy === null) daily.set(null, total);
  else {
    const dim = budget.groupBy;
    for (const line of budget.lines) {
      const d = new Map<string, number>();
      for (const s of series) if (!s.other && s.group[dim] === line.value) addInto(d, s);
      daily.set(line.value, d);
    }
    const rest = new Map(total);
    for (const d of daily.values()) for (const [day, x] of d) rest.set(day, (rest.get(day) ?? 0) - x);
    // The total less the lines leaves floating-point dust (1e-12) on days every row is in a line:
    // that is no spend, and must not show as a "+0.00" over budget.
    for (const [day, x] of rest)
      if (Math.abs(x) <= RESIDUE * Math.max(1, Math.abs(total.get(day) ?? 0))) rest.set(day, 0);
    daily.set(OTHER, rest);
  }
  const totalFigures = of(total);
  for (const [value, d] of daily) figures.set(value, d === total ? totalFigures : of(d));
  return { totalFingerprint, daily, figures, total: totalFigures };
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

const addDay = (d: string, n: number) =>
  new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/**
 * The burn series of a line: the budget spread evenly over the month's days (cumulative), the
 * cumulative actual up to `dataThrough`, and from there a straight path to the month-end forecast
 * with its interval widening the same way.
 */
export function burnSeries(
  daily: ReadonlyMap<string, number>,
  month: string,
  dataThrough: string,
  figures: StatusFigures,
): BurnLines {
  const { first, last } = monthDays(month);
  const n = daysBetween(first, last) + 1;
  const out: BurnLines = { days: [], actual: [], budget: [], forecast: [], lower: [], upper: [] };
  let cum = 0;
  let lastActual = 0;
  const known = Math.min(n, Math.max(0, daysBetween(first, dataThrough) + 1));
  for (let i = 0; i < n; i++) {
    const day = addDay(first, i);
    out.days.push(day);
    out.budget.push((figures.budget * (i + 1)) / n);
    if (i < known) {
      cum += daily.get(day) ?? 0;
      out.actual.push(cum);
      lastActual = cum;
    } else out.actual.push(null);
  }
  const f = figures.forecast;
  for (let i = 0; i < n; i++) {
    if (!f || i < known - 1 || known === n) {
      out.forecast.push(null);
      out.lower.push(null);
      out.upper.push(null);
      continue;
    }
    const share = (i - (known - 1)) / (n - known + (known === 0 ? 0 : 0) || 1);
    const at = (end: number) => lastActual + (end - lastActual) * Math.min(1, share);
    out.forecast.push(at(f.value));
    out.lower.push(at(f.lower80));
    out.upper.push(at(f.upper80));
  }
  return out;
}
