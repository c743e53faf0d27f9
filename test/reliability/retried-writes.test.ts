import { insertNew, replaceVersioned } from '../../shared/db/writes';

/**
 * The SDK retries a call whose answer did not arrive in time (shared/config.ts awsClientLimits)
 * although DynamoDB may have applied it. The retry of a conditional put then meets its own write:
 * that is no conflict (it made `POST /reports` answer 500 under load), while another writer's
 * item still is. Simulated here by sending the same put twice, on DynamoDB Local.
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

describe('conditional puts retried after their write landed', () => {
  it('insertNew: the same item again succeeds; a different item under the key still fails', async () => {
    await insertNew(item('a'));
    await expect(insertNew(item('a'))).resolves.toBeUndefined();
    await expect(insertNew(item('a', { name: 'someone else' }))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
  });

  it('replaceVersioned: the same new version again succeeds; another writer’s version is a 409', async () => {
    await insertNew(item('b'));
    const next = item('b', { name: 'second', version: 2 });
    await replaceVersioned(next, 1);
    await expect(replaceVersioned(next, 1)).resolves.toBeUndefined();
    await expect(replaceVersioned(item('b', { name: 'third', version: 2 }), 1)).rejects.toMatchObject({
      status: 409,
      message: 'VERSION_CONFLICT',
    });
  });
});
