import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Budget, BudgetVersion } from '../domain/budgets/model';
import { cancellationCodes, db, isTransactionCanceled, tableName } from './client';
import { getItem } from './items';
import { keys, stripKeys } from './keys';
import { type Page, queryPage } from './page';
import { versionConflict } from './writes';

/**
 * Budgets in the single table (docs/budgets.md):
 * - `ORG#o#BUDGET#b` / `META`: the current record, GSI1 `ORG#o#BUDGETS` (or `…#ARCHIVED` once
 *   archived) / `<createdAt>#<id>` for the newest-first list;
 * - `ORG#o#BUDGET#b` / `V#000007`: saved version 7, as it was saved.
 * `lines` and `whereClause` are stored as JSON strings (free-form map keys never meet DynamoDB's
 * map rules). A create or a PUT writes the record and the new version in one transaction, the
 * record's put conditional on the version it was read at.
 */

const ENTITY = 'budget';
const VERSION_ENTITY = 'budgetVersion';
const SCHEMA_VERSION = 1;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

function recordItem(b: Budget): Record<string, unknown> {
  const { lines, whereClause, ...rest } = b;
  return {
    ...keys.budget(b.organizationId, b.id),
    ...keys.budgetsIndex(b.organizationId, b.archivedAt !== null, `${b.createdAt}#${b.id}`),
    entity: ENTITY,
    schemaVersion: SCHEMA_VERSION,
    ...rest,
    linesJson: JSON.stringify(lines),
    whereClauseJson: JSON.stringify(whereClause),
  };
}

function fromJsonFields<T>(item: Record<string, unknown>): T {
  const { linesJson, whereClauseJson, ...rest } = stripKeys(item);
  return {
    ...rest,
    lines: JSON.parse(String(linesJson)),
    whereClause: JSON.parse(String(whereClauseJson)),
  } as T;
}

function versionItem(orgId: string, version: BudgetVersion): Record<string, unknown> {
  const { lines, whereClause, ...rest } = version;
  return {
    ...keys.budgetVersion(orgId, version.budgetId, version.versionNumber),
    entity: VERSION_ENTITY,
    schemaVersion: SCHEMA_VERSION,
    ...rest,
    linesJson: JSON.stringify(lines),
    whereClauseJson: JSON.stringify(whereClause),
  };
}

async function transact(items: TransactItem[]): Promise<void> {
  try {
    // The SDK's own retries reuse the token, so a retried write that did commit is no false conflict.
    await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: randomUUID() }));
  } catch (error) {
    if (isTransactionCanceled(error)) {
      const codes = cancellationCodes(error);
      if (codes.some((c) => c === 'ConditionalCheckFailed' || c === 'TransactionConflict')) versionConflict();
    }
    throw error;
  }
}

const newVersionPut = (orgId: string, version: BudgetVersion): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: versionItem(orgId, version),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The record's put, only while it is still at `expectedVersion` and not archived. */
const recordPutAt = (b: Budget, expectedVersion: number): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: recordItem(b),
    ConditionExpression: 'attribute_exists(pk) AND #v = :expected AND attribute_type(archivedAt, :null)',
    ExpressionAttributeNames: { '#v': 'versionNumber' },
    ExpressionAttributeValues: { ':expected': expectedVersion, ':null': 'NULL' },
  },
});

/** Creates the budget and its version 1 atomically. */
export async function insertBudget(b: Budget, version: BudgetVersion): Promise<void> {
  await transact([
    { Put: { TableName: tableName(), Item: recordItem(b), ConditionExpression: 'attribute_not_exists(pk)' } },
    newVersionPut(b.organizationId, version),
  ]);
}

/** Saves `version` and the record pointing at it, if the stored record is still at `expectedVersion`. */
export async function saveBudgetVersion(
  b: Budget,
  version: BudgetVersion,
  expectedVersion: number,
): Promise<void> {
  await transact([recordPutAt(b, expectedVersion), newVersionPut(b.organizationId, version)]);
}

/** Replaces the record only (archive), if it is still at `expectedVersion` and not archived. */
export async function replaceBudgetRecord(b: Budget, expectedVersion: number): Promise<void> {
  await transact([recordPutAt(b, expectedVersion)]);
}

export async function getBudget(orgId: string, budgetId: string): Promise<Budget | undefined> {
  return getItem(keys.budget(orgId, budgetId), (item) => fromJsonFields<Budget>(item), { consistent: true });
}

/** Budgets newest first: active ones, or the archived ones. */
export async function listBudgets(
  orgId: string,
  archived: boolean,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<Budget>> {
  return queryPage({
    partition: { attribute: 'gsi1pk', value: keys.budgetsIndex(orgId, archived, '').gsi1pk },
    descending: true,
    limit: page.limit,
    cursor: page.cursor,
    map: (item) => fromJsonFields<Budget>(item),
  });
}

/** Saved versions, newest first. */
export async function listBudgetVersions(
  orgId: string,
  budgetId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<BudgetVersion>> {
  const listing = keys.budgetVersionsListing(orgId, budgetId);
  return queryPage({
    partition: { attribute: 'pk', value: listing.pk },
    skPrefix: listing.skPrefix,
    descending: true,
    consistent: true,
    limit: page.limit,
    cursor: page.cursor,
    map: (item) => fromJsonFields<BudgetVersion>(item),
  });
}

export async function getBudgetVersion(
  orgId: string,
  budgetId: string,
  versionNumber: number,
): Promise<BudgetVersion | undefined> {
  return getItem(
    keys.budgetVersion(orgId, budgetId, versionNumber),
    (item) => fromJsonFields<BudgetVersion>(item),
    {
      consistent: true,
    },
  );
}
