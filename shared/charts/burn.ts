import type { EChartsSpec } from './model';
import { buildChartSpec, type ChartSeries } from './spec';

/** A budget's month as a burn chart draws it (`burnSeries`, shared/domain/budgets/status.ts). */
export interface BurnLines {
  days: string[];
  actual: (number | null)[];
  budget: number[];
  forecast: (number | null)[];
  lower: (number | null)[];
  upper: (number | null)[];
}

/**
 * The burn chart, built by the reports' chart builder (`buildChartSpec`, LINE): the cumulative
 * budget (the month's amount spread evenly over its days), the cumulative actual to the last
 * complete day, and the forecast's path to the month-end value, its 80 % interval shaded. One
 * spec for the budget alert's PNG and the console's budget page; `stamp` is the caller's lines.
 */
export function burnChartSpec(p: {
  title: string;
  currency: string;
  stamp: string[];
  burn: BurnLines;
}): EChartsSpec {
  const b = p.burn;
  const series = (name: string, values: (number | null)[]): ChartSeries => ({
    name,
    points: b.days.map((date, i) => ({ date, value: values[i] ?? null })),
    total: null,
  });
  const spec = buildChartSpec({
    title: p.title,
    chartType: 'LINE',
    currency: p.currency,
    series: [
      series('Budget (cumulative)', b.budget),
      series('Actual (cumulative)', b.actual),
      series('Forecast', b.forecast),
    ],
    displayOptions: { showTotal: false },
    stamp: p.stamp,
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
