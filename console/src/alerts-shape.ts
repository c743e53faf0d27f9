/**
 * The alerts page's data shaping (pure, no DOM): an alert's widget data → the chart (its daily
 * series with the threshold or condition drawn over it) and the table of days, the rule in words,
 * and its history rows. Figures in the alert's currency (docs/alerts.md: widget data, history).
 */
import { formatAxis, formatFigure } from '../../shared/charts/spec';
import { type AlertFiring, explain } from '../../shared/domain/alerts/explain';
import { rootCauseLines } from '../../shared/domain/alerts/render';
import type { AlertEvaluation, RootCause, RootCauses } from '../../shared/model/alerts';

/** One evaluation of `GET …/history` (the service's own type: the console only reads it). */
export type { AlertEvaluation };

export interface AlertThreshold {
  value: number;
  severityLevel: string;
  metricMode: string;
  changeBasis: string;
}

/** The alert record (the fields the console reads; `GET /alerts-v2/costAlerts` answers more). */
export interface CostAlert {
  id: string;
  name: string;
  description: string;
  createdById: string;
  createdAt: string;
  archivedAt: string | null;
  snoozedUntil: string | null;
  currency: string;
  queryName: string;
  queries: { name: string; type?: string; alias?: string | null }[];
  evaluationPeriod: string;
  thresholdType: string;
  condition: string | null;
  dedupKind: string | null;
  dedupCalendarUnit: string | null;
  dedupWindowDays: number | null;
  notificationChannel: string;
  emails: string[];
  slackChannelId: string | null;
  teamsChannelId: string | null;
}

/** `GET /alerts-v2/costAlerts/{id}/widgetData`: the record, its thresholds and the last 30 days. */
export interface AlertWidgetData extends CostAlert {
  thresholds: (AlertThreshold & { id: string })[];
  series: {
    dataThrough: string;
    aggBy: 'Day';
    dates: string[];
    queries: { name: string; values: (number | null)[] }[];
    condition?: number[];
    baselines?: { key: string; values: (number | null)[] }[];
    thresholds?: AlertThreshold[];
    triggered: boolean[];
    fired: boolean[];
  } | null;
}

const money = (x: number | null | undefined, currency: string) =>
  x === null || x === undefined ? '—' : formatFigure(x, currency, 2);

/** Which of the three variants (docs/alerts.md) the record is. */
export function alertKind(a: Pick<CostAlert, 'condition'> & { thresholds?: AlertThreshold[] }): string {
  if (a.condition) return 'Condition';
  return a.thresholds?.some((t) => t.metricMode === 'PERIOD_CHANGE') ? 'Period change' : 'Threshold';
}

const PERIOD_WORDS: Record<string, { adj: string; noun: string }> = {
  DAILY: { adj: 'Daily', noun: 'day' },
  WEEKLY: { adj: 'Weekly (last whole ISO week)', noun: 'week' },
  MONTHLY: { adj: 'Monthly (last whole month)', noun: 'month' },
};

/** The alert's rule in words, one line per threshold (or the condition). */
export function ruleLines(a: CostAlert, thresholds: readonly AlertThreshold[]): string[] {
  if (a.condition) return [`Condition: ${explainEvaluation(a, thresholds, {}).rule}`];
  const p = PERIOD_WORDS[a.evaluationPeriod] ?? { adj: a.evaluationPeriod, noun: 'period' };
  const dir = a.thresholdType === 'UNDER' ? 'below' : 'above';
  return thresholds.map((t) => {
    const sev = `${t.severityLevel}: `;
    if (t.metricMode === 'PERIOD_CHANGE') {
      const v = t.changeBasis === 'PERCENTAGE' ? `${t.value}%` : money(t.value, a.currency);
      return `${sev}change of the ${p.noun}'s spend against the previous ${p.noun} ${dir} ${v}`;
    }
    return `${sev}${p.adj} spend ${dir} ${money(t.value, a.currency)}`;
  });
}

/** How often the alert may notify. */
export function dedupText(a: Pick<CostAlert, 'dedupKind' | 'dedupCalendarUnit' | 'dedupWindowDays'>): string {
  if (a.dedupKind === 'CALENDAR')
    return `At most once per calendar ${a.dedupCalendarUnit === 'MONTH' ? 'month' : 'week'}`;
  if (a.dedupKind === 'ROLLING') return `At most once in ${a.dedupWindowDays ?? 7} days`;
  return 'At most once per evaluated day';
}

