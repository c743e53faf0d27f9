import type { Budget, BudgetVersion } from '../model/budgets';
import { conflictOnCancel, defineEntity, type TransactItem, transact } from './entity';
import { keys, stripKeys } from './keys';
import { type Page, queryNewest, queryPage } from './page';

/**
 * Budgets in the single table (docs/budgets.md):
 * - `ORG#o#BUDGET#b` / `META`: the current record, GSI1 `ORG#o#BUDGETS` (or `…#ARCHIVED` once
 *   archived) / `<createdAt>#<id>` for the newest-first list;
 * - `ORG#o#BUDGET#b` / `V#000007`: saved version 7, as it was saved.
 * `lines` and `whereClause` are stored as JSON strings (free-form map keys never meet DynamoDB's
 * map rules). A create or a PUT writes the record and the new version in one transaction, the
 * record's put conditional on the version it was read at.
 */

/** `lines` and `whereClause` as the JSON strings stored in their place. */
function jsonFields<T extends Pick<Budget, 'lines' | 'whereClause'>>(record: T) {
  const { lines, whereClause, ...rest } = record;
  return { ...rest, linesJson: JSON.stringify(lines), whereClauseJson: JSON.stringify(whereClause) };
}

function fromJsonFields<T>(item: Record<string, unknown>): T {
  const { linesJson, whereClauseJson, ...rest } = stripKeys(item);
  return {
    ...rest,
    lines: JSON.parse(String(linesJson)),
    whereClause: JSON.parse(String(whereClauseJson)),
  } as T;
}

const budgets = defineEntity<Budget>({
  name: 'budget',
  schemaVersion: 1,
  key: (b) => keys.budget(b.organizationId, b.id),
  indexes: (b) => keys.budgetsIndex(b.organizationId, b.archivedAt !== null, `${b.createdAt}#${b.id}`),
  attributes: jsonFields,
  read: fromJsonFields,
});

/** A saved version; its organisation is its budget's (the version record does not carry it). */
const versions = defineEntity<BudgetVersion & { orgId: string }>({
  name: 'budgetVersion',
  schemaVersion: 1,
  key: (v) => keys.budgetVersion(v.orgId, v.budgetId, v.versionNumber),
  attributes: ({ orgId: _org, ...version }) => jsonFields(version),
  read: fromJsonFields,
});

/** The transaction; a failed condition or a concurrent transaction on the same items is a 409 `VERSION_CONFLICT`. */
async function save(items: TransactItem[]): Promise<void> {
  await transact(items, conflictOnCancel, { idempotent: true });
}

const newVersionPut = (orgId: string, version: BudgetVersion): TransactItem =>
  versions.transactPut({ ...version, orgId });

/** The record's put, only while it is still at `expectedVersion` and not archived. */
const recordPutAt = (b: Budget, expectedVersion: number): TransactItem =>
  budgets.transactPut(b, {
    expression: 'attribute_exists(pk) AND #v = :expected AND attribute_type(archivedAt, :null)',
    names: { '#v': 'versionNumber' },
    values: { ':expected': expectedVersion, ':null': 'NULL' },
  });

/** Creates the budget and its version 1 atomically. */
export async function insertBudget(b: Budget, version: BudgetVersion): Promise<void> {
  await save([budgets.transactPut(b), newVersionPut(b.organizationId, version)]);
}

/** Saves `version` and the record pointing at it, if the stored record is still at `expectedVersion`. */
export async function saveBudgetVersion(
  b: Budget,
  version: BudgetVersion,
  expectedVersion: number,
): Promise<void> {
  await save([recordPutAt(b, expectedVersion), newVersionPut(b.organizationId, version)]);
}

/** Replaces the record only (archive), if it is still at `expectedVersion` and not archived. */
export async function replaceBudgetRecord(b: Budget, expectedVersion: number): Promise<void> {
  await save([recordPutAt(b, expectedVersion)]);
}

export async function getBudget(orgId: string, budgetId: string): Promise<Budget | undefined> {
  return budgets.get(keys.budget(orgId, budgetId));
}

/** Budgets newest first: active ones, or the archived ones. */
export async function listBudgets(
  orgId: string,
  archived: boolean,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<Budget>> {
  return queryNewest(keys.budgetsIndex(orgId, archived, ''), page, (item) => fromJsonFields<Budget>(item));
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

export const getBudgetVersion = (orgId: string, budgetId: string, versionNumber: number) =>
  versions.get(keys.budgetVersion(orgId, budgetId, versionNumber));
