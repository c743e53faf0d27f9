import { getDatasource } from '../../db/datasources-repo';
import { AppError, BadRequestError, DependencyUnavailableError } from '../../errors';
import { log } from '../../log';
import type { MetricId } from '../../warehouse/focus-columns';
import type { WarehouseQueries } from '../../warehouse/port';
import { getWarehouseQueries } from '../../warehouse/queries';
import type {
  BillingInfo,
  CostSeriesQuery,
  CurrencyConversion,
  SeriesRow,
  WhereClause,
} from '../../warehouse/query-model';
import { ExpressionError } from '../common/expr/errors';
import { asCondition, evaluateExpression, type GroupedSeries } from '../common/expr/evaluate';
import { type Expression, parseExpression } from '../common/expr/parse';
import type { ExplorerRequest, Query } from '../common/query-model';
import { DEFAULT_METRIC } from '../datasources/model';
import { queryMetricPoints, resolveMetricRef } from '../datasources/points';
import { FORECAST_BACKTEST_ORIGINS, FORECAST_HISTORY_DAYS } from '../forecast';
import { planConversion } from './conversion';
import {
  type ConversionOut,
  DEFAULT_TOP_N,
  type ExplorerResult,
  type ForecastMethod,
  MAX_TOP_N,
  OTHER,
  type PeriodOut,
  type QueryOut,
  type SeriesOut,
} from './model';
import {
  type AggBy,
  addMonths,
  addUnits,
  bucketFloor,
  bucketKey,
  bucketStarts,
  comparisonOf,
  DAY_MS,
  dayMs,
  MAX_BUCKETS,
  MAX_INTERNAL_BUCKETS,
  type PeriodDefaults,
  type ResolvedPeriod,
  resolvePeriod,
  type ShiftUnit,
  ymd,
} from './period';
import { scopesWhere } from './scopes';
import {
  type Aggregator,
  bucketForecast,
  type Grouped,
  isPartial,
  type RollingSpec,
  reduce,
  rolling,
  rollingHistoryStart,
} from './series';

/**
 * The query engine: answers an explorer request (a widget's `advancedExplorer` request) over the
 * warehouse port. Cost and usage figures come from one SQL statement per query with the
 * aggregation and the top-N ranking pushed down (`costSeries`/`usageSeries`); metrics-datasource
 * points come from the table; formulas and conditions are evaluated by the expression language on
 * the aligned series. Semantics: docs/queries.md.
 */
export interface ExplorerContext {
  orgId: string;
  /** A where clause ANDed into every cost query whose `extendDashboardConditions` is true. */
  conditions?: WhereClause | null;
  /** The dashboard's period, where the request's period has neither a preset nor dates. */
  defaults?: PeriodDefaults;
  now?: Date;
  /** The organisation's IANA timezone (UTC when unset). */
  timeZone?: string;
  /**
   * Scopes the request runs in besides its own `scopeId` (a dashboard's): their filters restrict
   * every cost and usage query (see `scopesWhere`).
   */
  scopeIds?: readonly (string | null | undefined)[];
  /**
   * The currency cost figures are asked in (the request's, the dashboard's, the alert's or the
   * report's); a cost query's own `currency` wins. Unset: each row's billing currency, split by
   * currency when the organisation has several (docs/currency.md).
   */
  currency?: string | null;
}

/** The column a mixed-currency answer is split by when no currency is asked. */
export const CURRENCY_GROUP = 'BillingCurrency';

/** How a cost query's amounts are expressed (see `Run.currencyPlan`). */
type CurrencyPlan =
  | { mode: 'native'; currency: string | null }
  | { mode: 'split'; currencies: string[] }
  | { mode: 'convert'; currency: string; conversion?: CurrencyConversion; out?: ConversionOut };

/** Billing months read for `dataThrough`: the current one and the three before. */
const RECENT_MONTHS = 3;

type SeriesQuery = Extract<Query, { type: 'cost' | 'metric' }>;
type ExprQuery = Extract<Query, { type: 'formula' | 'condition' }>;

interface Plan {
  series: SeriesQuery[];
  /** Formulas and conditions in evaluation order (each after what it references). */
  exprs: { query: ExprQuery; expr: Expression }[];
  /** Days of history before the period the expressions need, at most. */
  historyDays: number;
}

function lookbackDays(l: { days: number; months: number }): number {
  return l.days + 31 * l.months;
}

