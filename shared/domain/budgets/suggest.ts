import type { Principal } from '../../auth/principal';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import { BadRequestError } from '../../errors';
import type { ConversionOut } from '../../model/conversion';
import { localDay } from '../alerts/dedup';
import { addDays, daysBetween } from '../alerts/schedule';
import { assertScopesAssignable } from '../dashboards/service';
import { forecastSeries, forecastTotal } from '../forecast';
import { runExplorer } from '../queries/engine';
import type { SeriesOut } from '../queries/model';
import { monthIndex, monthOf } from './rules';
import { BUDGET_LIMITS, type SuggestBudgetInput } from './schemas';
import { monthDays, monthFigures, STATUS_HISTORY_DAYS, statusRequest } from './status';

/**
 * POST /budgets/suggest (docs/budgets.md "Suggested amounts"): AWS's auto-adjusting budget as an
 * explicit proposal. Per value of `groupBy` (or the single total line), the next months' amounts are
 * the month totals of the daily forecast (`forecastSeries` over the last 24 weeks up to the data's
 * cut-off, `forecastTotal` per month, its 80 % interval), in the budget's currency and converted
 * like the explorer. Nothing is saved: the user puts the amounts they want in a POST /budgets.
 */
export interface Suggested {
  value: number;
  lower80: number;
  upper80: number;
}
export interface BudgetSuggestion {
  currency: string;
  groupBy: string | null;
  dataThrough: string | null;
  months: string[];
  conversion: ConversionOut | null;
  lines: { value: string | null; amounts: Record<string, Suggested> }[];
  total: Record<string, Suggested>;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The month totals of one daily series (points up to `dataThrough` are its history). The current
 * month (`current`, the status's month) is the status's own month-end forecast (`monthFigures`: a
 * forecast to that month's end), later months the totals of one forecast to the last month's end.
 * The backtest behind a forecast is made at its horizon, so the two horizons may choose different
 * methods; the current month then still reads what its budget's status will say.
 */
export function monthlySuggestion(
  points: ReadonlyMap<string, number>,
  dataThrough: string,
  months: readonly string[],
  current: string,
): Record<string, Suggested> | null {
  const history = [...points]
    .filter(([d]) => d <= dataThrough)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, value]) => ({ date, value }));
  if (!history.length) return null;
  const last = monthDays(months.at(-1)!).last;
  let ahead: ReturnType<typeof forecastSeries> | undefined;
  const forecastAhead = () =>
    (ahead ??= forecastSeries(history, { horizonDays: daysBetween(dataThrough, last), dataThrough }));
  const out: Record<string, Suggested> = {};
  for (const m of months) {
    const { first, last: end } = monthDays(m);
    const t =
      (m === current ? monthFigures(points, m, dataThrough, 0).forecast : null) ??
      forecastTotal(forecastAhead(), history, first, end);
    out[m] = { value: round2(t.value), lower80: round2(t.lower80), upper80: round2(t.upper80) };
  }
  return out;
}

export async function suggestBudget(
  principal: Principal,
  body: SuggestBudgetInput,
  now: Date = new Date(),
): Promise<BudgetSuggestion> {
  await assertScopesAssignable(principal, body.scopeId ? [{ scopeId: body.scopeId, path: 'scopeId' }] : []);
  const timeZone = await getOrganizationTimezone(principal.orgId);
  const today = localDay(now, timeZone);
  const start = body.startMonth ?? monthOf(monthIndex(today.slice(0, 7)) + 1);
  if (start < today.slice(0, 7))
    throw new BadRequestError('startMonth: must be the current month or a later one');
  const months = Array.from({ length: body.months }, (_, i) => monthOf(monthIndex(start) + i));
  const last = monthDays(months.at(-1)!).last;
  if (daysBetween(today, last) > 1000) throw new BadRequestError('startMonth: at most about 30 months ahead');
  // The status's history window (24 weeks before the current month): the current month's
  // suggestion is the status's month-end forecast.
  const from = addDays(monthDays(today.slice(0, 7)).first, -STATUS_HISTORY_DAYS);
  const result = await runExplorer(statusRequest(body, from, last), {
    orgId: principal.orgId,
    currency: body.currency,
    timeZone: timeZone ?? 'UTC',
    now,
  });
  const dataThrough = result.dataThrough;
  const base = {
    currency: body.currency,
    groupBy: body.groupBy,
    dataThrough,
    months,
    conversion: result.conversion,
  };
  if (!dataThrough) return { ...base, lines: [], total: {} };
  const series = result.queries[0]?.series ?? [];
  const daily = (ss: readonly SeriesOut[]) => {
    const m = new Map<string, number>();
    for (const s of ss)
      for (const p of s.points) if (p.value !== null) m.set(p.date, (m.get(p.date) ?? 0) + p.value);
    return m;
  };
  const current = today.slice(0, 7);
  const total = monthlySuggestion(daily(series), dataThrough, months, current) ?? {};
  const lines: BudgetSuggestion['lines'] = [];
  if (body.groupBy === null) lines.push({ value: null, amounts: total });
  else {
    const dim = body.groupBy;
    const values = [...new Set(series.filter((s) => !s.other).map((s) => s.group[dim] ?? null))];
    for (const value of values) {
      const amounts = monthlySuggestion(
        daily(series.filter((s) => !s.other && (s.group[dim] ?? null) === value)),
        dataThrough,
        months,
        current,
      );
      if (amounts) lines.push({ value, amounts });
    }
    lines.sort((a, b) => (b.amounts[months[0]!]?.value ?? 0) - (a.amounts[months[0]!]?.value ?? 0));
    lines.splice(BUDGET_LIMITS.maxLines);
  }
  return { ...base, lines, total };
}
