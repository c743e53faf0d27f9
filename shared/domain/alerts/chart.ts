import { buildChartSpec, type EChartsSpec, stampLines } from '../../charts/spec';
import { log } from '../../log';
import { chartPng } from '../reports/render/png';
import { type AlertChart, type AlertFiring, baselineLabel, money, percent } from './explain';
import type { RenderedMessage } from './notification';
import { ALERT_CHART_FILE, alertChartAlt, renderAlertMessage } from './render';
import { sumOver } from './rule';
import { previousPeriod } from './schedule';
import type { AlertSeries } from './series';

/**
 * The chart of a cost-alert message (docs/alerts.md "The chart in the message"): the alert's series
 * over the evaluated period and the days (or weeks, months) before it, the threshold or the
 * condition's baselines drawn as lines, the evaluated bucket in red, the currency on the axis. It is
 * drawn as a PNG by the reports' renderer where the evaluator renders the message (as budget alerts
 * draw their burn chart) and travels in the notification's `images`: inline in e-mail, uploaded in
 * the Slack message's thread, published and shown by URL in the Teams card.
 */

/** Days before the evaluated one the evaluator reads for the chart (the series source's `days`). */
export const CHART_DAYS = 30;

/** Buckets a chart shows at most (the last ones, ending on the evaluated one). */
const MAX_BUCKETS = 31;

/** The chart's data from the alert's daily series (as the evaluator read it) and its firing. */
export function alertChartOf(firing: AlertFiring, series: AlertSeries): AlertChart | undefined {
  const { alert } = firing;
  if (alert.condition) {
    const end = series.days.indexOf(firing.evaluatedDay);
    if (end < 0) return undefined;
    const from = Math.max(0, end - MAX_BUCKETS + 1);
    const cut = (v: (number | null)[] | undefined) => (v ?? []).slice(from, end + 1).map((x) => x ?? null);
    return {
      buckets: series.days.slice(from, end + 1),
      marked: end - from,
      series: [
        ...alert.queries
          .filter((q) => q.visible !== false && series.values[q.name])
          .map((q) => ({ name: q.alias || q.name, values: cut(series.values[q.name]), reference: false })),
        ...Object.entries(series.baselines ?? {}).map(([key, v]) => ({
          name: baselineLabel(firing, key),
          values: cut(v),
          reference: true,
        })),
      ],
    };
  }
  // Threshold variants: the value per evaluation period (the thresholds apply to a period's total).
  const periods = [firing.period];
  const first = series.days[0] ?? firing.period.start;
  while (periods.length < MAX_BUCKETS) {
    const p = previousPeriod(alert.evaluationPeriod, periods[0]!);
    if (p.start < first) break;
    periods.unshift(p);
  }
  const values = periods.map((p) => sumOver(series, alert.queryName, p));
  const cur = alert.currency;
  const change = firing.thresholds[0]?.metricMode === 'PERIOD_CHANGE';
  const prev = firing.previousValue ?? null;
  const references = firing.thresholds.flatMap((t) => {
    if (!change)
      return [
        { name: `${t.severityLevel} threshold ${money(t.value, cur)}`, level: t.value as number | null },
      ];
    if (prev === null) return [];
    const pct = t.changeBasis === 'PERCENTAGE';
    return [
      {
        name: `${t.severityLevel}: previous ${pct ? percent(t.value) : `${t.value >= 0 ? '+' : '−'}${money(Math.abs(t.value), cur)}`}`,
        level: pct ? prev * (1 + t.value / 100) : prev + t.value,
      },
    ];
  });
  const query = alert.queries.find((q) => q.name === alert.queryName);
  return {
    buckets: periods.map((p) => p.start),
    marked: periods.length - 1,
    series: [
      { name: query?.alias || alert.queryName, values, reference: false },
      ...references.map((r) => ({ name: r.name, values: periods.map(() => r.level), reference: true })),
    ],
  };
}

const MARKED = '#b91c1c';
const VALUE_COLOURS = ['#1d4ed8', '#0f766e', '#7c3aed', '#b45309'];
const REFERENCE_COLOURS = ['#6b7280', '#d97706', '#111827', '#9333ea'];

/** The chart's spec, built by the reports' chart builder (bars for values, dashed lines for references). */
export function alertChartSpec(firing: AlertFiring, chart: AlertChart): EChartsSpec {
  const cur = firing.alert.currency;
  const unit =
    firing.alert.condition || firing.alert.evaluationPeriod === 'DAILY'
      ? 'day'
      : firing.alert.evaluationPeriod === 'WEEKLY'
        ? 'week (from its Monday)'
        : 'month';
  const spec = buildChartSpec({
    title: `${firing.test ? '[Test] ' : ''}${firing.alert.name}`.slice(0, 90),
    chartType: 'LINE',
    currency: cur,
    series: chart.series.map((s) => ({
      name: s.name,
      points: chart.buckets.map((date, i) => ({ date, value: s.values[i] ?? null })),
      total: null,
    })),
    displayOptions: { showTotal: false },
    stamp: [
      `Cost per ${unit}; evaluated ${firing.period.start === firing.period.end ? firing.period.start : `${firing.period.start} to ${firing.period.end}`} (in red)`,
      ...stampLines({
        period: { startDate: chart.buckets[0] ?? firing.period.start, endDate: firing.period.end },
        dataThrough: firing.evaluatedDay,
        currency: cur,
        requestedCurrency: cur,
      }),
    ],
  }) as EChartsSpec;
  let values = 0;
  let references = 0;
  spec.option.series = (spec.option.series as Record<string, unknown>[]).map((s, i) => {
    const src = chart.series[i]!;
    if (src.reference) {
      const colour = REFERENCE_COLOURS[references++ % REFERENCE_COLOURS.length];
      return {
        ...s,
        type: 'line',
        showSymbol: false,
        lineStyle: { type: 'dashed', width: 2, color: colour },
        itemStyle: { color: colour },
      };
    }
    const colour = VALUE_COLOURS[values++ % VALUE_COLOURS.length];
    return {
      ...s,
      type: 'bar',
      barMaxWidth: 28,
      itemStyle: { color: colour },
      data: (s.data as unknown[]).map((v, j) =>
        j === chart.marked ? { value: v, itemStyle: { color: MARKED } } : v,
      ),
    };
  });
  spec.option.xAxis = { ...spec.option.xAxis, boundaryGap: true };
  return spec;
}

/** The chart as a PNG (the reports' renderer, at 1× to keep the queued message small). */
export async function alertChartPng(firing: AlertFiring, chart: AlertChart): Promise<Uint8Array> {
  return chartPng(alertChartSpec(firing, chart), 1);
}

/**
 * The message of a firing with its chart when it has one. A chart that cannot be drawn does not
 * hold the alert back: the message goes out without it (and says nothing of a chart).
 */
export async function alertMessage(firing: AlertFiring): Promise<RenderedMessage> {
  if (!firing.chart?.buckets.length) return renderAlertMessage(firing);
  try {
    const png = await alertChartPng(firing, firing.chart);
    return {
      ...renderAlertMessage(firing),
      images: [
        {
          filename: ALERT_CHART_FILE,
          base64: Buffer.from(png).toString('base64'),
          alt: alertChartAlt(firing),
        },
      ],
    };
  } catch (error) {
    log.warn('alert chart not drawn: the message goes without it', { alertId: firing.alert.id, error });
    const { chart: _chart, ...rest } = firing;
    return renderAlertMessage(rest);
  }
}