function shiftDays(q: { shiftAmount?: number | undefined; shiftUnit?: ShiftUnit | undefined }): number {
  if (!q.shiftAmount || !q.shiftUnit) return 0;
  const n = Math.max(0, q.shiftAmount);
  return q.shiftUnit === 'MONTH' ? n * 31 : q.shiftUnit === 'WEEK' ? n * 7 : n;
}

function rollingDays(spec: RollingSpec | undefined): number {
  if (!spec) return 0;
  if (spec.window.preset) return spec.window.preset === 'WEEK' ? 7 : 31;
  return spec.window.relativeDays ?? 0;
}

/**
 * Parses every formula and condition against the request's query names and orders them so each
 * comes after the formulas it references. An unknown name (with its position), a syntax error or
 * a cycle is a 400 naming the query.
 */
export function planQueries(queries: readonly Query[]): Plan {
  const names = queries.map((q) => q.name);
  const byName = new Map(queries.map((q) => [q.name, q]));
  const parsed = new Map<string, Expression>();
  for (const q of queries) {
    if (q.type !== 'formula' && q.type !== 'condition') continue;
    const source = q.type === 'formula' ? q.formula : q.expression;
    try {
      parsed.set(q.name, parseExpression(source, { names, maxLength: 4000 }));
    } catch (error) {
      if (error instanceof ExpressionError) throw new BadRequestError(`query ${q.name}: ${error.message}`);
      throw error;
    }
  }
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    const s = state.get(name);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...path.slice(path.indexOf(name)), name];
      throw new BadRequestError(`formulas reference each other in a cycle: ${cycle.join(' -> ')}`);
    }
    state.set(name, 'visiting');
    for (const ref of parsed.get(name)?.refs ?? []) if (parsed.has(ref)) visit(ref, [...path, name]);
    state.set(name, 'done');
    order.push(name);
  };
  for (const name of parsed.keys()) visit(name, []);

  // History each query must cover for the expressions reading it (nested windows add up).
  const need = new Map<string, number>();
  for (const name of [...order].reverse()) {
    const q = byName.get(name) as ExprQuery;
    const own =
      lookbackDays(parsed.get(name)!.lookback) +
      (q.type === 'formula' ? rollingDays(q.rollingAggregation) + shiftDays(q) : 0);
    const total = (need.get(name) ?? 0) + own;
    for (const ref of parsed.get(name)!.refs) need.set(ref, Math.max(need.get(ref) ?? 0, total));
  }
  return {
    series: queries.filter((q): q is SeriesQuery => q.type === 'cost' || q.type === 'metric'),
    exprs: order.map((name) => ({ query: byName.get(name) as ExprQuery, expr: parsed.get(name)! })),
    historyDays: Math.max(0, ...need.values()),
  };
}

/** Any warehouse failure that is not a request error is the 503 of the route. */
async function warehouseCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AppError) throw error;
    log.error('query engine: warehouse call failed', { what, error });
    throw new DependencyUnavailableError('WAREHOUSE_UNAVAILABLE', { cause: error });
  }
}

function topNOf(request: ExplorerRequest): number {
  const asked = request.limitOverride ?? (request.displayOptions?.topN || undefined) ?? DEFAULT_TOP_N;
  return Math.min(asked, MAX_TOP_N);
}

function andWhere(a: WhereClause | null | undefined, b: WhereClause | null | undefined): WhereClause | null {
  if (!a?.rules.length) return b?.rules.length ? b : null;
  if (!b?.rules.length) return a;
  return { combinator: 'and', rules: [a, b] };
}

/** A timestamp for the port: a date at midnight, or the full instant for hours. */
function portTime(t: number): string {
  return t % DAY_MS === 0 ? ymd(t) : new Date(t).toISOString();
}

function groupKeyOf(row: SeriesRow, groupBy: string[]): Record<string, string | null> {
  return Object.fromEntries(groupBy.map((g) => [g, row.other ? OTHER : row.group[g] || null]));
}

