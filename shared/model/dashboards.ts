import type { DashboardBody, Widget } from './dashboard-schemas';
import type { VisibilityType } from './enum-schemas';

/** The dashboard body fields other than `widgets`: metadata (name, type, team, scope) and context. */
export type DashboardFields = Omit<DashboardBody, 'widgets'>;

/** The names of `DashboardFields`, in the order records and bodies list them. */
export const DASHBOARD_FIELD_NAMES = [
  'name',
  'description',
  'type',
  'teamId',
  'scopeId',
  'metricId',
  'groupBy',
  'datePreset',
  'startDate',
  'endDate',
  'conditions',
  'currency',
] as const satisfies readonly (keyof DashboardFields)[];
export type DashboardFieldName = (typeof DASHBOARD_FIELD_NAMES)[number];
// Every field of the body is listed: a new one fails to compile here until it is.
const everyField: [Exclude<keyof DashboardFields, DashboardFieldName>] extends [never] ? true : never = true;
void everyField;

/** The dashboard fields of a record or body (the service's, or the console's looser type), in order. */
export function pickDashboardFields<T extends { [K in DashboardFieldName]: unknown }>(
  d: T,
): Pick<T, DashboardFieldName> {
  return Object.fromEntries(DASHBOARD_FIELD_NAMES.map((k) => [k, d[k]])) as Pick<T, DashboardFieldName>;
}

/**
 * A dashboard as list reads return it: the metadata item, without widgets.
 * - `version` is the optimistic-locking counter: it grows on every write (publish, PATCH,
 *   archive). Send it back in the body or as `If-Match` to refuse a stale write.
 * - `publishedVersion` is the number of the latest saved version (`/versions/{n}`); it grows only
 *   on publish.
 */
export interface DashboardSummary extends DashboardFields {
  id: string;
  organizationId: string;
  type: VisibilityType;
  createdById: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  version: number;
  publishedVersion: number;
  publishedAt: string;
  widgetCount: number;
}

/** A dashboard as single reads (and every write) return it: the summary plus the current widgets. */
export interface Dashboard extends DashboardSummary {
  widgets: Widget[];
}

/** One saved version as the history list returns it. */
export interface DashboardVersionSummary {
  dashboardId: string;
  version: number;
  name: string;
  createdAt: string;
  createdById: string;
  widgetCount: number;
  /** Size of the version's JSON (fields plus widgets) in bytes, before compression. */
  jsonBytes: number;
}

/** One saved version in full: what was published (every body field, widgets included). */
export interface DashboardVersion extends DashboardVersionSummary, DashboardFields {
  widgets: Widget[];
}

/** What the scope check needs to know about a stored scope (`keys.scope`): the teams it is tied to. */
export interface ScopeRef {
  teamIds: string[];
}
