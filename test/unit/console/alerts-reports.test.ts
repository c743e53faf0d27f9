import * as v from 'valibot';
import {
  type AlertEvaluation,
  type AlertWidgetData,
  alertChartOption,
  alertDayRows,
  alertKind,
  dedupText,
  evaluationOutcome,
  evaluationValues,
  isSnoozed,
  ruleLines,
  snoozeUntil,
  thresholdsOnChart,
} from '../../../console/src/alerts-shape';
import {
  destinationsText,
  type Report,
  runPending,
  scheduleForm,
  schedulePatch,
  scheduleText,
} from '../../../console/src/reports-shape';
import { SnoozeBody } from '../../../shared/domain/alerts/schemas';
import { PatchReportBody } from '../../../shared/model/report-schemas';
import { consoleMoney } from '../../support/explorer';

/** Raw daily figures of the alert's query; every expectation is computed from these. */
const DAILY = [100.5, 120.25, null, 980.125, 130];
const DATES = ['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23'];
const eur = (x: number) => consoleMoney(x, 'EUR');

function alert(over: Partial<AlertWidgetData> = {}): AlertWidgetData {
  return {
    id: 'al_1',
    name: 'EC2 daily',
    description: '',
    createdById: 'u',
    createdAt: '2026-11-01T00:00:00.000Z',
    archivedAt: null,
    snoozedUntil: null,
    currency: 'EUR',
    queryName: 'ec2',
    queries: [{ name: 'ec2' }],
    evaluationPeriod: 'DAILY',
    thresholdType: 'ABOVE',
    condition: null,
    dedupKind: null,
    dedupCalendarUnit: null,
    dedupWindowDays: null,
    notificationChannel: 'EMAIL',
    emails: ['a@example.com'],
    slackChannelId: null,
    teamsChannelId: null,
    thresholds: [
      {
        id: 't1',
        value: 500,
        severityLevel: 'WARNING',
        metricMode: 'ABSOLUTE_SPEND',
        changeBasis: 'ABSOLUTE_DELTA',
      },
    ],
    series: {
      dataThrough: DATES[4]!,
      aggBy: 'Day',
      dates: DATES,
      queries: [
        { name: 'other', values: DAILY.map((x) => (x === null ? null : x / 2)) },
        { name: 'ec2', values: DAILY },
      ],
      triggered: DAILY.map((x) => (x ?? 0) > 500),
      fired: DAILY.map((x) => (x ?? 0) > 500),
    },
    ...over,
  };
}