/** Rows of the port into series aligned to `starts` (missing buckets: `fill`). */
function align(
  rows: readonly SeriesRow[],
  groupBy: string[],
  starts: readonly number[],
  aggBy: AggBy,
  fill: number | null,
): Grouped[] {
  const index = new Map(starts.map((t, i) => [bucketKey(t, aggBy), i]));
  const groups = new Map<string, Grouped>();
  for (const r of rows) {
    const key = groupKeyOf(r, groupBy);
    const id = `${r.other ? '1' : '0'}${JSON.stringify(groupBy.map((g) => key[g]))}`;
    let g = groups.get(id);
    if (!g) {
      g = { key, values: starts.map(() => fill), ...(r.other ? { other: true as const } : {}) };
      groups.set(id, g);
    }
    const i = aggBy === 'Period' ? 0 : index.get(r.period);
    if (i !== undefined) g.values[i] = (g.values[i] ?? 0) + r.value;
  }
  if (!groupBy.length && !groups.size) groups.set('', { key: {}, values: starts.map(() => fill) });
  return [...groups.values()];
}

interface Window {
  /** Buckets the expressions see (the period's, preceded by history). */
  starts: number[];
  period: ResolvedPeriod;
  /** Index in `starts` of the period's first bucket. */
  offset: number;
}

interface Computed {
  query: Query;
  groups: Grouped[];
  unit: string | null;
  currency: string | null;
  /** Billing currencies of a cost query answered per currency (no total across them). */
  currencies?: string[];
  conversion?: ConversionOut;
}

type CostBatchQuery = Omit<CostSeriesQuery, 'metricId' | 'groupBy'>;

interface CostBatch {
  q: CostBatchQuery;
  waiting: { metricId: MetricId; resolve: (rows: SeriesRow[]) => void; reject: (e: unknown) => void }[];
}

class Run {
  /** Ungrouped cost reads of this tick, by everything but their metric (see `costRows`). */
  private readonly batches = new Map<string, CostBatch>();
  /** Billing currencies from a month on (`billingInfo`), read once per month per run. */
  private readonly infos = new Map<string, Promise<BillingInfo>>();
  /** Every conversion applied in this run (merged into the answer's `conversion`). */
  readonly conversions: ConversionOut[] = [];

  constructor(
    readonly wh: WarehouseQueries,
    readonly ctx: ExplorerContext,
    readonly request: ExplorerRequest,
    /** Read side by side with the series; awaited only where its figures are needed. */
    readonly info: Promise<BillingInfo>,
    /** The filters of the request's scopes, ANDed into every cost and usage query. */
    readonly scope: WhereClause | null = null,
  ) {}

  /**
   * A cost query's rows. Ungrouped queries asked in the same tick that differ only in their
   * metric (`a / b` over BilledCost and ListCost) are read together by `costSeriesMany`: one scan
   * for all of them instead of one each.
   */
  private costRows(q: CostSeriesQuery): Promise<SeriesRow[]> {
    if (groupByOf(q.groupBy).length) return this.wh.costSeries(q);
    const { metricId, groupBy: _groupBy, ...rest } = q;
    const key = JSON.stringify(rest);
    let batch = this.batches.get(key);
    if (!batch) {
      const created: CostBatch = { q: rest, waiting: [] };
      batch = created;
      this.batches.set(key, created);
      queueMicrotask(() => {
        this.batches.delete(key);
        void this.flush(created);
      });
    }
    const target = batch;
    return new Promise((resolve, reject) => target.waiting.push({ metricId, resolve, reject }));
  }

  private async flush(batch: CostBatch): Promise<void> {
    const ids = [...new Set(batch.waiting.map((w) => w.metricId))];
    try {
      const lists =
        ids.length === 1
          ? [await this.wh.costSeries({ ...batch.q, metricId: ids[0]!, groupBy: null })]
          : await this.wh.costSeriesMany(batch.q, ids);
      for (const w of batch.waiting) w.resolve(lists[ids.indexOf(w.metricId)] ?? []);
    } catch (error) {
      for (const w of batch.waiting) w.reject(error);
    }
  }

  private infoSince(month: string): Promise<BillingInfo> {
    let read = this.infos.get(month);
    if (!read) {
      read = warehouseCall('billingInfo', () => this.wh.billingInfo(this.ctx.orgId, month));
      this.infos.set(month, read);
    }
    return read;
  }

