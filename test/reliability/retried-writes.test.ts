import { db } from '../../shared/db/client';
import { claimDelivery, finishDelivery, getDelivery } from '../../shared/db/notifications-repo';
import { insertNew, replaceVersioned } from '../../shared/db/writes';

/**
 * The SDK retries a call whose answer was lost (a timeout, a reset connection; shared/config.ts
 * awsClientLimits) although DynamoDB may have applied it. The retry of a conditional write then
 * meets its own write: that is no conflict, while another writer's item still is. Simulated on
 * DynamoDB Local by a middleware that sends each request twice and answers the second.
 */
const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
const item = (id: string, extra: Record<string, unknown> = {}) => ({
  pk: `TEST#retried-writes#${run}`,
  sk: id,
  entity: 'test',
  name: 'first',
  version: 1,
  note: undefined,
  ...extra,
});

const sentTwice: Parameters<ReturnType<typeof db>['middlewareStack']['add']>[0] = (next) => async (args) => {
  const lost = await next(args);
  // The lost answer is never read: free its connection, or the unread body holds the socket open
  // and the Jest worker cannot exit ("a worker process has failed to exit gracefully").
  (lost.response as { body?: { destroy?: () => void } }).body?.destroy?.();
  return next(args);
};

async function withLostAnswer<T>(fn: () => Promise<T>): Promise<T> {
  db().middlewareStack.add(sentTwice, { step: 'deserialize', name: 'lostAnswer' });
  try {
    return await fn();
  } finally {
    db().middlewareStack.remove('lostAnswer');
  }
}

describe('conditional writes retried after their write landed', () => {
  it('the simulation is real: an unguarded conditional put sent twice fails its condition', async () => {
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const put = new PutCommand({
      TableName: process.env.TABLE_NAME ?? 'cost-management',
      Item: item('raw'),
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    await expect(withLostAnswer(() => db().send(put))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
  });

  it('the lost answer leaves no connection holding the process open', async () => {
    const held = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    await insertNew(item('warm-up'));
    const before = held();
    await withLostAnswer(() => insertNew(item('held')));
    await new Promise((r) => setImmediate(r));
    expect(held()).toBe(before);
  });

  it('insertNew: succeeds; a different item under the key still fails', async () => {
    await expect(withLostAnswer(() => insertNew(item('a')))).resolves.toBeUndefined();
    await expect(insertNew(item('a', { name: 'someone else' }))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
  });

  it('replaceVersioned: succeeds; another writer’s version is a 409', async () => {
    await insertNew(item('b'));
    await expect(
      withLostAnswer(() => replaceVersioned(item('b', { name: 'second', version: 2 }), 1)),
    ).resolves.toBeUndefined();
    await expect(replaceVersioned(item('b', { name: 'third', version: 2 }), 1)).rejects.toMatchObject({
      status: 409,
      message: 'VERSION_CONFLICT',
    });
  });

  it('claimDelivery and finishDelivery: the claim is still ours and the outcome recorded; another claim is refused', async () => {
    const org = `org_retry${run}`;
    const id = `claim-${run}`;
    await expect(withLostAnswer(() => claimDelivery(org, id, new Date(), 120))).resolves.toEqual({
      claimed: true,
    });
    expect(await claimDelivery(org, id, new Date(), 120)).toMatchObject({
      claimed: false,
      existing: { status: 'sending', attempts: 1 },
    });
    await expect(withLostAnswer(() => finishDelivery(org, id, 'sent', new Date()))).resolves.toBeUndefined();
    expect(await getDelivery(org, id)).toMatchObject({ status: 'sent', attempts: 1 });
  });
});
