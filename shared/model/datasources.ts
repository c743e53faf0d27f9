/**
 * A metrics datasource: a named feed of custom (business or usage) metrics pushed through
 * `POST /metrics-datasources/{id}/points`. A datasource holds any number of named metrics; a point
 * without a `metric` belongs to the metric `value`. DELETE archives it: it then refuses points and
 * its metrics disappear from metric queries, but the record stays readable.
 */
export interface Datasource {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  /** Unit of the datasource's values, for display (e.g. `requests`, `USD`); null when unitless. */
  unit: string | null;
  /** Metric names that have received points, sorted. */
  metricNames: string[];
  createdById: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  /** When points were last pushed. */
  lastPushAt: string | null;
}

export interface MetricPoint {
  metric: string;
  /** ISO 8601 UTC with milliseconds (`2026-01-02T03:04:05.000Z`); for daily points, midnight UTC. */
  timestamp: string;
  value: number;
}

export const DEFAULT_METRIC = 'value';