  /**
   * How a cost query over `[start, end)` expresses its amounts. With a target currency: the
   * billing currencies of the range's months (and one month either side) other than the target
   * are converted at their per-day factors; with none and several billing currencies, the answer
   * is split by currency; else the single billing currency, unconverted.
   */
  private async currencyPlan(target: string | null, start: number, end: number): Promise<CurrencyPlan> {
    const since = ymd(addMonths(dayMs(ymd(start)), -1)).slice(0, 7);
    const [recent, range] = await Promise.all([this.info, this.infoSince(since)]);
    if (!target) {
      if (range.currencies.length > 1) return { mode: 'split', currencies: range.currencies };
      // One currency from the range on (or none there: the recent months' single one).
      const one = range.currencies.length ? range.currencies : recent.currencies;
      return { mode: 'native', currency: one.length === 1 ? one[0]! : null };
    }
    const sources = range.currencies.filter((c) => c !== target);
    if (!sources.length) return { mode: 'convert', currency: target };
    const from = ymd(start);
    const to = ymd(Math.ceil(end / DAY_MS) * DAY_MS);
    const { conversion, out } = await planConversion(sources, target, from, to, range.lastChargeDay);
    this.conversions.push(out);
    return { mode: 'convert', currency: target, conversion, out };
  }

  /** The data range and buckets of a series query for the window, after its shift and rolling window. */
  private fetchPlan(q: SeriesQuery, w: Window) {
    const aggBy = w.period.aggBy;
    const s = q.shiftAmount && q.shiftUnit ? { n: q.shiftAmount, unit: q.shiftUnit } : undefined;
    const shift = (t: number) => (s ? addUnits(t, -s.n, s.unit) : t);
    const first = w.offset > 0 ? w.starts[0]! : w.period.start;
    let start = shift(first);
    const end = shift(w.period.end);
    if (q.rollingAggregation)
      start = Math.min(start, rollingHistoryStart(start, q.rollingAggregation, aggBy));
    const starts = aggBy === 'Period' ? [start] : bucketStarts(start, end, aggBy, MAX_INTERNAL_BUCKETS);
    // Rows from `start` on: a first bucket that starts before the period holds the period's days only.
    const dataStart = start;
    // Each output bucket reads the fetched bucket holding its shifted start.
    const at = new Map(starts.map((t, i) => [t, i]));
    const pick = w.starts.map((t) => (aggBy === 'Period' ? 0 : at.get(bucketFloor(shift(t), aggBy))));
    return { starts, dataStart, end, pick };
  }

  /** A cost or metric query's series over the window's buckets, with its rolling window and shift. */
  async series(q: SeriesQuery, w: Window): Promise<Computed> {
    const aggBy = w.period.aggBy;
    const plan = this.fetchPlan(q, w);
    let groups: Grouped[];
    let unit: string | null;
    let currency: string | null = null;
    let money: CurrencyPlan | undefined;
    if (q.type === 'cost') {
      money = await this.currencyPlan(q.currency ?? this.ctx.currency ?? null, plan.dataStart, plan.end);
      let groupBy = groupByOf(q.groupBy);
      if (money.mode === 'split' && !groupBy.some((g) => g.toLowerCase() === CURRENCY_GROUP.toLowerCase()))
        groupBy = [...groupBy, CURRENCY_GROUP];
      const where = andWhere(
        q.extendDashboardConditions ? andWhere(q.whereClause, this.ctx.conditions) : q.whereClause,
        this.scope,
      );
      const conversion = money.mode === 'convert' ? money.conversion : undefined;
      const rows = await warehouseCall('costSeries', () =>
        this.costRows({
          orgId: this.ctx.orgId,
          metricId: q.metricId ?? 'cost',
          groupBy,
          whereClause: where ?? null,
          granularity: aggBy,
          start: portTime(plan.dataStart),
          end: portTime(plan.end),
          topN: topNOf(this.request),
          ...(conversion ? { conversion } : {}),
        }),
      );
      groups = align(rows, groupBy, plan.starts, aggBy, 0);
      currency = money.mode === 'split' ? null : money.currency;
      unit = currency;
    } else {
      ({ groups, unit } = await this.metric(q, plan.starts, plan.dataStart, plan.end, aggBy));
    }
    if (q.rollingAggregation) {
      const spec = q.rollingAggregation;
      groups = groups.map((g) => ({ ...g, values: rolling(g.values, plan.starts, spec, aggBy) }));
    }
    groups = groups.map((g) => ({
      ...g,
      values: plan.pick.map((i) => (i === undefined ? null : (g.values[i] ?? null))),
    }));
    return {
      query: q,
      groups,
      unit: q.type === 'metric' ? (q.unitOverride ?? unit) : unit,
      currency,
      ...(money?.mode === 'split' ? { currencies: money.currencies } : {}),
      ...(money?.mode === 'convert' && money.out ? { conversion: money.out } : {}),
    };
  }

