import { MissingRateError } from '../../../warehouse/sql/conversion';
import { bucketForecast, forecastHistoryDays } from '../../queries/explorer-forecast';
import type { ExplorerResult } from '../../queries/model';
import { DAY_MS, ymd } from '../../queries/period';
import { askCost, type Resolved } from './cost-query';
import type { MonthForecast, RenderContext } from './widget-data';

/**
 * The month in progress forecast to its end (the month holding the day after `dataThrough`): the
 * widget's cost query, ungrouped, in its currency, by the explorer's forecast (the model), its
 * interval on the whole month. One read: the daily history the explorer's forecast would read
 * (`forecastHistoryDays` days through `dataThrough`, the month's actual days included) and
 * `bucketForecast` over it, so the figures are the explorer's without its second call; DIGESTs of
 * a report asking the same query share that read (`RenderContext.histories`). Null without billing
 * data, or when a rate its history needs is missing.
 */
export async function monthForecast(
  ctx: RenderContext,
  r: Resolved,
  dataThrough: string | null,
): Promise<MonthForecast | null> {
  if (!dataThrough) return null;
  const through = Date.parse(`${dataThrough}T00:00:00Z`);
  const next = new Date(through + DAY_MS);
  const month = next.toISOString().slice(0, 7);
  const monthStart = Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), 1);
  const monthEnd = Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1);
  const days = Math.round((monthEnd - DAY_MS - through) / DAY_MS);
  const from = `${ymd(through - (forecastHistoryDays(days) - 1) * DAY_MS)}T00:00:00Z`;
  const key = JSON.stringify([r.metricId, r.query?.whereClause ?? null, r.currency, from, dataThrough]);
  ctx.histories ??= new Map();
  let read = ctx.histories.get(key);
  if (!read) {
    read = askCost(ctx, r, { startDate: from, endDate: `${dataThrough}T00:00:00Z`, aggBy: 'Day' }, []);
    ctx.histories.set(key, read);
  }
  // The forecast reads history before the widget's period; a rate missing there (the widget's own
  // figures had theirs) leaves the digest without its forecast line rather than failing it.
  let res: ExplorerResult;
  try {
    res = await read;
  } catch (error) {
    if (error instanceof MissingRateError) return null;
    throw error;
  }
  if (res.dataThrough !== dataThrough) return null;
  const history = (res.queries[0]?.series[0]?.points ?? []).map((p) => ({
    date: p.date,
    value: p.value ?? 0,
  }));
  const f = bucketForecast(
    history,
    { dataThrough: through, days, method: 'auto' },
    'Month',
    { start: monthStart, end: monthEnd },
    ymd,
  );
  const bucket = f.points[0];
  if (!bucket) return null;
  const total = bucket.bucketTotal ?? bucket;
  return {
    month,
    value: total.value,
    lower80: total.lower80,
    upper80: total.upper80,
    dataThrough,
    method: f.accuracy.method,
  };
}
