import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Report } from '../domain/reports/model';
import { ConflictError } from '../errors';
import { db, isConditionalCheckFailed, tableName } from './client';
import { keys, stripKeys } from './keys';
import { type Page, queryPage } from './page';

export type { Page };

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
  const res = await db().send(new GetCommand({ TableName: tableName(), Key: keys.report(orgId, reportId) }));
  return res.Item ? fromItem(res.Item) : undefined;
}

export async function insertReport(report: Report): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: toItem(report),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Replaces a report only if the stored version is still `expectedVersion`; otherwise a 409. */
export async function replaceReport(report: Report, expectedVersion: number): Promise<void> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: toItem(report),
        ConditionExpression: 'attribute_exists(pk) AND #v = :expected',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':expected': expectedVersion },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new ConflictError('VERSION_CONFLICT');
    throw error;
  }
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
