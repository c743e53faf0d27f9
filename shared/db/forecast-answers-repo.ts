import { gunzipSync, gzipSync } from 'node:zlib';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { defineEntity } from './entity';
import { getItem } from './items';
import { keys } from './keys';

/**
 * The explorer's forecasts kept across processes (docs/queries.md, "Forecast"): one item per
 * request and version of the data, gzip'd JSON, deleted by TTL. What it holds is the engine's own
 * answer, so a process that finds it answers exactly what the one that wrote it did.
 */
export const FORECAST_ANSWER_TTL_SECONDS = 3 * 86_400;
/** Above this (compressed) an answer is not kept: an item holds at most 400 KB. */
export const FORECAST_ANSWER_MAX_BYTES = 350_000;

/** The attributes a forecast-answer write sets (a read-only route may set these, in that partition only). */
export const FORECAST_ANSWER_ATTRIBUTES = ['entity', 'schemaVersion', 'data', 'ttl', 'view'] as const;
/** A view above this (JSON) is not kept beside its answer: it is not asked again after a refresh. */
export const FORECAST_VIEW_MAX_BYTES = 16_384;
/** Items read at most when listing the recent views (their `view` and `ttl` only). */
const VIEW_ITEMS_READ = 1_000;

const answers = defineEntity<never, { data: Uint8Array; ttl?: number }>({
  name: 'forecast-answer',
  schemaVersion: 1,
  read: (item) => ({ data: item.data as Uint8Array, ttl: item.ttl as number | undefined }),
});

/** The answer kept under `hash`, or undefined (none, or past its TTL and not yet deleted). */
export async function readForecastAnswer(orgId: string, hash: string, now = new Date()): Promise<unknown> {
  // Eventually consistent: an item never changes once written (its key is a hash of its content's inputs).
  const found = await getItem(keys.forecastAnswer(orgId, hash), answers.read);
  if (!found) return undefined;
  if (found.ttl !== undefined && found.ttl * 1000 < now.getTime()) return undefined;
  return JSON.parse(gunzipSync(Buffer.from(found.data)).toString('utf8'));
}

/** Keeps an answer under `hash` (the same hash always holds the same answer: no condition). */
export async function writeForecastAnswer(
  orgId: string,
  hash: string,
  answer: unknown,
  view?: unknown,
  now = new Date(),
): Promise<boolean> {
  // The fastest level: the item is read far more often than written, and inflating is as fast.
  const data = gzipSync(Buffer.from(JSON.stringify(answer)), { level: 1 });
  if (data.length > FORECAST_ANSWER_MAX_BYTES) return false;
  const viewJson = view === undefined ? undefined : JSON.stringify(view);
  const keepView = viewJson !== undefined && Buffer.byteLength(viewJson) <= FORECAST_VIEW_MAX_BYTES;
  // An update of exactly these attributes (no PutItem), so that read-only routes, which compute
  // forecasts too, can be allowed this write and no other.
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.forecastAnswer(orgId, hash),
      UpdateExpression: `SET ${answers.envelopeSet.expression}, #data = :data, #ttl = :ttl${keepView ? ', #view = :view' : ''}`,
      ExpressionAttributeNames: { '#data': 'data', '#ttl': 'ttl', ...(keepView ? { '#view': 'view' } : {}) },
      ExpressionAttributeValues: {
        ...answers.envelopeSet.values,
        ':data': data,
        ':ttl': Math.floor(now.getTime() / 1000) + FORECAST_ANSWER_TTL_SECONDS,
        ...(keepView ? { ':view': viewJson } : {}),
      },
    }),
  );
  return true;
}

/**
 * The views kept beside the organisation's forecasts, the most recently written first (by TTL),
 * each once, at most `limit`; expired items are left out. Reads the items' `view` and `ttl` only.
 */
export async function listRecentForecastViews(
  orgId: string,
  limit: number,
  now = new Date(),
): Promise<unknown[]> {
  const found: { view: string; ttl: number }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.forecastAnswer(orgId, '').pk },
        ProjectionExpression: '#view, #ttl',
        ExpressionAttributeNames: { '#view': 'view', '#ttl': 'ttl' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? [])
      if (typeof item.view === 'string' && typeof item.ttl === 'number' && item.ttl * 1000 >= now.getTime())
        found.push({ view: item.view, ttl: item.ttl });
    start = page.LastEvaluatedKey;
  } while (start && found.length < VIEW_ITEMS_READ);
  const seen = new Set<string>();
  const views: unknown[] = [];
  for (const { view } of found.sort((a, b) => b.ttl - a.ttl)) {
    if (seen.has(view)) continue;
    seen.add(view);
    views.push(JSON.parse(view));
    if (views.length >= limit) break;
  }
  return views;
}
