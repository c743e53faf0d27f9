import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredRateDay } from '../model/fx';
import { db, tableName } from './client';
import { defineEntity } from './entity';
import type { Item } from './items';
import { keys } from './keys';

/**
 * The euro reference rates: one global item per publication day (`FX#EUR` / `YYYY-MM-DD`) with the
 * rates of every currency quoted that day and who published them. Published rates do not change,
 * so a day loaded twice is written whole again (idempotent; two loads of one day write the same
 * item, and the last write is as good as the first).
 */
function toDay(item: Item): StoredRateDay {
  return {
    day: String(item.sk),
    rates: (item.rates ?? {}) as Record<string, number>,
    source: String(item.source ?? ''),
  };
}

const rateDays = defineEntity<StoredRateDay & { loadedAt: string }>({
  name: 'fxRateDay',
  schemaVersion: 1,
  key: (d) => keys.fxRateDay(d.day),
  attributes: (d) => ({ rates: d.rates, source: d.source, loadedAt: d.loadedAt }),
});

/** Writes the days (25 per batch, retrying unprocessed items). */
export async function putRateDays(days: readonly StoredRateDay[], loadedAt: string): Promise<void> {
  for (let i = 0; i < days.length; i += 25) {
    let pending: Record<string, unknown>[] = days
      .slice(i, i + 25)
      .map((d) => ({ PutRequest: { Item: rateDays.item({ ...d, loadedAt }) } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('BatchWrite kept returning unprocessed items');
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      const res = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (res.UnprocessedItems?.[tableName()] as Record<string, unknown>[] | undefined) ?? [];
    }
  }
}

/** The publication days of `[from, to]` (inclusive `YYYY-MM-DD`), oldest first. */
export async function readRateDays(from: string, to: string): Promise<StoredRateDay[]> {
  const out: StoredRateDay[] = [];
  let start: Item | undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.fxRatesPartition, ':from': from, ':to': to },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    out.push(...(res.Items ?? []).map(toDay));
    start = res.LastEvaluatedKey as Item | undefined;
  } while (start);
  return out;
}

/** The first and last stored publication days (null when no rate was ever loaded). */
export async function rateDayBounds(): Promise<{ first: string; last: string } | null> {
  const edge = async (forward: boolean) => {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.fxRatesPartition },
        ProjectionExpression: 'sk',
        ScanIndexForward: forward,
        Limit: 1,
      }),
    );
    return res.Items?.[0]?.sk as string | undefined;
  };
  const [first, last] = await Promise.all([edge(true), edge(false)]);
  return first && last ? { first, last } : null;
}
