import { getDatasource } from '../../db/datasources-repo';
import { BadRequestError } from '../../errors';
import { DEFAULT_METRIC } from '../../model/datasources';
import type { ExplorerRequest, Query } from '../../model/query-model';
import type { WhereClause } from '../../model/where-clause';
import type { MetricId } from '../../warehouse/focus-columns';
import type { WarehouseQueries } from '../../warehouse/port';
import type { BillingInfo, CostSeriesQuery, SeriesRow } from '../../warehouse/warehouse-query';
import { isCommitmentMetricId } from '../commitments/metric-ids';
import { commitmentMetricSeries } from '../commitments/metrics';
import { ExpressionError } from '../common/expr/errors';
import { asCondition, evaluateExpression } from '../common/expr/evaluate';
import type { GroupedSeries, PeriodForecaster } from '../common/expr/grouped-series';
import type { Expression } from '../common/expr/parse';
import { queryMetricPoints, resolveMetricRef } from '../datasources/points';
import { type BudgetQuery, budgetSeries } from './budget';
import { CURRENCY_GROUP, type CurrencyPlan, CurrencyPlanner } from './conversion';
import type { ForecastAnswerStore, ViewContext } from './forecast-answers';
import { type Computed, OTHER, type Window } from './model';
import { type AggBy, addUnits, bucketFloor, bucketKey, bucketStarts, MAX_INTERNAL_BUCKETS } from './period';
import type { ExprQuery, SeriesQuery } from './plan';
import { align, andWhere, groupByOf, portTime, topNOf, warehouseCall } from './rows';
import { type Grouped, reduce, rolling, rollingHistoryStart } from './series';

/** Who and where an explorer request runs for (the route's, the dashboard's, the alert's). */
export interface ExplorerContext extends ViewContext {
  orgId: string;
  now?: Date;
  /**
   * Where forecasts are kept for other processes (`ForecastAnswerStore`); unset: the table's
   * (`adapters/forecast-answers.ts`); null: none (a benchmark without the table).
   */
  forecastAnswers?: ForecastAnswerStore | null;
}

type CostBatchQuery = Omit<CostSeriesQuery, 'metricId' | 'groupBy'>;

interface CostBatch {
  q: CostBatchQuery;
  waiting: { metricId: MetricId; resolve: (rows: SeriesRow[]) => void; reject: (e: unknown) => void }[];
}

/**
 * One explorer run over the warehouse port: each cost or metric query's series over a window's
 * buckets (its rolling window and shift applied, ungrouped cost reads of a tick batched into one
 * scan), and each formula or condition evaluated over them. Semantics: docs/queries.md.
 */
export class Run {
  /** Ungrouped cost reads of this tick, by everything but their metric (see `costRows`). */
  private readonly batches = new Map<string, CostBatch>();
  /** Billing currencies and the conversions applied in this run. */
  readonly money: CurrencyPlanner;

  constructor(
    readonly wh: WarehouseQueries,
    readonly ctx: ExplorerContext,
    readonly request: ExplorerRequest,
    /** Read side by side with the series; awaited only where its figures are needed. */
    readonly info: Promise<BillingInfo>,
    /** The filters of the request's scopes, ANDed into every cost and usage query. */
    readonly scope: WhereClause | null = null,
    /** The model behind `forecast(…)`, when a formula or condition of the request calls it. */
    readonly forecaster?: PeriodForecaster,
  ) {
    this.money = new CurrencyPlanner(wh, ctx.orgId, info);
  }

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

  /**
   * A cost or metric query's series over the window's buckets, with its rolling window and shift.
   * `unranked`: a cost query's groups are read without the request's top N (the forecast's read
   * of groups its filter already names: no ranking over the history to pay for).
   */
  async series(q: SeriesQuery | BudgetQuery, w: Window, options?: { unranked?: boolean }): Promise<Computed> {
    if (q.type === 'budget')
      return budgetSeries(
        { orgId: this.ctx.orgId, currency: this.ctx.currency, info: this.info, money: this.money },
        q,
        w,
      );
    const aggBy = w.period.aggBy;
    const plan = this.fetchPlan(q, w);
    let groups: Grouped[];
    let unit: string | null;
    let currency: string | null = null;
    let money: CurrencyPlan | undefined;
    if (q.type === 'cost') {
      money = await this.money.plan(q.currency ?? this.ctx.currency ?? null, plan.dataStart, plan.end);
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
          ...(options?.unranked ? {} : { topN: topNOf(this.request) }),
          ...(conversion ? { conversion } : {}),
        }),
      );
      groups = align(rows, groupBy, plan.starts, aggBy, 0);
      currency = money.mode === 'split' ? null : money.currency;
      unit = currency;
    } else if (isCommitmentMetricId(q.metricId)) {
      return this.commitmentMetric(q, w, plan);
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
   * A commitment metric (docs/commitments.md, "In the query model"): the summary's figure per
   * bucket, its total the figure over the period's sums (a ratio of sums, not a mean of ratios)
   * unless a rolling window, a shift or an explicit reducer asks for the series reduced. Scopes
   * cannot narrow the commitment facts, so a scoped request is a 400 rather than unscoped figures.
   */
  private async commitmentMetric(
    q: Extract<Query, { type: 'metric' }>,
    w: Window,
    plan: ReturnType<Run['fetchPlan']>,
  ): Promise<Computed> {
    const metricId = q.metricId;
    if (!isCommitmentMetricId(metricId)) throw new Error(`not a commitment metric: ${metricId}`);
    if (this.scope)
      throw new BadRequestError(
        `query ${q.name}: commitment metrics cannot be restricted by a scope; run them without scopeId`,
      );
    const r = await warehouseCall('commitmentFacts', () =>
      commitmentMetricSeries({
        orgId: this.ctx.orgId,
        name: q.name,
        metricId,
        groupBy: groupByOf(q.groupBy),
        starts: plan.starts,
        dataStart: plan.dataStart,
        end: plan.end,
        aggBy: w.period.aggBy,
        period: { start: w.period.start, end: w.period.end },
        currency: this.ctx.currency ?? null,
      }),
    );
    if (r.conversion) this.money.conversions.push(r.conversion);
    const spec = q.rollingAggregation;
    const aggBy = w.period.aggBy;
    const groups = r.groups.map((g) => {
      const values = spec ? rolling(g.values, plan.starts, spec, aggBy) : g.values;
      return { ...g, values: plan.pick.map((i) => (i === undefined ? null : (values[i] ?? null))) };
    });
    const ownTotals = !spec && !q.shiftAmount && !q.reducer;
    return {
      query: q,
      groups,
      unit: q.unitOverride ?? r.unit,
      currency: r.currency,
      ...(r.conversion ? { conversion: r.conversion } : {}),
      ...(ownTotals ? { totals: r.totals } : {}),
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
      result = evaluateExpression(expr, { dates, bucket: aggBy, series, forecaster: this.forecaster });
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