/** Where notifications go. */
export function channelText(a: CostAlert): string {
  if (a.notificationChannel === 'EMAIL') return `E-mail to ${a.emails.join(', ')}`;
  if (a.notificationChannel === 'SLACK') return `Slack channel ${a.slackChannelId ?? ''}`;
  return 'Microsoft Teams (workflow webhook)';
}

/** Snoozed now? (`snoozedUntil` in the future.) */
export function isSnoozed(a: Pick<CostAlert, 'snoozedUntil'>, now: Date): boolean {
  return !!a.snoozedUntil && Date.parse(a.snoozedUntil) > now.getTime();
}

/** The `until` of a snooze of `days` days from `now`. */
export function snoozeUntil(now: Date, days: number): string {
  return new Date(now.getTime() + days * 86_400_000).toISOString();
}

/** The alert's main series: the query named `queryName`, else the first. */
function mainQuery(d: AlertWidgetData): { name: string; values: (number | null)[] } | undefined {
  const qs = d.series?.queries ?? [];
  return qs.find((q) => q.name === d.queryName) ?? qs[0];
}

/**
 * True when the thresholds are comparable with the daily figure, so they are drawn as lines:
 * DAILY absolute-spend thresholds. WEEKLY/MONTHLY sums and period changes are stated in words.
 */
export function thresholdsOnChart(d: AlertWidgetData): AlertThreshold[] {
  const ts = d.series?.thresholds ?? d.thresholds;
  return d.evaluationPeriod === 'DAILY' ? ts.filter((t) => t.metricMode === 'ABSOLUTE_SPEND') : [];
}

const SEVERITY_COLOURS: Record<string, string> = { INFO: '#2f7ed8', WARNING: '#e69500', CRITICAL: '#c0392b' };

/** A threshold line's label: severity over amount, drawn right of the plot. */
export function thresholdLabel(t: AlertThreshold, currency: string): string {
  return `${t.severityLevel}\n${money(t.value, currency)}`;
}

/**
 * The grid's right margin in px: room for the threshold labels beside the plot (ECharts'
 * `containLabel` counts axis labels only), about 7 px a character at 12 px, or 24 without lines.
 */
export function thresholdLabelRoom(lines: readonly AlertThreshold[], currency: string): number {
  const chars = Math.max(
    0,
    ...lines.flatMap((t) =>
      thresholdLabel(t, currency)
        .split('\n')
        .map((l) => l.length),
    ),
  );
  return chars ? 16 + chars * 7 : 24;
}

/**
 * The ECharts option: each query's daily line, the condition's baselines dashed, DAILY thresholds
 * as horizontal lines, and a marker on the main line where the rule held (hollow) and where it
 * fired (red: it also cleared the noise floor).
 */
