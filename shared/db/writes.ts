import { isDeepStrictEqual } from 'node:util';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '../errors';
import { db, isConditionalCheckFailed, tableName } from './client';
import { tableDefinition } from './keys';

/** The item as DynamoDB stores it: attributes whose value is undefined are not written. */
const stored = (item: Record<string, unknown>): unknown => JSON.parse(JSON.stringify(item));

/**
 * Whether the table now holds exactly `item`. The SDK retries a call whose answer did not arrive
 * in time (or whose connection was reset) although DynamoDB may already have applied it; the
 * retry of a conditional put then fails its own condition. Such a put landed: it is no conflict.
 */
async function landed(item: Record<string, unknown>): Promise<boolean> {
  const { partitionKey, sortKey } = tableDefinition;
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: { [partitionKey]: item[partitionKey], [sortKey]: item[sortKey] },
      ConsistentRead: true,
    }),
  );
  return Item !== undefined && isDeepStrictEqual(stored(Item), stored(item));
}

/** A conditional put whose failed condition is no failure when the item already holds what it writes. */
async function putOnce(put: PutCommand): Promise<void> {
  try {
    await db().send(put);
  } catch (error) {
    if (isConditionalCheckFailed(error) && (await landed(put.input.Item ?? {}))) return;
    throw error;
  }
}

/** Writes a new item; a second write of the same key fails instead of overwriting. */
export async function insertNew(item: Record<string, unknown>): Promise<void> {
  await putOnce(
    new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}

/**
 * Replaces an item only while its stored `version` is still `expectedVersion`: the optimistic lock
 * of every versioned record. A lost race (or a missing item) is a 409 `VERSION_CONFLICT`.
 */
export async function replaceVersioned(
  item: Record<string, unknown>,
  expectedVersion: number,
): Promise<void> {
  await ifConditionFails(
    putOnce(
      new PutCommand({
        TableName: tableName(),
        Item: item,
        ConditionExpression: 'attribute_exists(pk) AND #v = :expected',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':expected': expectedVersion },
      }),
    ),
    versionConflict,
  );
}

/** `onFailed` of a write conditional on the version read: 409 `VERSION_CONFLICT`. */
export function versionConflict(): never {
  throw new ConflictError('VERSION_CONFLICT');
}

/**
 * Runs a conditional write and, when its condition fails (`ConditionalCheckFailedException`),
 * answers `onFailed()` instead: a value, or an error it throws (`notFound`). Other errors pass.
 */
export async function ifConditionFails<T, F>(
  write: Promise<T>,
  onFailed: () => F | Promise<F>,
): Promise<T | F> {
  try {
    return await write;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return onFailed();
    throw error;
  }
}

/** Runs a conditional write: answers whether its condition held (and so it wrote). Other errors pass. */
export function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  return ifConditionFails(
    write.then(() => true),
    () => false,
  );
}

/** `onFailed` of a write conditional on the item existing: 404 `NOT_FOUND`. */
export function notFound(): never {
  throw new NotFoundError('NOT_FOUND');
}

/** Writes a new item unless its key is taken; answers whether it wrote (idempotent seeding). */
export async function insertIfAbsent(item: Record<string, unknown>): Promise<boolean> {
  return conditionHeld(insertNew(item));
}