  /**
   * A metric query: a metrics datasource's points when `metricId` names one of the organisation's
   * datasources (`<datasourceId>[/<metric>]`), else a usage metric (ConsumedQuantity of that
   * consumed unit, summed per bucket).
   */
  private async metric(
    q: Extract<Query, { type: 'metric' }>,
    starts: number[],
    dataStart: number,
    end: number,
    aggBy: AggBy,
  ): Promise<{ groups: Grouped[]; unit: string | null }> {
    const groupBy = groupByOf(q.groupBy);
    const ref = resolveMetricRef(q.metricId, q.rawMetric);
    const ds = /^[A-Za-z0-9_.:-]{1,128}$/.test(ref.datasourceId)
      ? await getDatasource(this.ctx.orgId, ref.datasourceId, false)
      : undefined;
    if (ds && !ds.archivedAt) {
      if (groupBy.some((g) => g !== 'metric'))
        throw new BadRequestError(`query ${q.name}: a datasource metric can only be grouped by metric`);
      const { points } = await queryMetricPoints(
        this.ctx.orgId,
        ds.id,
        ref.metricName ?? (groupBy.length ? undefined : DEFAULT_METRIC),
        new Date(dataStart),
        new Date(end),
      );
      const index = new Map(starts.map((t, i) => [t, i]));
      const buckets = new Map<string, { key: Record<string, string | null>; values: number[][] }>();
      for (const p of points) {
        const i = index.get(bucketFloor(Date.parse(p.timestamp), aggBy, dataStart));
        if (i === undefined) continue;
        const key: Record<string, string | null> = groupBy.length ? { metric: p.metric } : {};
        const id = JSON.stringify(key);
        const g = buckets.get(id) ?? { key, values: starts.map((): number[] => []) };
        g.values[i]!.push(p.value);
        buckets.set(id, g);
      }
      const groups = [...buckets.values()].map((g) => ({
        key: g.key,
        values: g.values.map((vals) => reduce(vals, q.aggregator)),
      }));
      if (!groups.length && !groupBy.length) groups.push({ key: {}, values: starts.map(() => null) });
      return { groups, unit: ds.unit };
    }
    const rows = await warehouseCall('usageSeries', () =>
      this.wh.usageSeries({
        orgId: this.ctx.orgId,
        consumedUnit: q.metricId,
        groupBy,
        whereClause: this.scope,
        granularity: aggBy,
        start: portTime(dataStart),
        end: portTime(end),
        topN: topNOf(this.request),
      }),
    );
    return { groups: align(rows, groupBy, starts, aggBy, 0), unit: q.metricId };
  }

  /** Evaluates a formula or condition over the series computed so far. */
  expression(q: ExprQuery, expr: Expression, w: Window, done: Map<string, Computed>): Computed {
    const aggBy = w.period.aggBy;
    const dates = w.starts.map((t) => bucketKey(t, aggBy));
    const series: Record<string, GroupedSeries> = {};
    for (const ref of expr.refs) series[ref] = { groups: done.get(ref)!.groups };
    let result: GroupedSeries;
    try {
      result = evaluateExpression(expr, { dates, bucket: aggBy, series });
    } catch (error) {
      if (error instanceof ExpressionError) throw new BadRequestError(`query ${q.name}: ${error.message}`);
      throw error;
    }
    if (q.type === 'condition') result = asCondition(result);
    let groups: Grouped[] = result.groups.map((g) => ({
      key: g.key,
      values: g.values,
      ...(Object.values(g.key).includes(OTHER) ? { other: true as const } : {}),
    }));
    if (q.type === 'formula' && q.rollingAggregation) {
      const spec = q.rollingAggregation;
      groups = groups.map((g) => ({ ...g, values: rolling(g.values, w.starts, spec, aggBy) }));
    }
    if (q.type === 'formula' && q.shiftAmount && q.shiftUnit) {
      const at = new Map(w.starts.map((t, i) => [t, i]));
      const { shiftAmount: n, shiftUnit: unit } = q;
      const pick = w.starts.map((t) => at.get(bucketFloor(addUnits(t, -n, unit), aggBy, w.period.start)));
      groups = groups.map((g) => ({
        ...g,
        values: pick.map((i) => (i === undefined ? null : (g.values[i] ?? null))),
      }));
    }
    return { query: q, groups, unit: null, currency: null };
  }
}

