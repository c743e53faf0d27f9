import type { Report } from '../domain/reports/model';
import { getItem } from './items';
import { keys, stripKeys } from './keys';
import { type Page, queryPage } from './page';
import { insertNew, replaceVersioned } from './writes';

const ENTITY = 'report';
const SCHEMA_VERSION = 1;

function toItem(report: Report): Record<string, unknown> {
  return {
    ...keys.report(report.organizationId, report.id),
    ...keys.reportsIndex(report.organizationId, `${report.updatedAt}#${report.id}`),
    entity: ENTITY,
    schemaVersion: SCHEMA_VERSION,
    ...report,
  };
}

function fromItem(item: Record<string, unknown>): Report {
  return stripKeys(item) as unknown as Report;
}

export async function getReport(orgId: string, reportId: string): Promise<Report | undefined> {
  return getItem(keys.report(orgId, reportId), fromItem);
}

export async function insertReport(report: Report): Promise<void> {
  await insertNew(toItem(report));
}

/** Replaces a report only if the stored version is still `expectedVersion`; otherwise a 409. */
export async function replaceReport(report: Report, expectedVersion: number): Promise<void> {
  await replaceVersioned(toItem(report), expectedVersion);
}

/** Reports of an organisation, most recently updated first. */
export async function listReports(orgId: string, limit: number, cursor?: string): Promise<Page<Report>> {
  return queryPage({
    partition: { attribute: 'gsi1pk', value: keys.reportsIndex(orgId, '').gsi1pk },
    descending: true,
    limit,
    cursor,
    map: fromItem,
  });
}
