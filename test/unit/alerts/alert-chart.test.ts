import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alertChartOf, alertChartSpec, alertMessage } from '../../../shared/domain/alerts/chart';
import type { AlertFiring } from '../../../shared/domain/alerts/explain';
import { ALERT_CHART_FILE } from '../../../shared/domain/alerts/render';
import type { AlertSeries } from '../../../shared/domain/alerts/series';
import { buildRawEmail } from '../../../shared/notify/email';
import { pngSize } from '../../support/alert-messages';
import { emailNotification } from '../../support/notification';
import { costQuery } from './fixtures';

/**
 * The chart of a cost-alert message, from daily series made here: the buckets and values it draws
 * are summed in the test from the daily amounts; the PNG is decoded (signature, IHDR size) and
 * written with the e-mail (its HTML with the image inlined) to test/artifacts/alerts to be looked at.
 */
const ARTIFACTS = join(__dirname, '..', '..', 'artifacts', 'alerts');
const DAY = 86_400_000;
const dayOf = (start: string, i: number) =>
  new Date(Date.parse(`${start}T00:00:00Z`) + i * DAY).toISOString().slice(0, 10);

/** 60 days from 2026-09-22 to 2026-11-20: a weekly pattern around $500, $1,240 on the last day. */
const days = Array.from({ length: 60 }, (_, i) => dayOf('2026-09-22', i));
const ec2 = days.map((_, i) => (i === 59 ? 1240 : 480 + (i % 7) * 12));
const median = days.map((_, i) => {
  const window = ec2.slice(Math.max(0, i - 27), i + 1).sort((a, b) => a - b);
  return window[Math.floor((window.length - 1) / 2)]!;
});

function base(alert: Partial<AlertFiring['alert']>): AlertFiring['alert'] {
  return {
    id: 'alrt_chart',
    name: 'EC2 spike',
    description: '',
    currency: 'USD',
    queries: [costQuery('ec2', { alias: 'EC2 cost' })] as AlertFiring['alert']['queries'],
    queryName: 'ec2',
    condition: null,
    thresholdType: 'ABOVE',
    evaluationPeriod: 'DAILY',
    urlState: '',
    ...alert,
  };
}

const conditionSeries: AlertSeries = {
  dataThrough: '2026-11-20',
  days,
  values: { ec2 },
  baselines: { 'rollingMedian(ec2,28,DAY)': median },
};

function conditionFiring(): AlertFiring {
  return {
    alert: base({ condition: 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5' }),
    thresholds: [],
    evaluatedDay: '2026-11-20',
    period: { start: '2026-11-20', end: '2026-11-20' },
    values: { ec2: 1240 },
    baselines: { 'rollingMedian(ec2,28,DAY)': median[59]! },
    appUrl: 'https://app.example.com',
  };
}

function weeklyFiring(): AlertFiring {
  return {
    alert: base({ name: 'EC2 week over week', evaluationPeriod: 'WEEKLY' }),
    thresholds: [
      { value: 20, severityLevel: 'WARNING', metricMode: 'PERIOD_CHANGE', changeBasis: 'PERCENTAGE' },
    ],
    evaluatedDay: '2026-11-20',
    // The last whole ISO week before 2026-11-20 (a Friday): Monday 9 to Sunday 15 November.
    period: { start: '2026-11-09', end: '2026-11-15' },
    values: { ec2: sum('2026-11-09', '2026-11-15') },
    baselines: {},
    previousValue: sum('2026-11-02', '2026-11-08'),
    appUrl: 'https://app.example.com',
  };
}

function sum(from: string, to: string): number {
  return days.reduce((t, d, i) => (d >= from && d <= to ? t + ec2[i]! : t), 0);
}

async function look(name: string, firing: AlertFiring) {
  const m = await alertMessage(firing);
  expect(m.images?.map((i) => i.filename)).toEqual([ALERT_CHART_FILE]);
  const png = Buffer.from(m.images![0]!.base64, 'base64');
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, `${name}.png`), png);
  writeFileSync(
    join(ARTIFACTS, `${name}.html`),
    m.html.replace(`cid:${ALERT_CHART_FILE}`, `data:image/png;base64,${m.images![0]!.base64}`),
  );
  const n = emailNotification(m, { id: `chart-${name}`, alertId: firing.alert.id });
  const raw = (await buildRawEmail(n, 'FinOps <finops@example.com>')).toString('utf8');
  writeFileSync(join(ARTIFACTS, `${name}.eml`), raw);
  expect(raw).toMatch(/Content-Type: multipart\/related/);
  expect(raw).toMatch(new RegExp(`Content-ID: <${ALERT_CHART_FILE.replace('.', '\\.')}>`));
  return { m, png };
}

