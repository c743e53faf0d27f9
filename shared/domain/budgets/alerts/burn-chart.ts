import { buildChartSpec, type ChartSeries, type EChartsSpec, stampLines } from '../../../charts/spec';
import { money } from '../../alerts/explain';
import type { RenderedMessage } from '../../alerts/notification';
import { chartPng } from '../../reports/render/png';
import { monthDays } from '../status';
import { BURN_CHART_FILE, type BudgetFiring, renderBudgetAlertMessage } from './render';

/**
 * The burn chart of a firing, built by the reports' chart builder (`buildChartSpec`, LINE): the
 * cumulative budget (the month's amount spread evenly over its days), the cumulative actual to the
 * last complete day, and the forecast's path to the month-end value, its 80 % interval shaded.
 */
export function burnChartSpec(f: BudgetFiring): EChartsSpec {
  const b = f.burn;
  const series = (name: string, values: (number | null)[]): ChartSeries => ({
    name,
    points: b.days.map((date, i) => ({ date, value: values[i] ?? null })),
    total: null,
  });
  const { first, last } = monthDays(f.month);
  const spec = buildChartSpec({
    title: `${f.budget.name}${f.line === null ? '' : ` / ${f.line}`}: ${f.month}`,
    chartType: 'LINE',
    currency: f.budget.currency,
    series: [
      series('Budget (cumulative)', b.budget),
      series('Actual (cumulative)', b.actual),
      series('Forecast', b.forecast),
    ],
    displayOptions: { showTotal: false },
    stamp: [
      `Actual ${money(f.figures.actual, f.budget.currency)} of a budget of ${money(f.figures.budget, f.budget.currency)}; month-end forecast ${money(f.figures.forecast?.value, f.budget.currency)}`,
      ...stampLines({
        period: { startDate: first, endDate: last },
        dataThrough: f.dataThrough,
        currency: f.budget.currency,
        requestedCurrency: f.budget.currency,
        conversion: f.conversion,
      }),
    ],
  }) as EChartsSpec;
  const option = spec.option;
  const [budget, actual, forecast] = option.series as Record<string, unknown>[];
  Object.assign(budget!, {
    lineStyle: { type: 'dashed', color: '#6b7280' },
    itemStyle: { color: '#6b7280' },
    showSymbol: false,
  });
  Object.assign(actual!, { lineStyle: { width: 3, color: '#1d4ed8' }, itemStyle: { color: '#1d4ed8' } });
  Object.assign(forecast!, {
    lineStyle: { type: 'dotted', width: 2, color: '#b45309' },
    itemStyle: { color: '#b45309' },
    showSymbol: false,
  });
  // The interval: an invisible base at the lower bound, and the band up to the upper one stacked on it.
  const band = b.upper.map((u, i) => (u === null || b.lower[i] === null ? null : u - b.lower[i]!));
  option.series = [
    ...option.series,
    {
      type: 'line',
      name: '80% interval',
      stack: 'band',
      data: b.lower,
      lineStyle: { opacity: 0 },
      showSymbol: false,
      silent: true,
    },
    {
      type: 'line',
      name: 'Forecast 80% interval',
      stack: 'band',
      data: band,
      lineStyle: { opacity: 0 },
      areaStyle: { color: '#f59e0b', opacity: 0.25 },
      itemStyle: { color: '#f59e0b' },
      showSymbol: false,
      silent: true,
    },
  ];
  option.legend = {
    ...option.legend,
    data: ['Budget (cumulative)', 'Actual (cumulative)', 'Forecast', 'Forecast 80% interval'],
  };
  return spec;
}

/** The burn chart as a PNG (the reports' renderer, at 1× to keep the queued message small). */
export function burnChartPng(f: BudgetFiring): Promise<Uint8Array> {
  return chartPng(burnChartSpec(f), 1);
}

/** The message of a firing with its burn chart (inline in e-mail, uploaded to Slack). */
export async function budgetAlertMessage(f: BudgetFiring): Promise<RenderedMessage> {
  const png = await burnChartPng(f);
  return {
    ...renderBudgetAlertMessage(f),
    images: [{ filename: BURN_CHART_FILE, base64: Buffer.from(png).toString('base64') }],
  };
}
