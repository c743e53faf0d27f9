import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../errors';
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
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: item,
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
