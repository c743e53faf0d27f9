import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TeamOperation, TeamOperationStatus } from '../model/teams';
import { db, tableName } from './client';
import { defineEntity, firstConditionFailed, transact } from './entity';
import { keys, stripKeys } from './keys';
import { type OutboxEntry, outboxPut } from './outbox-repo';
import { conditionHeld } from './writes';

/** The record read back leaves out the envelope and the TTL a finished operation gets. */
const operations = defineEntity<TeamOperation>({
  name: 'teamOperation',
  schemaVersion: 1,
  key: (op) => keys.teamOperation(op.orgId, op.teamId, op.operationId),
  read: (item) => {
    const { ttl: _t, ...rest } = stripKeys(item);
    return rest as unknown as TeamOperation;
  },
});
/** Finished operations stay readable for this long, then DynamoDB's TTL removes them. */
const RETAIN_SECONDS = 30 * 24 * 3600;

/**
 * Records a queued operation and, in the same transaction, the outbox entry that asks the
 * `team-operations` worker to run it. Answers false (and writes nothing) when an operation of
 * that id is already recorded: a repeated request hands off once.
 */
export async function insertTeamOperation(op: TeamOperation, message: OutboxEntry): Promise<boolean> {
  return transact(
    [operations.transactPut(op), outboxPut(message)],
    firstConditionFailed(() => false),
  );
}

export const getTeamOperation = (orgId: string, teamId: string, operationId: string) =>
  operations.get(keys.teamOperation(orgId, teamId, operationId));

/**
 * Moves an operation on: to RUNNING (from PENDING or RUNNING, a redelivery), or to a final
 * status with its outcome. A finished operation never changes again: answers false then.
 */
export async function updateTeamOperation(
  orgId: string,
  teamId: string,
  operationId: string,
  change: { status: TeamOperationStatus; at: string; outcome?: Pick<TeamOperation, 'summary' | 'error'> },
): Promise<boolean> {
  const final = change.status === 'SUCCEEDED' || change.status === 'FAILED';
  const sets = ['#status = :status', 'updatedAt = :at'];
  const values: Record<string, unknown> = {
    ':status': change.status,
    ':at': change.at,
    ':pending': 'PENDING',
    ':running': 'RUNNING',
  };
  if (change.outcome?.summary) {
    sets.push('summary = :summary');
    values[':summary'] = change.outcome.summary;
  }
  if (change.outcome?.error) {
    sets.push('#error = :error');
    values[':error'] = change.outcome.error;
  }
  if (final) {
    sets.push('#ttl = :ttl');
    values[':ttl'] = Math.floor(Date.parse(change.at) / 1000) + RETAIN_SECONDS;
  }
  return conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.teamOperation(orgId, teamId, operationId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND #status IN (:pending, :running)',
        ExpressionAttributeNames: {
          '#status': 'status',
          ...(change.outcome?.error ? { '#error': 'error' } : {}),
          ...(final ? { '#ttl': 'ttl' } : {}),
        },
        ExpressionAttributeValues: values,
      }),
    ),
  );
}
