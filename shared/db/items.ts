import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { INDEX_ON } from './keys';
import { projection } from './page';

/** A DynamoDB item as the DocumentClient returns it. */
export type Item = Record<string, unknown>;

/** One item by its table key, mapped; `undefined` when there is none. */
export async function getItem<T>(
  key: { pk: string; sk: string },
  map: (item: Item) => T,
  opts: { consistent?: boolean } = {},
): Promise<T | undefined> {
  const res = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: key,
      ...(opts.consistent ? { ConsistentRead: true } : {}),
    }),
  );
  return res.Item ? map(res.Item) : undefined;
}

/**
 * The items of GSI1 whose partition and sort key are exactly these (a lookup by a unique-ish
 * attribute: a user by e-mail, a team by name), at most `limit`. GSI reads are eventually
 * consistent: an item written a moment ago may not be found yet.
 */
export async function queryExact<T>(
  index: { gsi1pk: string; gsi1sk: string },
  map: (item: Item) => T,
  limit: number,
): Promise<T[]> {
  const res = await queryIndex(
    'gsi1pk',
    'gsi1pk = :pk AND gsi1sk = :sk',
    { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
    { Limit: limit },
  );
  return (res.Items ?? []).map(map);
}

/** One Query of a global index: `condition` on its key attributes with `values`, then `extra` (limit, projection, start). */
export async function queryIndex(
  index: 'gsi1pk' | 'gsi2pk',
  condition: string,
  values: Item,
  extra: Partial<QueryCommandInput> = {},
) {
  return db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: INDEX_ON[index],
      KeyConditionExpression: condition,
      ExpressionAttributeValues: values,
      ...extra,
    }),
  );
}

/**
 * One read of a shard of the due index: the items whose due time (`gsi2sk`) is at or before `at`,
 * in due order, from `start` on; `attributes`, when given, the only ones read (a projection).
 */
export async function queryDue(q: {
  shard: string;
  at: string;
  limit: number;
  start?: Record<string, unknown> | undefined;
  attributes?: readonly string[];
}): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
  const res = await queryIndex(
    'gsi2pk',
    'gsi2pk = :p AND gsi2sk <= :at',
    { ':p': q.shard, ':at': q.at },
    { ...projection(q.attributes), Limit: q.limit, ...(q.start ? { ExclusiveStartKey: q.start } : {}) },
  );
  return { items: res.Items ?? [], ...(res.LastEvaluatedKey ? { next: res.LastEvaluatedKey } : {}) };
}

/**
 * Every item of one table partition (those whose sort key starts with `skPrefix`, if given; only
 * `attributes`, if given), strongly consistent unless `consistent: false`, following `LastEvaluatedKey` to the end. For partitions known to stay
 * small (a principal's keys, a team's membership); lists shown to users page with `queryPage`.
 */
export async function queryPartition<T>(
  pk: string,
  map: (item: Item) => T,
  opts: { skPrefix?: string; attributes?: readonly string[]; consistent?: boolean } = {},
): Promise<T[]> {
  const out: T[] = [];
  const projected = projection(opts.attributes);
  let start: Item | undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: opts.skPrefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(opts.skPrefix ? { ':prefix': opts.skPrefix } : {}) },
        ...(projected ?? {}),
        ...(opts.consistent === false ? {} : { ConsistentRead: true }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    out.push(...(res.Items ?? []).map(map));
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * The items at these keys (BatchGet, 100 keys per call, strongly consistent, only `attributes` if
 * given). Unprocessed keys are retried with backoff; absent items are simply not in the answer,
 * which comes in no particular order.
 */
export async function batchGetItems(
  itemKeys: readonly { pk: string; sk: string }[],
  opts: { attributes?: readonly string[] } = {},
): Promise<Item[]> {
  const found: Item[] = [];
  const unique = [...new Map(itemKeys.map((k) => [`${k.pk}\u0000${k.sk}`, { pk: k.pk, sk: k.sk }])).values()];
  const projected = projection(opts.attributes);
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Item[] = unique.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('BatchGet kept returning unprocessed keys');
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      const res = await db().send(
        new BatchGetCommand({
          RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true, ...(projected ?? {}) } },
        }),
      );
      found.push(...(res.Responses?.[tableName()] ?? []));
      pending = (res.UnprocessedKeys?.[tableName()]?.Keys as Item[] | undefined) ?? [];
    }
  }
  return found;
}