describe('alert page shaping', () => {
  it('draws each query, the DAILY threshold as a line on the main query and a marker where it fired', () => {
    const o = alertChartOption(alert())!;
    const series = o.series as {
      name: string;
      data: (number | null)[];
      markLine?: { data: { yAxis: number }[] };
    }[];
    expect(series.map((s) => s.name)).toEqual(['other', 'ec2', 'Fired']);
    expect(series[1]!.data).toEqual(DAILY);
    expect(series[1]!.markLine!.data.map((d) => d.yAxis)).toEqual([500]);
    expect(series[0]!.markLine).toBeUndefined();
    // The threshold's label sits right of the plot (not over the last days), with room kept for it.
    const label = (
      series[1]!.markLine!.data[0] as unknown as { label: { position: string; formatter: string } }
    ).label;
    expect(label.position).toBe('end');
    const widest = Math.max(...label.formatter.split('\n').map((l) => l.length));
    expect(o.grid.right).toBeGreaterThanOrEqual(widest * 7);
    expect(alertChartOption(alert({ evaluationPeriod: 'MONTHLY' }))!.grid.right).toBe(24);
    // The marker sits on the main query's value on the days over 500, nowhere else.
    expect(series[2]!.data).toEqual(DAILY.map((x) => ((x ?? 0) > 500 ? x : null)));
    expect(o.xAxis.data).toEqual(DATES);
    expect(o.yAxis.axisLabel.formatter(1500)).toBe('€1.5K');
  });

  it('does not draw WEEKLY or period-change thresholds on the daily line, and says so in words', () => {
    const weekly = alert({ evaluationPeriod: 'WEEKLY' });
    expect(thresholdsOnChart(weekly)).toEqual([]);
    expect(ruleLines(weekly, weekly.thresholds)).toEqual([
      `WARNING: Weekly (last whole ISO week) spend above ${eur(500)}`,
    ]);
    const change = alert({
      thresholdType: 'UNDER',
      thresholds: [
        {
          id: 't',
          value: -20,
          severityLevel: 'INFO',
          metricMode: 'PERIOD_CHANGE',
          changeBasis: 'PERCENTAGE',
        },
      ],
    });
    expect(alertKind(change)).toBe('Period change');
    expect(ruleLines(change, change.thresholds)).toEqual([
      "INFO: change of the day's spend against the previous day below -20%",
    ]);
    const cond = alert({ condition: 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5', thresholds: [] });
    expect(alertKind(cond)).toBe('Condition');
    // In words, with the query's alias (as the alert's messages say it), never the raw expression.
    const named = { ...cond, queries: [{ name: 'ec2', alias: 'EC2 cost' }] };
    expect(ruleLines(named, [])).toEqual([
      'Condition: EC2 cost is above the 28-day median of EC2 cost × 1.5',
    ]);
  });

  it('lists the days newest first with every figure in the alert currency', () => {
    const t = alertDayRows(alert());
    expect(t.columns).toEqual(['other', 'ec2']);
    expect(t.rows.map((r) => r.date)).toEqual([...DATES].reverse());
    const i = DAILY.indexOf(980.125);
    const row = t.rows.find((r) => r.date === DATES[i])!;
    expect(row.cells).toEqual([eur(980.125 / 2), eur(980.125)]);
    expect(row.fired).toBe(true);
    expect(t.rows.find((r) => r.date === DATES[2])!.cells).toEqual(['—', '—']);
  });

  it('has no chart without a series (no recent billing data)', () => {
    expect(alertChartOption(alert({ series: null }))).toBeNull();
    expect(alertDayRows(alert({ series: null })).rows).toEqual([]);
  });

  it('states an evaluation: figures, notified or why not', () => {
    const e: AlertEvaluation = {
      alertId: 'al_1',
      evaluatedAt: '2026-11-24T06:00:00.000Z',
      evaluatedDay: '2026-11-23',
      values: { ec2: 980.125, changePercent: 12.345 },
      triggered: true,
      suppressedBy: null,
      notificationId: 'al_1:2026-11-23',
    };
    expect(evaluationValues(e, alert())).toBe(`ec2 ${eur(980.125)} · Change 12.3%`);
    const s3 = alert({
      condition: 's3 > rollingMedian(s3, 28, DAY) * 1.5',
      queryName: 's3',
      queries: [{ name: 's3', alias: 'S3 cost' }],
      thresholds: [],
    });
    // The baseline key the history records is named in words, as the alert's messages name it.
    expect(evaluationValues({ ...e, values: { s3: 1500, 'rollingMedian(s3,28,DAY)': 600 } }, s3)).toBe(
      `S3 cost €1,500 · S3 cost, 28-day median €600`,
    );
    expect(evaluationOutcome(e)).toBe('Notified');
    expect(evaluationOutcome({ ...e, notificationId: null, suppressedBy: 'SNOOZE' })).toBe(
      'Rule held, not sent: snoozed',
    );
    expect(evaluationOutcome({ ...e, triggered: false, notificationId: null })).toBe('Rule did not hold');
  });

  it('snoozes until a future instant the API accepts, and reads the snooze', () => {
    const now = new Date('2026-11-27T10:00:00.000Z');
    const until = snoozeUntil(now, 7);
    expect(Date.parse(until) - now.getTime()).toBe(7 * 86_400_000);
    expect(v.safeParse(SnoozeBody, { until }).success).toBe(true);
    expect(isSnoozed({ snoozedUntil: until }, now)).toBe(true);
    expect(isSnoozed({ snoozedUntil: '2026-11-27T09:59:59.000Z' }, now)).toBe(false);
    expect(isSnoozed({ snoozedUntil: null }, now)).toBe(false);
  });

  it('words the dedup rule', () => {
    expect(dedupText({ dedupKind: 'ROLLING', dedupCalendarUnit: null, dedupWindowDays: 3 })).toBe(
      'At most once in 3 days',
    );
    expect(dedupText({ dedupKind: 'CALENDAR', dedupCalendarUnit: 'MONTH', dedupWindowDays: null })).toBe(
      'At most once per calendar month',
    );
  });
});

const report = (over: Partial<Report> = {}): Report => ({
  id: 'rep_1',
  name: 'Weekly spend',
  description: '',
  type: 'PRIVATE',
  teamId: null,
  context: {},
  scheduledPeriod: 'WEEKLY',
  scheduledWeekday: 3,
  status: 'ACTIVE',
  widgets: [],
  destinations: [
    { destinationType: 'EMAIL', destinationValues: ['a@example.com', 'b@example.com'] },
    { destinationType: 'SLACK', destinationValues: ['C1'] },
  ],
  createdById: 'u',
  updatedAt: '2026-11-01T00:00:00.000Z',
  archivedAt: null,
  version: 2,
  nextRunAt: null,
  ...over,
});

describe('report page shaping', () => {
  it('words the schedule', () => {
    expect(scheduleText(report())).toBe("Every Wednesday at 08:00 (the organisation's time zone)");
    expect(scheduleText(report({ status: 'INACTIVE', scheduledPeriod: 'DAILY' }))).toBe(
      "Every day at 08:00 (the organisation's time zone), paused",
    );
    expect(scheduleText(report({ scheduledPeriod: null, scheduledWeekday: null }))).toBe('On demand');
    expect(destinationsText(report())).toBe('E-mail: a@example.com, b@example.com · Slack: C1');
  });

  it('sends a PATCH body the API accepts, with the weekday only for WEEKLY', () => {
    const weekly = schedulePatch(scheduleForm(report()));
    expect(weekly).toEqual({ scheduledPeriod: 'WEEKLY', scheduledWeekday: 3, status: 'ACTIVE' });
    const monthly = schedulePatch({ ...scheduleForm(report()), period: 'MONTHLY' });
    expect(monthly).toEqual({ scheduledPeriod: 'MONTHLY', scheduledWeekday: null, status: 'ACTIVE' });
    const onDemand = schedulePatch({ period: '', weekday: 1, status: 'INACTIVE' });
    expect(onDemand).toEqual({ scheduledPeriod: null, scheduledWeekday: null, status: 'INACTIVE' });
    for (const b of [weekly, monthly, onDemand]) expect(v.safeParse(PatchReportBody, b).success).toBe(true);
  });

  it('keeps polling a sent run until each destination has a settled record', () => {
    const runAt = '2026-11-27T10:00:00.000Z';
    const rec = (destination: string, status: 'PENDING' | 'SENT' | 'FAILED') => ({
      reportId: 'rep_1',
      runAt,
      trigger: 'MANUAL' as const,
      destinationType: 'EMAIL' as const,
      destination,
      status,
      attempts: 1,
      error: null,
      sentAt: null,
      updatedAt: runAt,
    });
    expect(runPending([], runAt, 2)).toBe(true);
    expect(runPending([rec('a', 'SENT')], runAt, 2)).toBe(true);
    expect(runPending([rec('a', 'SENT'), rec('b', 'PENDING')], runAt, 2)).toBe(true);
    expect(runPending([rec('a', 'SENT'), rec('b', 'FAILED')], runAt, 2)).toBe(false);
    expect(runPending([{ ...rec('a', 'SENT'), runAt: 'other' }], runAt, 1)).toBe(true);
  });
});
