import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../../shared/db/client';
import { putDelivery } from '../../../shared/db/notifications-repo';
import { deleteOutboxEntry, putOutboxEntry } from '../../../shared/db/outbox-repo';
import { insertScope } from '../../../shared/db/scopes-repo';
import { insertTeam } from '../../../shared/db/teams-repo';
import { putUploadPointer } from '../../../shared/db/uploads-repo';
import { registerSignedInUser, upsertUser } from '../../../shared/db/users-repo';
import { suiteIds } from '../../support/suite';

/**
 * The items the repositories write through their entity definitions (shared/db/entity.ts), read
 * back raw from DynamoDB Local: the same attributes, names and values the hand-stamped items had
 * before, so data stored earlier still reads. Each expected item is spelled out here in full.
 */

const { run, orgId } = suiteIds('ent');

async function stored(pk: string, sk: string) {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: { pk, sk }, ConsistentRead: true }),
  );
  return res.Item;
}

/** The item at `pk`/`sk` is exactly its key and `attributes`. */
async function expectStored(pk: string, sk: string, attributes: Record<string, unknown>) {
  expect(await stored(pk, sk)).toEqual({ pk, sk, ...attributes });
}

describe('entity items as stored', () => {
  test('a scope: key, envelope, then the record', async () => {
    const scope = {
      id: 'scope_1',
      organizationId: orgId,
      name: 'Platform',
      description: '',
      teamIds: ['team_a'],
      filters: null,
      createdById: 'usr_1',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      version: 1,
    };
    await insertScope(scope);
    await expectStored(`ORG#${orgId}`, 'SCOPE#scope_1', {
      entity: 'scope',
      schemaVersion: 1,
      ...scope,
    });
  });

  test('a team carries its by-name index (GSI1)', async () => {
    const team = {
      id: 'team_x',
      organizationId: orgId,
      name: 'Data Eng',
      createdAt: '2026-01-02T00:00:00.000Z',
    };
    await insertTeam(team);
    await expectStored(`ORG#${orgId}`, 'TEAM#team_x', {
      gsi1pk: `ORG#${orgId}#TEAMNAME`,
      gsi1sk: 'data eng',
      entity: 'team',
      schemaVersion: 1,
      ...team,
    });
  });

  test('an outbox entry sits on its due shard (GSI2)', async () => {
    const entry = {
      id: `obx_${run}`,
      orgId,
      queue: 'warehouse-refresh' as const,
      body: '{}',
      // In the future, so the local stack's outbox sweep never sends it before it is deleted below.
      createdAt: '2099-01-03T00:00:00.000Z',
      attempts: 0,
    };
    await putOutboxEntry(entry);
    let h = 0;
    for (const c of entry.id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    await expectStored(`ORG#${orgId}#OUTBOX`, `${entry.createdAt}#${entry.id}`, {
      gsi2pk: `OUTBOX#${h % 4}`,
      gsi2sk: entry.createdAt,
      entity: 'outbox',
      schemaVersion: 1,
      ...entry,
    });
    await deleteOutboxEntry(entry);
  });

  test('kinds that never carried a schemaVersion still do not', async () => {
    const at = '2026-01-04T00:00:00.000Z';
    await putUploadPointer({ orgId, objectKey: 'billing/a.csv', version: 'v1' }, 'upl_1', at);
    await expectStored(`ORG#${orgId}#INGEST`, 'UPLOAD#upl_1', {
      gsi1pk: `ORG#${orgId}#UPLOADS`,
      gsi1sk: `${at}#upl_1`,
      entity: 'upload-pointer',
      objectKey: 'billing/a.csv',
      version: 'v1',
    });
    const record = {
      id: 'ntf_1',
      status: 'sent' as const,
      attempts: 1,
      leaseUntil: '2026-01-04T00:01:00.000Z',
      updatedAt: '2026-01-04T00:00:00.000Z',
    };
    await putDelivery(orgId, record);
    await expectStored(`ORG#${orgId}#NOTIFS`, 'NOTIF#ntf_1', {
      entity: 'notification',
      ...record,
    });
  });

  test('a profile written by a put and then by an update carries the same envelope', async () => {
    await registerSignedInUser(orgId, { id: 'usr_e', role: 'member' }, '2026-01-05T00:00:00.000Z');
    const base = {
      pk: `ORG#${orgId}#P#usr_e`,
      sk: 'PROFILE',
      gsi2pk: `ORG#${orgId}#USERS`,
      gsi2sk: 'usr_e',
      entity: 'user',
      schemaVersion: 1,
      id: 'usr_e',
      organizationId: orgId,
      role: 'member',
      createdAt: '2026-01-05T00:00:00.000Z',
    };
    expect(await stored(base.pk, 'PROFILE')).toEqual({ ...base, email: '', name: '' });
    await upsertUser(orgId, { id: 'usr_e', email: 'E@example.com', name: 'E' }, '2026-01-06T00:00:00.000Z');
    expect(await stored(base.pk, 'PROFILE')).toEqual({
      ...base,
      email: 'E@example.com',
      name: 'E',
      gsi1pk: `ORG#${orgId}#EMAIL`,
      gsi1sk: 'e@example.com',
      updatedAt: '2026-01-06T00:00:00.000Z',
    });
  });
});