function groupByOf(groupBy: string | string[] | null | undefined): string[] {
  if (groupBy === null || groupBy === undefined || groupBy === '') return [];
  return Array.isArray(groupBy) ? groupBy : [groupBy];
}

function periodOut(p: ResolvedPeriod): PeriodOut {
  return { startDate: ymd(p.start), endDate: ymd(p.end - DAY_MS), aggBy: p.aggBy };
}

function defaultReducer(q: Query): Aggregator {
  if (q.type === 'cost') return q.reducer ?? 'SUM';
  if (q.type === 'metric') return q.reducer ?? q.aggregator;
  return 'SUM';
}

/** Sums groups bucket by bucket (nulls skipped; a bucket of nulls is null). */
function sumGroups(groups: Grouped[], length: number): (number | null)[] {
  return Array.from({ length }, (_, i) =>
    reduce(
      groups.map((g) => g.values[i] ?? null),
      'SUM',
    ),
  );
}

/** The answer for one window: the period's buckets with partial marks, totals, top-N order. */
function present(
  c: Computed,
  w: Window,
  dataThrough: number | null,
  request: ExplorerRequest,
  totalsOf: (c: Computed) => { series: (number | null)[]; query: number | null } | undefined,
): QueryOut {
  const aggBy = w.period.aggBy;
  const starts = w.starts.slice(w.offset);
  const reducer = defaultReducer(c.query);
  const exprTotals = totalsOf(c);
  let series: SeriesOut[] = c.groups.map((g, gi) => {
    const values = g.values.slice(w.offset);
    const points = starts.map((t, i) => ({
      date: bucketKey(t, aggBy),
      value: values[i] ?? null,
      ...(isPartial(t, aggBy, w.period.end, dataThrough) ? { partial: true as const } : {}),
    }));
    return {
      group: g.key,
      points,
      total: exprTotals ? (exprTotals.series[gi] ?? null) : reduce(values, reducer),
      ...(g.other ? { other: true as const } : {}),
    };
  });
  if (request.displayOptions?.hideEmptyRows)
    series = series.filter((s) => s.points.some((p) => p.value !== null && p.value !== 0));
  series.sort(
    (a, b) => (a.other ? 1 : 0) - (b.other ? 1 : 0) || (b.total ?? -Infinity) - (a.total ?? -Infinity),
  );
  const whole = sumGroups(
    c.groups.map((g) => ({ ...g, values: g.values.slice(w.offset) })),
    starts.length,
  );
  return {
    name: c.query.name,
    type: c.query.type,
    alias: c.query.alias ?? null,
    unit: c.unit,
    currency: c.currency,
    ...(c.currencies ? { currencies: c.currencies } : {}),
    ...(c.conversion ? { conversion: c.conversion } : {}),
    series,
    // Amounts in several currencies are never summed into one figure.
    total: c.currencies ? null : exprTotals ? exprTotals.query : reduce(whole, reducer),
  };
}

