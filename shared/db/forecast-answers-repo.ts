import { gunzipSync, gzipSync } from 'node:zlib';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
export const FORECAST_ANSWER_ATTRIBUTES = ['entity', 'schemaVersion', 'data', 'ttl'] as const;

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
  now = new Date(),
): Promise<boolean> {
  // The fastest level: the item is read far more often than written, and inflating is as fast.
  const data = gzipSync(Buffer.from(JSON.stringify(answer)), { level: 1 });
  if (data.length > FORECAST_ANSWER_MAX_BYTES) return false;
  // An update of exactly these attributes (no PutItem), so that read-only routes, which compute
  // forecasts too, can be allowed this write and no other.
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.forecastAnswer(orgId, hash),
      UpdateExpression: `SET ${answers.envelopeSet.expression}, #data = :data, #ttl = :ttl`,
      ExpressionAttributeNames: { '#data': 'data', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ...answers.envelopeSet.values,
        ':data': data,
        ':ttl': Math.floor(now.getTime() / 1000) + FORECAST_ANSWER_TTL_SECONDS,
      },
    }),
  );
  return true;
}