describe('the chart in a cost-alert message', () => {
  it('a condition alert: 31 days ending on the evaluated one, the value and its baseline', async () => {
    const firing = conditionFiring();
    const chart = alertChartOf(firing, conditionSeries)!;
    expect(chart.buckets).toEqual(days.slice(29));
    expect(chart.marked).toBe(30);
    expect(chart.series).toEqual([
      { name: 'EC2 cost', values: ec2.slice(29), reference: false },
      { name: 'EC2 cost, 28-day median', values: median.slice(29), reference: true },
    ]);
    const spec = alertChartSpec({ ...firing, chart }, chart);
    const [value, baseline] = spec.option.series as Record<string, unknown>[];
    expect(value).toMatchObject({ type: 'bar' });
    expect((value!.data as unknown[])[30]).toEqual({ value: 1240, itemStyle: { color: '#b91c1c' } });
    expect(baseline).toMatchObject({ type: 'line', lineStyle: { type: 'dashed' } });
    // The currency on the axis.
    expect(spec.option.yAxis.axisLabel.formatter(1500)).toMatch(/^\$1\.5K$/);

    const { m, png } = await look('alert-chart-condition', { ...firing, chart });
    expect(pngSize(png)).toEqual({ width: 800, height: 420 });
    expect(m.html).toContain(`<img src="cid:${ALERT_CHART_FILE}"`);
  });

  it('a weekly change alert: the week totals, its threshold over the previous week drawn', async () => {
    const firing = weeklyFiring();
    const chart = alertChartOf(firing, { dataThrough: '2026-11-20', days, values: { ec2 } })!;
    // Whole ISO weeks inside the series (it starts on Tuesday 22 September): from Monday 28 September.
    const starts = Array.from({ length: 7 }, (_, i) => dayOf('2026-09-28', i * 7));
    expect(chart.buckets).toEqual(starts);
    expect(chart.marked).toBe(6);
    expect(chart.series[0]!.values).toEqual(starts.map((s) => sum(s, dayOf(s, 6))));
    const prev = sum('2026-11-02', '2026-11-08');
    expect(chart.series[1]).toEqual({
      name: 'WARNING: previous +20.0%',
      values: starts.map(() => prev * 1.2),
      reference: true,
    });
    const { png } = await look('alert-chart-weekly', { ...firing, chart });
    expect(pngSize(png)).toEqual({ width: 800, height: 420 });
  });

  it('a daily threshold alert draws each threshold; a message without a chart has no image', async () => {
    const firing: AlertFiring = {
      ...conditionFiring(),
      alert: base({ name: 'EC2 over $1,000' }),
      thresholds: [
        {
          value: 1000,
          severityLevel: 'CRITICAL',
          metricMode: 'ABSOLUTE_SPEND',
          changeBasis: 'ABSOLUTE_DELTA',
        },
        { value: 700, severityLevel: 'WARNING', metricMode: 'ABSOLUTE_SPEND', changeBasis: 'ABSOLUTE_DELTA' },
      ],
      baselines: {},
    };
    const chart = alertChartOf(firing, { dataThrough: '2026-11-20', days, values: { ec2 } })!;
    expect(chart.buckets).toEqual(days.slice(29));
    expect(chart.series.map((s) => [s.name, s.values[0]])).toEqual([
      ['EC2 cost', ec2[29]],
      ['CRITICAL threshold $1,000', 1000],
      ['WARNING threshold $700', 700],
    ]);
    await look('alert-chart-threshold', { ...firing, chart });
    const plain = await alertMessage(firing);
    expect(plain.images).toBeUndefined();
    expect(plain.html).not.toContain('cid:');
  });
});
