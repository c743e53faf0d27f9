import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetConfig } from '../../../shared/config';
import { orgOfKey, s3ObjectsOf } from '../../../shared/domain/billing/ingestion';
import {
  downloadObjectIfExists,
  isSafeObjectKey,
  LOCAL_BUCKET_NAME,
  ObjectChangedError,
  uploadObject,
} from '../../../shared/warehouse/object-store';

describe('billing uploads', () => {
  it('reads the S3 records of an SQS message (URL-decoded keys, version or eTag)', () => {
    const body = JSON.stringify({
      Records: [
        {
          eventName: 'ObjectCreated:Put',
          s3: {
            bucket: { name: 'b' },
            object: { key: 'uploads/org_1/my+file%282%29.csv', eTag: 'e1', size: 10 },
          },
        },
        {
          eventName: 'ObjectRemoved:Delete',
          s3: { bucket: { name: 'b' }, object: { key: 'uploads/org_1/x.csv' } },
        },
        {
          eventName: 'ObjectCreated:CompleteMultipartUpload',
          s3: {
            bucket: { name: 'b' },
            object: { key: 'uploads/org_2/a.parquet', versionId: 'v9', eTag: 'e2' },
          },
        },
      ],
    });
    expect(s3ObjectsOf(body)).toEqual([
      { bucket: 'b', key: 'uploads/org_1/my file(2).csv', version: 'e1', size: 10 },
      { bucket: 'b', key: 'uploads/org_2/a.parquet', version: 'v9' },
    ]);
    expect(s3ObjectsOf(JSON.stringify({ Event: 's3:TestEvent' }))).toEqual([]);
    expect(s3ObjectsOf('not json')).toEqual([]);
  });

  it('takes the organisation from uploads/<orgId>/<file> only', () => {
    expect(orgOfKey('uploads/org_demo/2024-09.csv')).toBe('org_demo');
    expect(orgOfKey('uploads/org_demo/sub/dir/file.csv')).toBe('org_demo');
    expect(orgOfKey('uploads/org_demo/')).toBeUndefined();
    expect(orgOfKey('uploads/org demo/x.csv')).toBeUndefined();
    expect(orgOfKey('curated/org_demo/x.csv')).toBeUndefined();
    expect(orgOfKey('uploads/../etc/passwd')).toBeUndefined();
    expect(isSafeObjectKey('uploads/a/../../x')).toBe(false);
    expect(isSafeObjectKey('/abs')).toBe(false);
    expect(isSafeObjectKey('uploads/a/b.csv')).toBe(true);
  });
});

describe('local billing bucket: conditional replacement (the Athena ingestion of a legacy data.parquet)', () => {
  const saved = { dir: process.env.LOCAL_BUCKET_DIR, bucket: process.env.BILLING_BUCKET };
  const dir = mkdtempSync(join(tmpdir(), 'bucket-'));
  beforeAll(() => {
    process.env.LOCAL_BUCKET_DIR = dir;
    delete process.env.BILLING_BUCKET;
    resetConfig();
  });
  afterAll(() => {
    if (saved.dir === undefined) delete process.env.LOCAL_BUCKET_DIR;
    else process.env.LOCAL_BUCKET_DIR = saved.dir;
    if (saved.bucket !== undefined) process.env.BILLING_BUCKET = saved.bucket;
    resetConfig();
  });

  it('answers no object, then its ETag; replaces it only while the ETag still matches', async () => {
    const key = 'curated/org_id=org_1/billing_month=2024-09/data.parquet';
    const copy = join(dir, 'copy');
    expect(await downloadObjectIfExists(LOCAL_BUCKET_NAME, key, copy)).toBeUndefined();
    const v1 = join(dir, 'v1');
    const v2 = join(dir, 'v2');
    writeFileSync(v1, 'first');
    writeFileSync(v2, 'second');
    await uploadObject(LOCAL_BUCKET_NAME, key, v1);
    const read = await downloadObjectIfExists(LOCAL_BUCKET_NAME, key, copy);
    expect(readFileSync(copy, 'utf8')).toBe('first');
    expect(read?.etag).toMatch(/^"[0-9a-f]{32}"$/);
    await uploadObject(LOCAL_BUCKET_NAME, key, v2, { ifMatch: read?.etag });
    // The object changed since `read`: a second write with the same ETag is refused.
    await expect(uploadObject(LOCAL_BUCKET_NAME, key, v1, { ifMatch: read?.etag })).rejects.toBeInstanceOf(
      ObjectChangedError,
    );
    await downloadObjectIfExists(LOCAL_BUCKET_NAME, key, copy);
    expect(readFileSync(copy, 'utf8')).toBe('second');
  });
});