// biome-ignore lint/suspicious/noExplicitAny: an ECharts option is open-ended JSON
export function alertChartOption(d: AlertWidgetData): Record<string, any> | null {
  const s = d.series;
  if (!s) return null;
  const main = mainQuery(d);
  const lines = thresholdsOnChart(d);
  const at = (flags: boolean[]) => s.dates.map((_, i) => (flags[i] ? (main?.values[i] ?? null) : null));
  const heldOnly = s.triggered.map((t, i) => t && !s.fired[i]);
  const marker = (name: string, data: (number | null)[], colour: string, hollow: boolean) => ({
    type: 'line',
    name,
    data,
    symbol: hollow ? 'emptyCircle' : 'circle',
    symbolSize: 9,
    showSymbol: true,
    // Every marker, however dense the days (ECharts thins symbols on a narrow chart otherwise).
    showAllSymbol: true,
    lineStyle: { opacity: 0 },
    itemStyle: { color: colour },
    z: 5,
  });
  return {
    animation: false,
    color: ['#5470c6', '#91cc75', '#fac858', '#73c0de', '#3ba272'],
    legend: { top: 0, type: 'scroll' },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (x: unknown) => (typeof x === 'number' ? money(x, d.currency) : '–'),
    },
    grid: { left: 12, right: thresholdLabelRoom(lines, d.currency), top: 40, bottom: 24, containLabel: true },
    xAxis: { type: 'category', data: s.dates, axisLabel: { formatter: (x: string) => x.slice(5) } },
    yAxis: {
      type: 'value',
      axisLabel: { formatter: (x: number) => formatAxis(x, d.currency) },
      splitLine: { lineStyle: { color: '#e6e6e6' } },
    },
    series: [
      ...s.queries.map((q) => ({
        type: 'line',
        name: queryLabel(d, q.name),
        data: q.values,
        showSymbol: false,
        ...(q === main && lines.length
          ? {
              markLine: {
                symbol: 'none',
                silent: true,
                data: lines.map((t) => ({
                  yAxis: t.value,
                  lineStyle: { color: SEVERITY_COLOURS[t.severityLevel] ?? '#c0392b', type: 'solid' },
                  // Beside the plot, right of the line's end, on two lines: inside the plot
                  // the label sat on the series' last days (docs/console.md).
                  label: {
                    formatter: thresholdLabel(t, d.currency),
                    position: 'end',
                    color: SEVERITY_COLOURS[t.severityLevel] ?? '#c0392b',
                    fontWeight: 'bold',
                    lineHeight: 15,
                  },
                })),
              },
            }
          : {}),
      })),
      ...(s.baselines ?? []).map((b) => ({
        type: 'line',
        name: baselineLabel(d, b.key),
        data: b.values,
        showSymbol: false,
        lineStyle: { type: 'dashed' },
      })),
      ...(heldOnly.some(Boolean) ? [marker('Rule held', at(heldOnly), '#e69500', true)] : []),
      ...(s.fired.some(Boolean) ? [marker('Fired', at(s.fired), '#c0392b', false)] : []),
    ],
  };
}

export interface AlertDayRow {
  date: string;
  /** Each query's figure, then each baseline's, formatted in the alert's currency. */
  cells: string[];
  triggered: boolean;
  fired: boolean;
}

/** The table beside the chart: one row per day, newest first. */
export function alertDayRows(d: AlertWidgetData): { columns: string[]; rows: AlertDayRow[] } {
  const s = d.series;
  if (!s) return { columns: [], rows: [] };
  const cols = [
    ...s.queries.map((q) => ({ name: queryLabel(d, q.name), values: q.values })),
    ...(s.baselines ?? []).map((b) => ({ name: baselineLabel(d, b.key), values: b.values })),
  ];
  const rows = s.dates.map((date, i) => ({
    date,
    cells: cols.map((c) => money(c.values[i], d.currency)),
    triggered: s.triggered[i] === true,
    fired: s.fired[i] === true,
  }));
  return { columns: cols.map((c) => c.name), rows: rows.reverse() };
}

const SUPPRESSED: Record<string, string> = {
  DEDUP: 'not sent: already notified in the dedup window',
  SNOOZE: 'not sent: snoozed',
  MIN_COST: 'not sent: below the minimum cost',
};

/** An evaluation's figures (`changePercent` in percent, the rest in the alert's currency). */
export function evaluationValues(
  e: Pick<AlertEvaluation, 'values' | 'evaluatedDay'>,
  alert: CostAlert,
  thresholds: readonly AlertThreshold[] = [],
): string {
  const currency = alert.currency;
  if (alert.condition)
    // The message's own words: "S3 cost" and "S3 cost, 28-day median", never `rollingMedian(s3,28,DAY)`.
    return explainEvaluation(alert, thresholds, e.values, e.evaluatedDay)
      .figures.map(([label, value]) => `${label} ${value}`)
      .join(' · ');
  return Object.entries(e.values)
    .map(([k, x]) =>
      k === 'changePercent'
        ? `Change ${x === null ? '—' : `${x.toFixed(1)}%`}`
        : `${VALUE_WORDS[k] ?? queryLabel(alert, k)} ${money(x, currency)}`,
    )
    .join(' · ');
}

/**
 * A condition's baseline (`rollingMedian(s3,28,DAY)`, as the series and the history key it) in the
 * messages' words ("S3 cost, 28-day median"): the explanation of that one value names it.
 */
export function baselineLabel(alert: CostAlert, key: string): string {
  const named = explainEvaluation(alert, [], { [key]: 0 }).figures.find(([l]) => l.includes(', '));
  return named?.[0] ?? key;
}

