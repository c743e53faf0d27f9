import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../../shared/db/client';
import { startIngestion } from '../../../shared/db/dimensions-repo';
import { keys } from '../../../shared/db/keys';
import { listUploads, putUploadPointer } from '../../../shared/db/uploads-repo';
import { backfillUploadIndex } from '../../../shared/domain/uploads/migrate';

/**
 * scripts/migrate-upload-index.ts on the local DynamoDB: upload pointers written before the uploads
 * index (no GSI1 attributes) are missing from GET /billing/uploads until the backfill gives them
 * their place, by the time their ingestion started; a second run changes nothing.
 */
const orgId = `org_it_${randomUUID().slice(0, 8)}`;

/** An upload as stored before the index: its record and a pointer with no GSI1 attributes. */
async function oldUpload(uploadId: string, startedAt: string): Promise<void> {
  const objectKey = `${orgId}/billing/${uploadId}.csv`;
  await startIngestion({ orgId, objectKey, version: 'v1', status: 'succeeded', startedAt, uploadId });
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.uploadPointer(orgId, uploadId), entity: 'upload-pointer', objectKey, version: 'v1' },
    }),
  );
}

async function pointer(uploadId: string) {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.uploadPointer(orgId, uploadId) }),
  );
  return res.Item;
}

const listedIds = async () => (await listUploads(orgId, 50)).items.map((r) => r.uploadId);

describe('migrate-upload-index', () => {
  it('backfills the index of old upload pointers, newest first, and is idempotent', async () => {
    await oldUpload('upl_old_a', '2026-09-01T10:00:00.000Z');
    await oldUpload('upl_old_b', '2026-10-01T10:00:00.000Z');
    // An upload written today (already indexed, at its first delivery) and a pointer with no record.
    const currentKey = `${orgId}/billing/upl_new.csv`;
    await startIngestion({
      orgId,
      objectKey: currentKey,
      version: 'v1',
      status: 'succeeded',
      startedAt: '2026-11-01T10:00:00.000Z',
      uploadId: 'upl_new',
    });
    await putUploadPointer(
      { orgId, objectKey: currentKey, version: 'v1' },
      'upl_new',
      '2026-11-01T09:00:00.000Z',
    );
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.uploadPointer(orgId, 'upl_lost'),
          entity: 'upload-pointer',
          objectKey: 'gone',
          version: 'v1',
        },
      }),
    );

    expect(await listedIds()).toEqual(['upl_new']);

    const first = await backfillUploadIndex();
    expect(first.found).toBeGreaterThanOrEqual(3);
    expect(first.indexed).toBeGreaterThanOrEqual(2);
    expect(first.orphaned).toBeGreaterThanOrEqual(1);
    expect(await listedIds()).toEqual(['upl_new', 'upl_old_b', 'upl_old_a']);
    expect((await pointer('upl_old_a'))?.gsi1sk).toBe('2026-09-01T10:00:00.000Z#upl_old_a');
    // The pointer written today keeps its first-delivery time; the orphan is left as it was.
    expect((await pointer('upl_new'))?.gsi1sk).toBe('2026-11-01T09:00:00.000Z#upl_new');
    expect((await pointer('upl_lost'))?.gsi1pk).toBeUndefined();

    const second = await backfillUploadIndex();
    expect(second.indexed).toBe(0);
    expect(second.found).toBe(second.orphaned);
    expect(await listedIds()).toEqual(['upl_new', 'upl_old_b', 'upl_old_a']);
  });
});