async function runWindow(
  run: Run,
  plan: Plan,
  period: ResolvedPeriod,
  dataThroughOfInfo: Promise<number | null>,
) {
  const aggBy = period.aggBy;
  bucketStarts(period.start, period.end, aggBy, MAX_BUCKETS); // the cap applies to the period itself
  const history = aggBy === 'Period' ? 0 : plan.historyDays;
  const starts =
    aggBy === 'Period'
      ? [period.start]
      : bucketStarts(period.start - history * DAY_MS, period.end, aggBy, MAX_INTERNAL_BUCKETS);
  const offset = aggBy === 'Period' ? 0 : starts.indexOf(bucketFloor(period.start, aggBy));
  const w: Window = { starts, period, offset };
  const done = new Map<string, Computed>();
  const computed = await Promise.all(plan.series.map((q) => run.series(q, w)));
  for (const c of computed) done.set(c.query.name, c);
  for (const { query, expr } of plan.exprs) done.set(query.name, run.expression(query, expr, w, done));
  const dataThrough = await dataThroughOfInfo;

  // A formula's total is the formula over its operands' totals when it reads no history;
  // otherwise (and for conditions) its series reduced (conditions: SUM, the buckets that hold).
  const totals = new Map<string, { series: (number | null)[]; query: number | null }>();
  const out: QueryOut[] = [];
  const totalsOf = (c: Computed) => totals.get(c.query.name);
  for (const q of run.request.queries) {
    const c = done.get(q.name)!;
    const parsed = plan.exprs.find((e) => e.query.name === q.name);
    if (
      parsed &&
      q.type === 'formula' &&
      lookbackDays(parsed.expr.lookback) === 0 &&
      !q.rollingAggregation &&
      !q.shiftAmount
    ) {
      try {
        const perGroup: Record<string, GroupedSeries> = {};
        const whole: Record<string, GroupedSeries> = {};
        for (const ref of parsed.expr.refs) {
          const refOut =
            out.find((o) => o.name === ref) ?? present(done.get(ref)!, w, dataThrough, run.request, totalsOf);
          perGroup[ref] = {
            groups: done.get(ref)!.groups.map((g) => ({ key: g.key, values: [refTotal(refOut, g.key)] })),
          };
          whole[ref] = { groups: [{ key: {}, values: [refOut.total] }] };
        }
        const bucket = { dates: [ymd(period.start)], bucket: 'Period' as const };
        const byGroup = evaluateExpression(parsed.expr, { ...bucket, series: perGroup });
        const overall = evaluateExpression(parsed.expr, { ...bucket, series: whole });
        const ids = c.groups.map((g) => JSON.stringify(g.key));
        totals.set(q.name, {
          series: ids.map(
            (id) => byGroup.groups.find((g) => JSON.stringify(g.key) === id)?.values[0] ?? null,
          ),
          query: overall.groups[0]?.values[0] ?? null,
        });
      } catch {
        // Fall back to the reducer over the series.
      }
    }
    out.push(present(c, w, dataThrough, run.request, totalsOf));
  }
  return { out, done, w };
}

function refTotal(refOut: QueryOut, key: Record<string, string | null>): number | null {
  const id = JSON.stringify(key);
  return refOut.series.find((s) => JSON.stringify(s.group) === id)?.total ?? null;
}

/**
 * `dataThrough`: the day before the latest charge day in the organisation's recent billing months,
 * and at most two days before today (UTC). Providers restate the last 24–48 hours, and the latest
 * day of an export is usually still filling.
 */
export function dataThroughOf(info: BillingInfo, now: Date): number | null {
  if (!info.lastChargeDay) return null;
  const today = dayMs(now.toISOString());
  return Math.min(dayMs(info.lastChargeDay) - DAY_MS, today - 2 * DAY_MS);
}

/**
 * Days of history the explorer's forecast reads: enough for the model's backtest at the requested
 * horizon (a four-week fit window, 84 daily origins and the horizon), and at least a year, so the
 * month-start/end charges are seen a dozen times. At most two years (a 1,095-day horizon
 * backtests at a shorter one: accuracy.horizonDays says so).
 */
export function forecastHistoryDays(days: number, method: ForecastMethod = 'auto'): number {
  if (method === 'weekday-mean') return FORECAST_HISTORY_DAYS; // the baseline reads its four weeks
  return Math.min(730, Math.max(365, 28 + FORECAST_BACKTEST_ORIGINS + days));
}

/**
 * Adds forecast buckets and their accuracy to each cost series: the forecasting model over the
 * series' own daily history (docs/queries.md, "Forecast"), `period.forecastMethod` forcing a method
 * (`weekday-mean` is the legacy same-weekday mean).
 */
async function addForecast(
  run: Run,
  queries: QueryOut[],
  done: Map<string, Computed>,
  w: Window,
  dataThrough: number,
  days: number,
) {
  const aggBy = w.period.aggBy;
  if (aggBy === 'Hour' || days <= 0) return;
  const method = run.request.period.forecastMethod ?? 'auto';
  for (const out of queries) {
    const c = done.get(out.name);
    if (c?.query.type !== 'cost') continue;
    const q = c.query;
    const from = dataThrough - (forecastHistoryDays(days, method) - 1) * DAY_MS;
    const day: Window = {
      starts: bucketStarts(from, dataThrough + DAY_MS, 'Day', MAX_INTERNAL_BUCKETS),
      period: { start: from, end: dataThrough + DAY_MS, aggBy: 'Day' },
      offset: 0,
    };
    const history = await run.series(
      { ...q, rollingAggregation: undefined, shiftAmount: undefined, shiftUnit: undefined },
      day,
    );
    for (const s of out.series) {
      const id = JSON.stringify(s.group);
      const groups = history.groups.filter((g) =>
        s.other
          ? g.other || !out.series.some((x) => JSON.stringify(x.group) === JSON.stringify(g.key))
          : JSON.stringify(g.key) === id && !g.other,
      );
      const daily = day.starts.map((t, i) => ({
        date: ymd(t),
        value: groups.reduce((acc, g) => acc + (g.values[i] ?? 0), 0),
      }));
      const f = bucketForecast(daily, { dataThrough, days, method }, aggBy, w.period, (t) =>
        bucketKey(t, aggBy),
      );
      s.forecast = f.points;
      s.forecastAccuracy = f.accuracy;
    }
  }
}