/** The threshold variants' other figures (docs/alerts.md, history). */
const VALUE_WORDS: Record<string, string> = { change: 'Change', baseline: 'Previous period' };

/** A query as its alias names it (the name it was given when it has none). */
export function queryLabel(alert: Pick<CostAlert, 'queries'>, name: string): string {
  const q = alert.queries.find((x) => x.name === name);
  return q?.alias || name;
}

/**
 * The alert messages' explanation (shared/domain/alerts/render.ts) of values on `day`: the rule in
 * words and each figure named. `values` holds the queries' values and the condition's baselines,
 * keyed as the history records them.
 */
function explainEvaluation(
  alert: CostAlert,
  thresholds: readonly AlertThreshold[],
  values: Record<string, number | null>,
  day = '',
) {
  return explain({
    alert: { ...alert, urlState: null } as unknown as AlertFiring['alert'],
    thresholds: thresholds as AlertFiring['thresholds'],
    evaluatedDay: day,
    period: { start: day, end: day },
    values,
    baselines: values,
    appUrl: '',
  });
}

/** What came of an evaluation: notified, suppressed (and why), or the rule did not hold. */
export function evaluationOutcome(e: AlertEvaluation): string {
  if (!e.triggered) return 'Rule did not hold';
  if (e.notificationId) return 'Notified';
  return `Rule held, ${e.suppressedBy ? SUPPRESSED[e.suppressedBy] : 'not sent'}`;
}

/** Root causes as the messages compute them (cost and budget alerts), in the messages' words. */
export function causesText(
  rc: RootCauses,
  currency: string,
): { heading: string | null; lines: string[] } | null {
  const lines = rootCauseLines({ alert: { currency }, rootCauses: rc } as unknown as AlertFiring);
  return lines ? { heading: lines.heading, lines: lines.lines } : null;
}

/**
 * A history entry's top contributors, in the messages' words (shared/domain/alerts/render.ts):
 * `rootCauses` as the messages compute them (`{dimension, query, …, top}`), or a list of
 * `{label | values | group, current | after, baseline | before, change}`; null when the entry has
 * none (an evaluation that did not fire, or one recorded before the history kept them).
 */
export function historyCauses(
  e: AlertEvaluation & { rootCauses?: unknown },
  currency: string,
): { heading: string | null; lines: string[] } | null {
  const rc = e.rootCauses;
  const firing = (causes: RootCauses) =>
    rootCauseLines({ alert: { currency }, rootCauses: causes } as unknown as AlertFiring);
  if (rc && typeof rc === 'object' && !Array.isArray(rc) && Array.isArray((rc as RootCauses).top))
    return causesText(rc as RootCauses, currency);
  if (!Array.isArray(rc)) return null;
  const top = rc.flatMap((x): RootCause[] => {
    if (!x || typeof x !== 'object') return [];
    const o = x as Record<string, unknown>;
    const num = (...keys: string[]) => {
      for (const k of keys) if (typeof o[k] === 'number') return o[k] as number;
      return null;
    };
    const after = num('current', 'after');
    const before = num('baseline', 'before');
    if (after === null || before === null) return [];
    const group = o.values ?? o.group ?? o.dimensions;
    const label =
      typeof o.label === 'string'
        ? o.label
        : group && typeof group === 'object'
          ? Object.values(group as Record<string, unknown>)
              .map((v) => (v === null || v === undefined ? '(no value)' : String(v)))
              .join(' / ')
          : '';
    const change = num('change') ?? after - before;
    return [
      {
        label: label || '(no value)',
        before,
        after,
        change,
        changePercent: num('changePercent') ?? (before === 0 ? null : (change / before) * 100),
        share: num('share'),
      },
    ];
  });
  if (!top.length) return null;
  // A list has no heading of its own: its totals only complete the messages' input.
  const before = top.reduce((a, c) => a + c.before, 0);
  const after = top.reduce((a, c) => a + c.after, 0);
  const lines = firing({
    dimension: '',
    query: '',
    period: { start: e.evaluatedDay, end: e.evaluatedDay },
    baseline: { start: '', end: '', label: '' },
    before,
    after,
    change: after - before,
    top,
    explained: null,
  });
  return lines && { heading: null, lines: lines.lines };
}
