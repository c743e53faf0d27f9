import type { DashboardBody, Widget } from './dashboard-schemas';
import type { VisibilityType } from './enum-schemas';

/** The dashboard body fields other than `widgets`: metadata (name, type, team, scope) and context. */
export type DashboardFields = Omit<DashboardBody, 'widgets'>;

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
