import type { VisibilityType } from '../common/enums';
import type {
  REPORT_STATUSES,
  ReportContextValue,
  ReportDestination,
  ReportWidgetValue,
  SCHEDULED_PERIODS,
} from './schemas';

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
}
