import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { BadRequestError } from '../errors';
import { db, decodeCursor, encodeCursor, tableName } from './client';
import { INDEX_ON } from './keys';

/** A page of a list: `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageQuery<T> {
  /** The partition to read: the table's `pk`, or an index's partition attribute. */
  partition: { attribute: 'pk' | 'gsi1pk' | 'gsi2pk'; value: string };
  /** Only items whose sort key starts with this. */
  skPrefix?: string;
  /** Descending sort-key order (newest first for time-ordered keys). */
  descending?: boolean;
  /** Strongly consistent (table partitions only). */
  consistent?: boolean;
  /** Only these attributes of each item (a projection); all when absent. */
  attributes?: readonly string[];
  limit: number;
  cursor?: string | undefined;
  map: (item: Record<string, unknown>) => T;
}

const SORT_KEY = { pk: 'sk', gsi1pk: 'gsi1sk', gsi2pk: 'gsi2sk' } as const;

/**
 * One page of a single-partition query. A cursor must point into the same partition and key range
 * (a forged or foreign one is a 400), so a page can never start in another organisation's items.
 */
export async function queryPage<T>(q: PageQuery<T>): Promise<Page<T>> {
  const { attribute, value } = q.partition;
  const start = decodeCursor(q.cursor);
  const sortKey = start?.[SORT_KEY[attribute]];
  const inRange = !q.skPrefix || (typeof sortKey === 'string' && sortKey.startsWith(q.skPrefix));
  if (q.cursor && (!start || start[attribute] !== value || !inRange))
    throw new BadRequestError('Invalid cursor');
  const index = attribute === 'pk' ? undefined : INDEX_ON[attribute];
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...(index ? { IndexName: index } : {}),
      KeyConditionExpression: q.skPrefix ? '#p = :p AND begins_with(#s, :prefix)' : '#p = :p',
      ExpressionAttributeNames: {
        '#p': attribute,
        ...(q.skPrefix ? { '#s': SORT_KEY[attribute] } : {}),
        ...projection(q.attributes)?.ExpressionAttributeNames,
      },
      ...(q.attributes ? { ProjectionExpression: projection(q.attributes)?.ProjectionExpression } : {}),
      ExpressionAttributeValues: { ':p': value, ...(q.skPrefix ? { ':prefix': q.skPrefix } : {}) },
      ScanIndexForward: !q.descending,
      ...(q.consistent && !index ? { ConsistentRead: true } : {}),
      Limit: q.limit,
      ...(start ? { ExclusiveStartKey: startKey(start, attribute) } : {}),
    }),
  );
  return { items: (res.Items ?? []).map(q.map), nextCursor: encodeCursor(res.LastEvaluatedKey) };
}

/** Only the key attributes of a decoded cursor, so a forged cursor cannot smuggle in anything else. */
function startKey(start: Record<string, unknown>, attribute: PageQuery<unknown>['partition']['attribute']) {
  const names = attribute === 'pk' ? ['pk', 'sk'] : [attribute, SORT_KEY[attribute], 'pk', 'sk'];
  const key: Record<string, unknown> = {};
  for (const name of names) {
    if (typeof start[name] !== 'string') throw new BadRequestError('Invalid cursor');
    key[name] = start[name];
  }
  return key;
}

/** A ProjectionExpression naming every attribute through a placeholder (`#a0, #a1…`, no reserved-word clash). */
export function projection(
  attributes: readonly string[] | undefined,
): { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> } | undefined {
  if (!attributes) return undefined;
  const names: Record<string, string> = {};
  attributes.forEach((name, i) => {
    names[`#a${i}`] = name;
  });
  return { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names };
}

/** One page of a `keys.…Listing` (the items of a table partition under a sort-key prefix), in sort-key order. */
export function queryListing<T>(
  listing: { pk: string; skPrefix: string },
  page: { limit: number; cursor?: string | undefined },
  map: (item: Record<string, unknown>) => T,
  attributes?: readonly string[],
): Promise<Page<T>> {
  return queryPage({
    partition: { attribute: 'pk', value: listing.pk },
    skPrefix: listing.skPrefix,
    ...(attributes ? { attributes } : {}),
    limit: page.limit,
    cursor: page.cursor,
    map,
  });
}

/**
 * One page newest first (descending sort key): of an organisation's listing index (`keys.…Index(orgId,
 * '')`, its `gsi1pk`) or of a table partition under a sort-key prefix (`{ pk, skPrefix }`).
 */
export function queryNewest<T>(
  where: { gsi1pk: string } | { pk: string; skPrefix: string },
  page: { limit: number; cursor?: string | undefined },
  map: (item: Record<string, unknown>) => T,
): Promise<Page<T>> {
  return queryPage({
    ...('gsi1pk' in where
      ? { partition: { attribute: 'gsi1pk' as const, value: where.gsi1pk } }
      : { partition: { attribute: 'pk' as const, value: where.pk }, skPrefix: where.skPrefix }),
    descending: true,
    limit: page.limit,
    cursor: page.cursor,
    map,
  });
}

/** The filter of a whole-table scan: its expression and the names and values it uses. */
export interface ScanFilter {
  expression: string;
  names?: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * One page of a scan of the whole table, filtered by `filter`, each item read by `map`; `next`
 * (the last evaluated key) continues it. For operators' reads and one-off migrations, never a
 * request path.
 */
export async function scanPage<T>(
  filter: ScanFilter,
  start: Record<string, unknown> | undefined,
  map: (item: Record<string, unknown>) => T,
): Promise<{ items: T[]; next: Record<string, unknown> | undefined }> {
  const res = await db().send(
    new ScanCommand({
      TableName: tableName(),
      FilterExpression: filter.expression,
      ...(filter.names ? { ExpressionAttributeNames: filter.names } : {}),
      ExpressionAttributeValues: filter.values,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return { items: (res.Items ?? []).map(map), next: res.LastEvaluatedKey };
}
