import type { VisibilityType } from './enum-schemas';
import type {
  REPORT_STATUSES,
  ReportContextValue,
  ReportDestination,
  ReportWidgetValue,
  SCHEDULED_PERIODS,
} from './report-schemas';

/** A report as the API returns it. */
export interface Report {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  type: VisibilityType;
  teamId: string | null;
  context: ReportContextValue;
  scheduledPeriod: (typeof SCHEDULED_PERIODS)[number] | null;
  scheduledWeekday: number | null;
  status: (typeof REPORT_STATUSES)[number];
  widgets: ReportWidgetValue[];
  destinations: ReportDestination[];
  createdById: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  /** Optimistic-locking counter; send it back as `If-Match` to refuse a stale update. */
  version: number;
  /**
   * The next scheduled delivery (ISO instant), null for an on-demand, INACTIVE or archived report.
   * Read-only: computed from the schedule (docs/report-delivery.md).
   */
  nextRunAt: string | null;
}

export type DeliveryStatus = 'PENDING' | 'SENT' | 'FAILED';

/** One destination of one run: `GET /reports/{id}/deliveries` lists them, newest run first. */
export interface ReportDelivery {
  reportId: string;
  /** The run's scheduled time (or the time of an on-demand send): with the report, its idempotency key. */
  runAt: string;
  trigger: 'SCHEDULE' | 'MANUAL';
  destinationType: 'EMAIL' | 'SLACK';
  /** The address or channel id. */
  destination: string;
  status: DeliveryStatus;
  attempts: number;
  error: string | null;
  sentAt: string | null;
  updatedAt: string;
}

/**
 * A file the render step produces for a delivery: a chart PNG (shown inline in an email, its
 * content id = `filename`) or a dashboard PDF (attached). Structurally the same as the notify
 * layer's attachment type, so a rendered report is handed to the senders as it is.
 */
export interface ReportAttachment {
  filename: string;
  contentType: 'image/png' | 'application/pdf';
  content: Uint8Array;
  inline: boolean;
}
