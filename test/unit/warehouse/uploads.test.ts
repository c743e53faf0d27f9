import { orgOfKey, s3ObjectsOf } from '../../../shared/domain/dimensions/ingestion';
import { isSafeObjectKey } from '../../../shared/warehouse/object-store';

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
