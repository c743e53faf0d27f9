import type { Principal } from '../../auth/principal';
import {
  type encodeSnapshot,
  SNAPSHOT_ENCODING,
  type VersionHead,
  type WriteReport,
} from '../../db/dashboards-repo';
import { log } from '../../log';
import type { DashboardBody } from '../../model/dashboard-schemas';
import { type DashboardFields, type DashboardSummary, pickDashboardFields } from '../../model/dashboards';
import { assertJsonSize } from './rules';

// What the service stores and answers of a dashboard: its summary record, its fields, the JSON
// and head of a saved version, and the log line of a write.

/** The record's fields in a stable, readable order. */
export function present(d: DashboardSummary): DashboardSummary {
  return {
    id: d.id,
    organizationId: d.organizationId,
    ...pickDashboardFields(d),
    widgetCount: d.widgetCount,
    version: d.version,
    publishedVersion: d.publishedVersion,
    publishedAt: d.publishedAt,
    createdById: d.createdById,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    archivedAt: d.archivedAt ?? null,
  };
}

export function fieldsOf(body: DashboardBody): DashboardFields {
  return pickDashboardFields(body);
}

/** The JSON stored as a saved version: every body field, widgets last. */
export function versionJson(body: DashboardBody): string {
  const json = JSON.stringify({ ...fieldsOf(body), widgets: body.widgets });
  assertJsonSize(Buffer.byteLength(json), body.conditions);
  return json;
}

export function versionHead(
  dashboardId: string,
  version: number,
  principal: Principal,
  body: DashboardBody,
  at: string,
  encoded: ReturnType<typeof encodeSnapshot>,
): VersionHead {
  return {
    dashboardId,
    version,
    name: body.name,
    createdAt: at,
    createdById: principal.principalId,
    widgetCount: body.widgets.length,
    jsonBytes: encoded.jsonBytes,
    partCount: encoded.parts.length,
    storedBytes: encoded.storedBytes,
    encoding: SNAPSHOT_ENCODING,
  };
}

export function logWrite(
  what: string,
  d: DashboardSummary,
  report: WriteReport,
  extra: Record<string, unknown> = {},
) {
  log.debug(what, {
    dashboardId: d.id,
    version: d.version,
    publishedVersion: d.publishedVersion,
    consumedWriteUnits: report.consumedWriteUnits,
    ...extra,
  });
}
