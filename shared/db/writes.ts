import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '../errors';
import { db, isConditionalCheckFailed, tableName } from './client';

/** Writes a new item; a second write of the same key fails instead of overwriting. */
export async function insertNew(item: Record<string, unknown>): Promise<void> {
  await db().send(
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
    db().send(
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

/** `onFailed` of a write conditional on the item existing: 404 `NOT_FOUND`. */
export function notFound(): never {
  throw new NotFoundError('NOT_FOUND');
}

/** Writes a new item unless its key is taken; answers whether it wrote (idempotent seeding). */
export async function insertIfAbsent(item: Record<string, unknown>): Promise<boolean> {
  return ifConditionFails(
    insertNew(item).then(() => true),
    () => false,
  );
}
