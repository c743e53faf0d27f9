import type { Principal } from '../../auth/principal';
import * as repo from '../../db/datasources-repo';
import { BadRequestError, NotFoundError } from '../../errors';
import { newId } from '../../ids';
import type { Datasource } from '../../model/datasources';
import {
  type Aggregator,
  type Granularity,
  normalizeTimestamp,
  preparePoints,
  queryMetricPoints,
} from './points';
import type { CreateDatasourceInput, PushPointsInput } from './schemas';

export async function createDatasource(
  principal: Principal,
  input: CreateDatasourceInput,
): Promise<Datasource> {
  const at = new Date().toISOString();
  const ds: Datasource = {
    id: newId('ds'),
    organizationId: principal.orgId,
    name: input.name,
    description: input.description,
    unit: input.unit,
    metricNames: [],
    createdById: principal.principalId,
    createdAt: at,
    updatedAt: at,
    archivedAt: null,
    lastPushAt: null,
  };
  await repo.insertDatasource(ds);
  return ds;
}

export async function readDatasource(principal: Principal, id: string): Promise<Datasource> {
  const ds = await repo.getDatasource(principal.orgId, id);
  if (!ds) throw new NotFoundError('NOT_FOUND');
  return ds;
}

export async function listDatasources(
  principal: Principal,
  opts: { limit: number; cursor?: string; includeArchived: boolean },
): Promise<{ items: Datasource[]; nextCursor: string | null }> {
  const page = await repo.listDatasources(principal.orgId, opts.limit, opts.cursor);
  return {
    items: page.items.filter((d) => opts.includeArchived || !d.archivedAt),
    nextCursor: page.nextCursor,
  };
}

/** `DELETE /iac/metricsDatasources/{id}`: archives; archiving again answers the archived record. */
export async function archiveDatasource(principal: Principal, id: string): Promise<Datasource> {
  return repo.archiveDatasource(principal.orgId, id, new Date().toISOString());
}

export interface PushResult {
  datasourceId: string;
  /** Points stored (after in-batch deduplication). */
  accepted: number;
  /** Points of the batch dropped because a later one had the same metric and timestamp. */
  duplicates: number;
  metrics: string[];
}

/**
 * Stores a batch of points. The datasource gate (exists, not archived, metric-name cap) is one
 * conditional update that also records the metric names; the points follow in batches. A point
 * whose (metric, timestamp) exists is overwritten. Archived: 409 `{error:'DATASOURCE_ARCHIVED'}`.
 */
export async function pushPoints(
  principal: Principal,
  id: string,
  input: PushPointsInput,
): Promise<PushResult> {
  const now = new Date();
  const { points, duplicates, issues } = preparePoints(input.points, now);
  if (issues.length > 0) throw new BadRequestError(`Invalid body: ${issues[0]?.path}: ${issues[0]?.message}`);
  const metrics = [...new Set(points.map((p) => p.metric))].sort();
  await repo.recordPush(principal.orgId, id, metrics, now.toISOString());
  await repo.putPoints(principal.orgId, id, points, now.toISOString());
  return { datasourceId: id, accepted: points.length, duplicates, metrics };
}

/**
 * `GET /metrics-datasources/{id}/points`: the same read metric queries use. Unknown id: 404;
 * archived: an empty list with `archived: true` (its points are out of every query).
 */
export async function readPoints(
  principal: Principal,
  id: string,
  q: { from: string; to: string; metric?: string; granularity: Granularity; aggregator: Aggregator },
) {
  const ds = await repo.getDatasource(principal.orgId, id, false);
  if (!ds) throw new NotFoundError('NOT_FOUND');
  const from = normalizeTimestamp(q.from);
  const to = normalizeTimestamp(q.to);
  if (!(from < to)) throw new BadRequestError('Invalid query: from must be before to');
  const res = await queryMetricPoints(principal.orgId, id, q.metric, from, to, {
    granularity: q.granularity,
    aggregator: q.aggregator,
  });
  return {
    datasourceId: id,
    archived: Boolean(ds.archivedAt),
    granularity: q.granularity,
    from,
    to,
    points: res.points,
    truncated: res.truncated,
  };
}
