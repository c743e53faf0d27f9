/**
 * The reports page's data shaping (pure, no DOM): the schedule in words, the schedule form → PATCH
 * body, destinations and widgets in words (docs/reports.md, docs/report-delivery.md).
 */

import { REPORT_STATUSES, SCHEDULED_PERIODS } from '../../shared/enums';
import type { ReportDelivery as Delivery } from '../../shared/model/reports';

export type ScheduledPeriod = (typeof SCHEDULED_PERIODS)[number];
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export type { Delivery };
export { REPORT_STATUSES, SCHEDULED_PERIODS };

export interface Report {
  id: string;
  name: string;
  description: string;
  type: string;
  teamId: string | null;
  context: { metricId?: string; groupBy?: unknown; datePreset?: string; currency?: string };
  scheduledPeriod: ScheduledPeriod | null;
  scheduledWeekday: number | null;
  status: ReportStatus;
  widgets: { type: string; title?: string }[];
  destinations: { destinationType: string; destinationValues: string[] }[];
  createdById: string;
  updatedAt: string;
  archivedAt: string | null;
  version: number;
  nextRunAt: string | null;
}

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The delivery hour (docs/report-delivery.md: 08:00 in the organisation's time zone). */
const AT = "at 08:00 (the organisation's time zone)";

/** The schedule in words. */
export function scheduleText(r: Pick<Report, 'scheduledPeriod' | 'scheduledWeekday' | 'status'>): string {
  const when =
    r.scheduledPeriod === null
      ? 'On demand'
      : r.scheduledPeriod === 'DAILY'
        ? `Every day ${AT}`
        : r.scheduledPeriod === 'WEEKDAYS'
          ? `Monday to Friday ${AT}`
          : r.scheduledPeriod === 'WEEKLY'
            ? `Every ${WEEKDAYS[r.scheduledWeekday ?? 1]} ${AT}`
            : `On the 1st of each month ${AT}`;
  return r.status === 'INACTIVE' && r.scheduledPeriod !== null ? `${when}, paused` : when;
}

/** A UTC timestamp as `YYYY-MM-DD HH:MM UTC` (what the page prints for run times). */
export function utc(ts: string | null): string {
  return ts ? `${ts.slice(0, 16).replace('T', ' ')} UTC` : '—';
}

export interface ScheduleForm {
  /** '' for on demand. */
  period: ScheduledPeriod | '';
  weekday: number;
  status: ReportStatus;
}

export function scheduleForm(r: Report): ScheduleForm {
  return { period: r.scheduledPeriod ?? '', weekday: r.scheduledWeekday ?? 1, status: r.status };
}

/** `PATCH /reports/{id}` body of the schedule form: the weekday only for WEEKLY. */
export function schedulePatch(f: ScheduleForm): Record<string, unknown> {
  return {
    scheduledPeriod: f.period || null,
    scheduledWeekday: f.period === 'WEEKLY' ? f.weekday : null,
    status: f.status,
  };
}

/** Destinations in words: `E-mail: a@x, b@x · Slack: C123`. */
export function destinationsText(r: Pick<Report, 'destinations'>): string {
  if (!r.destinations.length) return 'No destination';
  return r.destinations
    .map((d) => `${d.destinationType === 'EMAIL' ? 'E-mail' : 'Slack'}: ${d.destinationValues.join(', ')}`)
    .join(' · ');
}

/** Widgets in words: `Text, Graph snapshot "Monthly"`. */
export function widgetsText(r: Pick<Report, 'widgets'>): string {
  if (!r.widgets.length) return 'No widget';
  const names: Record<string, string> = {
    TEXT: 'Text',
    DIGEST: 'Digest',
    TOP_FLOP: 'Top and flop',
    GRAPH_SNAPSHOT: 'Graph snapshot',
    DASHBOARD_PDF: 'Dashboard PDF',
  };
  return r.widgets.map((w) => `${names[w.type] ?? w.type}${w.title ? ` “${w.title}”` : ''}`).join(', ');
}

/** True while a run sent at `runAt` still has a destination waiting (the page keeps polling). */
export function runPending(deliveries: readonly Delivery[], runAt: string, destinations: number): boolean {
  const run = deliveries.filter((d) => d.runAt === runAt);
  return run.length < destinations || run.some((d) => d.status === 'PENDING');
}
