import type { ExplorerRequest } from '../../model/query-model';
import { getWarehouseQueries } from '../../warehouse/queries';
import type { BillingInfo } from '../../warehouse/warehouse-query';
import { forecasterFor } from '../common/expr/forecaster';
import { mergeConversions } from './conversion';
import type { ExplorerResult, PeriodOut, QueryOut } from './model';
import {
  addMonths,
  bucketStarts,
  comparisonOf,
  DAY_MS,
  dayMs,
  type ResolvedPeriod,
  resolvePeriod,
  ymd,
} from './period';
import { planQueries } from './plan';
import { warehouseCall } from './rows';
import { type ExplorerContext, Run } from './run';
import { scopesWhere } from './scopes';
import { runWindow } from './window';

/**
 * The query engine: answers an explorer request (a widget's `advancedExplorer` request) over the
 * warehouse port. Cost and usage figures come from one SQL statement per query with the
 * aggregation and the top-N ranking pushed down (`costSeries`/`usageSeries`); metrics-datasource
 * points come from the table; formulas and conditions are evaluated by the expression language on
 * the aligned series. Semantics: docs/queries.md.
 *
 * The engine's parts, one file each: planning the statements and lookbacks (`plan.ts`), the
 * currency of cost figures (`conversion.ts`), the warehouse port's rows (`rows.ts`), one run's
 * series and expressions (`run.ts`), a window's answer (`window.ts`) and the forecast
 * (`explorer-forecast.ts`).
 */
export type { ExplorerContext } from './run';

/** Billing months read for `dataThrough`: the current one and the three before. */
const RECENT_MONTHS = 3;

function periodOut(p: ResolvedPeriod): PeriodOut {
  return { startDate: ymd(p.start), endDate: ymd(p.end - DAY_MS), aggBy: p.aggBy };
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
  const [scope, forecaster] = await Promise.all([
    scopesWhere(ctx.orgId, [request.scopeId, ...(ctx.scopeIds ?? [])]),
    forecasterFor(plan.exprs.map((e) => e.expr)),
  ]);
  const wh = await getWarehouseQueries();
  const since = ymd(addMonths(dayMs(now.toISOString()), -RECENT_MONTHS)).slice(0, 7);
  // billingInfo (dataThrough, currency) is read side by side with the series, not before them.
  const infoRead = warehouseCall('billingInfo', () => wh.billingInfo(ctx.orgId, since));
  const dataThroughRead = infoRead.then((info) => dataThroughOf(info, now));
  // Awaited below in every path; these handlers only keep an early failure from being "unhandled".
  infoRead.catch(() => undefined);
  dataThroughRead.catch(() => undefined);
  const run = new Run(wh, ctx, request, infoRead, scope, forecaster);
  const forecast = period.aggBy === 'Hour' ? 0 : (request.period.forecastDays ?? 0);
  // The forecast's code (the model, its backtests) is its own chunk, loaded by the first request
  // that asks for a forecast: answers without one never load it. It and the store's adapter load,
  // and its first reads (the kept answer where the data has a version, else the history's total)
  // start, beside the request's own buckets.
  const forecasting =
    forecast > 0
      ? dataThroughRead.then(async (through) => {
          if (through === null) return undefined;
          const [module, store] = await Promise.all([
            import('./explorer-forecast'),
            ctx.forecastAnswers === undefined
              ? import('./adapters/forecast-answers').then((m) => m.forecastAnswerStore)
              : (ctx.forecastAnswers ?? undefined),
          ]);
          return {
            module,
            store,
            totals: module.prefetchTotals(run, plan.series, through, forecast),
            early: module.prefetchAnswers(run, plan.series, period, through, forecast, store),
          };
        })
      : undefined;
  forecasting?.catch(() => undefined);
  const [primary, compared] = await Promise.all([
    runWindow(run, plan, period, dataThroughRead),
    comparison ? runWindow(run, plan, comparison, dataThroughRead) : undefined,
  ]);
  const info = await infoRead;
  const dataThrough = await dataThroughRead;
  const started = await forecasting;
  if (started && dataThrough !== null) {
    await started.module.addForecast(run, primary.out, primary.done, primary.w, dataThrough, forecast, {
      store: started.store,
      totals: started.totals,
      early: started.early,
    });
  }
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
    conversion: mergeConversions(run.money.conversions, ctx.currency ?? null),
  };
}
