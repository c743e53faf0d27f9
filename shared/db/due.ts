import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NextEvalMove } from '../model/alerts';
import { cancellationCodes, db, isTransactionCanceled, tableName } from './client';
import { queryDue } from './items';
import type { ItemKey } from './keys';

/** Where a move writes: the item's key and its due-index keys at the new time. */
export type DueTarget = (m: NextEvalMove) => { key: ItemKey; due: { gsi2pk: string; gsi2sk: string } };

function advanceUpdate(m: NextEvalMove, target: DueTarget) {
  const { key, due } = target(m);
  const snooze = m.snoozedUntil === undefined ? '' : ' AND snoozedUntil = :snoozed';
  return {
    TableName: tableName(),
    Key: key,
    UpdateExpression: 'SET nextEvalAt = :to, gsi2pk = :gpk, gsi2sk = :gsk',
    ConditionExpression: `attribute_exists(pk) AND nextEvalAt = :from AND archivedAt = :null${snooze}`,
    ExpressionAttributeValues: {
      ':to': m.to,
      ':from': m.from,
      ':gpk': due.gsi2pk,
      ':gsk': due.gsi2sk,
      ':null': null,
      ...(m.snoozedUntil === undefined ? {} : { ':snoozed': m.snoozedUntil }),
    },
  };
}

/**
 * Moves up to 100 due items' `nextEvalAt` (and their due-index keys) in one TransactWriteItems
 * (one request instead of 100), each conditional on `from`, on the item not being archived and,
 * with `snoozedUntil`, on the snooze being still that one: answers, per move, whether this call
 * moved it. A transaction is all or nothing, so when some conditions fail (another sweep took those
 * items) the cancellation reasons say which, and the transaction is retried with the others only;
 * a conflict with a concurrent transaction is retried too. Each item is moved by exactly one caller.
 * Cost alerts and budget alerts share it (their sweeps are one algorithm, shared/domain/alerts/sweep.ts).
 */
export async function advanceDue(moves: readonly NextEvalMove[], target: DueTarget): Promise<boolean[]> {
  if (moves.length > 100) throw new Error('advanceDue takes at most 100 moves');
  const out = moves.map(() => false);
  let pending = moves.map((_, i) => i);
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 10) throw new Error('advanceDue: transaction kept conflicting');
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(500, 10 * 2 ** attempt)));
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: pending.map((i) => ({ Update: advanceUpdate(moves[i]!, target) })),
        }),
      );
      for (const i of pending) out[i] = true;
      return out;
    } catch (error) {
      if (!isTransactionCanceled(error)) {
        const name = (error as { name?: string } | null)?.name;
        if (name === 'TransactionInProgressException' || name === 'ThrottlingException') continue;
        throw error;
      }
      const codes = cancellationCodes(error);
      const unexpected = codes.find(
        (c) => c !== 'None' && c !== 'ConditionalCheckFailed' && c !== 'TransactionConflict',
      );
      if (unexpected) throw error;
      // Those whose condition failed are someone else's (or archived): dropped; the rest retried.
      pending = pending.filter((_, k) => codes[k] !== 'ConditionalCheckFailed');
    }
  }
  return out;
}

/** One page of a due index: the items of one shard due at or before `at`; `next` continues it. */
export type DuePage<T> = (
  shard: number,
  at: string,
  limit: number,
  cursor?: Record<string, unknown>,
) => Promise<{ items: T[]; next?: Record<string, unknown> }>;

/**
 * The page reader of one entity's due index (`shardKey`: a shard's partition): the index projects
 * every attribute, so a page carries the whole records of `entity`, read by `map`.
 */
export function duePages<T>(
  shardKey: (shard: number) => string,
  entity: string,
  map: (item: Record<string, unknown>) => T,
): DuePage<T> {
  return async (shard, at, limit, cursor) => {
    const page = await queryDue({ shard: shardKey(shard), at, limit, start: cursor });
    return { ...page, items: page.items.filter((i) => i.entity === entity).map(map) };
  };
}
