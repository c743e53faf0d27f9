import * as repo from '../../db/datasources-repo';
import type { FieldIssue } from '../../errors';
import { DEFAULT_METRIC, type MetricPoint } from '../../model/datasources';

/**
 * Metric points: what a push stores and what metric queries read. Points are items keyed by
 * (datasource, metric, timestamp), so pushing the same timestamp again overwrites the value
 * (deduplication by timestamp, last write wins). Archived datasources are invisible here.
 */

export type Aggregator = 'SUM' | 'AVG' | 'MAX' | 'MIN';
export type Granularity = 'raw' | 'day';

/** Canonical form of a pushed timestamp: UTC with milliseconds, so equal instants dedupe. */
export function normalizeTimestamp(input: string): string {
  const bare = /^\d{4}-\d{2}-\d{2}$/.test(input);
  return new Date(bare ? `${input}T00:00:00.000Z` : input).toISOString();
}

export const EARLIEST_POINT = '2000-01-01T00:00:00.000Z';
export const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;

/**
 * Normalises a batch: canonical timestamps, default metric, range check, and deduplication inside
 * the batch (the last point for a (metric, timestamp) wins, as a later push would).
 */
export function preparePoints(
  input: readonly { timestamp: string; value: number; metric?: string | undefined }[],
  now: Date,
): { points: MetricPoint[]; duplicates: number; issues: FieldIssue[] } {
  const latest = new Date(now.getTime() + MAX_FUTURE_MS).toISOString();
  const byKey = new Map<string, MetricPoint>();
  const issues: FieldIssue[] = [];
  input.forEach((p, i) => {
    const timestamp = normalizeTimestamp(p.timestamp);
    if (timestamp < EARLIEST_POINT || timestamp > latest) {
      issues.push({
        path: `points.${i}.timestamp`,
        message: 'timestamp must be after 2000-01-01 and at most one day ahead',
      });
      return;
    }
    const metric = p.metric ?? DEFAULT_METRIC;
    const key = `${metric}\n${timestamp}`;
    byKey.delete(key); // re-insert so iteration order follows the last occurrence
    byKey.set(key, { metric, timestamp, value: p.value });
  });
  const points = [...byKey.values()];
  return { points, duplicates: input.length - issues.length - points.length, issues };
}

/** Aggregates raw points into one point per UTC day and metric, oldest first. */
export function rollUpDaily(points: readonly MetricPoint[], aggregator: Aggregator): MetricPoint[] {
  const groups = new Map<string, { metric: string; day: string; values: number[] }>();
  for (const p of points) {
    const day = `${p.timestamp.slice(0, 10)}T00:00:00.000Z`;
    const key = `${p.metric}\n${day}`;
    const g = groups.get(key) ?? { metric: p.metric, day, values: [] };
    g.values.push(p.value);
    groups.set(key, g);
  }
  const out: MetricPoint[] = [];
  for (const g of groups.values()) {
    const v = g.values;
    const value =
      aggregator === 'SUM'
        ? v.reduce((a, b) => a + b, 0)
        : aggregator === 'AVG'
          ? v.reduce((a, b) => a + b, 0) / v.length
          : aggregator === 'MAX'
            ? Math.max(...v)
            : Math.min(...v);
    out.push({ metric: g.metric, timestamp: g.day, value });
  }
  return out.sort((a, b) =>
    a.timestamp === b.timestamp ? (a.metric < b.metric ? -1 : 1) : a.timestamp < b.timestamp ? -1 : 1,
  );
}

/** Most raw points one query reads (per call, all metrics together). */
export const MAX_QUERY_POINTS = 100_000;

export interface MetricQueryOptions {
  granularity?: Granularity;
  aggregator?: Aggregator;
}

export interface MetricQueryResult {
  points: MetricPoint[];
  /** True when MAX_QUERY_POINTS was reached and later points were left out. */
  truncated: boolean;
}

/**
 * The points of a datasource for metric queries (the warehouse's `metric` query kind calls this):
 * `from <= timestamp < to`, one metric or (when `metricName` is undefined) all of the datasource's
 * metrics, raw or rolled up per UTC day with `aggregator` (SUM by default). An unknown, another
 * organisation's or an archived datasource answers no points: archived sources disappear from
 * metric queries.
 */
export async function queryMetricPoints(
  orgId: string,
  datasourceId: string,
  metricName: string | undefined,
  from: string | Date,
  to: string | Date,
  opts: MetricQueryOptions = {},
): Promise<MetricQueryResult> {
  const fromIso = typeof from === 'string' ? normalizeTimestamp(from) : from.toISOString();
  const toIso = typeof to === 'string' ? normalizeTimestamp(to) : to.toISOString();
  if (!(fromIso < toIso)) return { points: [], truncated: false };
  const ds = await repo.getDatasource(orgId, datasourceId, false);
  if (!ds || ds.archivedAt) return { points: [], truncated: false };
  const metrics = metricName !== undefined ? [metricName] : ds.metricNames;
  const points: MetricPoint[] = [];
  let truncated = false;
  for (const metric of metrics) {
    const left = MAX_QUERY_POINTS - points.length;
    if (left <= 0) {
      truncated = true;
      break;
    }
    const res = await repo.queryPoints(orgId, datasourceId, metric, fromIso, toIso, left);
    points.push(...res.points);
    truncated ||= res.truncated;
  }
  if (opts.granularity === 'day') return { points: rollUpDaily(points, opts.aggregator ?? 'SUM'), truncated };
  points.sort((a, b) =>
    a.timestamp === b.timestamp ? (a.metric < b.metric ? -1 : 1) : a.timestamp < b.timestamp ? -1 : 1,
  );
  return { points, truncated };
}

/**
 * How a `metric` query's `metricId` (and optional `rawMetric`) names datasource points, suggested
 * for the warehouse: `metricId` is a datasource id, optionally followed by `/<metric>`; otherwise
 * `rawMetric` names the metric; with neither, every metric of the datasource is read.
 */
export function resolveMetricRef(
  metricId: string,
  rawMetric?: string | null,
): { datasourceId: string; metricName: string | undefined } {
  const slash = metricId.indexOf('/');
  if (slash > 0) return { datasourceId: metricId.slice(0, slash), metricName: metricId.slice(slash + 1) };
  return { datasourceId: metricId, metricName: rawMetric ?? undefined };
}