/** Answers an explorer request for the context's organisation. */
export async function runExplorer(request: ExplorerRequest, ctx: ExplorerContext): Promise<ExplorerResult> {
  const now = ctx.now ?? new Date();
  const plan = planQueries(request.queries);
  const period = resolvePeriod(request.period, {
    now,
    timeZone: ctx.timeZone ?? 'UTC',
    ...(ctx.defaults ? { defaults: ctx.defaults } : {}),
  });
  const comparison = request.period.comparisonPeriod?.enabled
    ? comparisonOf(period, request.period.comparisonPeriod)
    : undefined;
  // Validate both periods' sizes before reading anything.
  bucketStarts(period.start, period.end, period.aggBy);
  if (comparison) bucketStarts(comparison.start, comparison.end, comparison.aggBy);
  const scope = await scopesWhere(ctx.orgId, [request.scopeId, ...(ctx.scopeIds ?? [])]);
  const wh = await getWarehouseQueries();
  const since = ymd(addMonths(dayMs(now.toISOString()), -RECENT_MONTHS)).slice(0, 7);
  // billingInfo (dataThrough, currency) is read side by side with the series, not before them.
  const infoRead = warehouseCall('billingInfo', () => wh.billingInfo(ctx.orgId, since));
  const dataThroughRead = infoRead.then((info) => dataThroughOf(info, now));
  // Awaited below in every path; these handlers only keep an early failure from being "unhandled".
  infoRead.catch(() => undefined);
  dataThroughRead.catch(() => undefined);
  const run = new Run(wh, ctx, request, infoRead, scope);
  const [primary, compared] = await Promise.all([
    runWindow(run, plan, period, dataThroughRead),
    comparison ? runWindow(run, plan, comparison, dataThroughRead) : undefined,
  ]);
  const info = await infoRead;
  const dataThrough = await dataThroughRead;
  const forecast = request.period.forecastDays ?? 0;
  if (forecast > 0 && dataThrough !== null)
    await addForecast(run, primary.out, primary.done, primary.w, dataThrough, forecast);
  const visible = (qs: QueryOut[]) =>
    qs.filter((o) => request.queries.find((q) => q.name === o.name)?.visible !== false);
  return {
    period: periodOut(period),
    queries: visible(primary.out),
    ...(comparison && compared
      ? { comparison: { period: periodOut(comparison), queries: visible(compared.out) } }
      : {}),
    dataThrough: dataThrough === null ? null : ymd(dataThrough),
    currency: ctx.currency ?? (info.currencies.length === 1 ? info.currencies[0]! : null),
    conversion: mergeConversions(run.conversions, ctx.currency ?? null),
  };
}

/**
 * The answer's `conversion`: every conversion to the answer's currency merged (source currencies,
 * rate sources and the range of publication days), or null when nothing was converted to it.
 */
export function mergeConversions(
  list: readonly ConversionOut[],
  target: string | null,
): ConversionOut | null {
  const to = target ?? list[0]?.to;
  const same = list.filter((c) => c.to === to && c.rates);
  if (!to || !same.length) return null;
  const from = [...new Set(same.flatMap((c) => c.from))].sort();
  const sources = [...new Set(same.flatMap((c) => (c.source ? c.source.split(', ') : [])))].sort();
  const starts = same.map((c) => c.rates!.from).sort();
  const ends = same.map((c) => c.rates!.to).sort();
  return {
    from,
    to,
    source: sources.join(', ') || null,
    rates: { from: starts[0]!, to: ends[ends.length - 1]! },
  };
}
