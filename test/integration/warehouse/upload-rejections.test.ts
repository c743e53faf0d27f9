import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handler } from '../../../functions/workers/billing-ingest';
import { getIngestion } from '../../../shared/db/dimensions-repo';
import {
  getOrganization,
  organizationExists,
  registerOrganization,
} from '../../../shared/db/organizations-repo';
import { recordIngestRejection } from '../../../shared/domain/billing/ingestion';
import { IngestRejected } from '../../../shared/warehouse/ingest/errors';
import { getWarehouse } from '../../../shared/warehouse/warehouse';
import { ingestWorkerHarness } from '../../support/ingest-worker';
import { FOCUS_SAMPLE, readCsv } from './support';

/**
 * The outcome path of billing uploads: an upload of an unregistered organisation is recorded as
 * rejected (and ingested once the organisation exists), an `IngestRejected` from anywhere in the
 * ingestion is recorded with its message, anything else is retried.
 */
const harness = ingestWorkerHarness('wh-rejections');
const { run, s3Event, receiveAll } = harness;
const upload = (key: string) => harness.upload(key, FOCUS_SAMPLE);

afterAll(() => {
  jest.restoreAllMocks();
});

describe('registerOrganization', () => {
  it('registers once under concurrent first requests, none fails, and never changes the record', async () => {
    const org = `org_race_${run}`;
    // The registration of the i-th concurrent first request.
    const attempt = (i: number) => ({
      id: org,
      name: `name ${i}`,
      timezone: 'UTC',
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      registeredVia: 'jwt' as const,
      registeredBy: `user_${i}`,
    });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => registerOrganization(attempt(i))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    const stored = await getOrganization(org);
    expect(stored).toEqual(attempt(winner));
    const again = await registerOrganization({
      id: org,
      name: 'renamed',
      timezone: 'Asia/Tokyo',
      createdAt: 'x',
    });
    expect(again).toBe(false);
    expect(await getOrganization(org)).toEqual(stored);
  });
});

describe('billing uploads of an unregistered organisation', () => {
  const org = `org_new_${run}`;
  const key = `uploads/${org}/${run}-first.csv`;

  it('are recorded as rejected with a reason that says how to register, without retry or refresh', async () => {
    upload(key);
    const res = await handler(s3Event(key, 'etag-1'));
    expect(res.batchItemFailures).toEqual([]);
    const record = await getIngestion(org, key, 'etag-1');
    expect(record).toMatchObject({
      orgId: org,
      objectKey: key,
      version: 'etag-1',
      status: 'rejected',
      code: 'UNKNOWN_ORGANIZATION',
      retryable: true,
    });
    expect(record?.error).toContain(`Organisation ${org} is not registered`);
    expect(record?.error).toContain(`npm run org -- create ${org}`);
    expect(record?.startedAt).toBe(record?.finishedAt);
    expect(await organizationExists(org)).toBe(false);
    await expect((await getWarehouse()).billingMonths(org)).resolves.toEqual([]);
    expect(await receiveAll()).toEqual([]);
    // A redelivery records the same rejection again and still does not fail.
    expect((await handler(s3Event(key, 'etag-1', 'again'))).batchItemFailures).toEqual([]);
    expect(await getIngestion(org, key, 'etag-1')).toMatchObject({
      status: 'rejected',
      code: 'UNKNOWN_ORGANIZATION',
    });
  });

  it('name the expected folder when the key does not name an organisation id', async () => {
    const odd = `uploads/acme${run}/x.csv`;
    upload(odd);
    expect((await handler(s3Event(odd, 'etag-odd'))).batchItemFailures).toEqual([]);
    expect((await getIngestion(`acme${run}`, odd, 'etag-odd'))?.error).toBe(
      `"acme${run}" is not an organisation id, so the upload was not ingested: upload under ` +
        "uploads/<orgId>/, where orgId is the organisation's id (org_…), the org_id claim of its users' tokens.",
    );
  });

  it('are ingested by the next event of the same object once the organisation is registered', async () => {
    expect(
      await registerOrganization({
        id: org,
        name: org,
        timezone: 'UTC',
        createdAt: new Date().toISOString(),
      }),
    ).toBe(true);
    expect((await handler(s3Event(key, 'etag-1', 'after-register'))).batchItemFailures).toEqual([]);
    const record = await getIngestion(org, key, 'etag-1');
    const rows = readCsv(FOCUS_SAMPLE);
    expect(record).toMatchObject({ status: 'succeeded', rows: rows.length, format: 'focus' });
    expect(record).not.toHaveProperty('error');
    expect(record).not.toHaveProperty('retryable');
    const months = [...new Set(rows.map((r) => (r.BillingPeriodStart ?? '').slice(0, 7)))].sort().reverse();
    await expect((await getWarehouse()).billingMonths(org)).resolves.toEqual(months);
    expect(await receiveAll()).toHaveLength(1);
  });
});

describe('rejections raised during ingestion', () => {
  const org = 'org_demo';

  it('records any IngestRejected with its message and detail, terminal: a redelivery is a duplicate', async () => {
    const key = `uploads/${org}/${run}-cur.csv`;
    upload(key);
    const warehouse = await getWarehouse();
    const spy = jest
      .spyOn(warehouse, 'ingestFile')
      .mockRejectedValueOnce(
        new IngestRejected('This file is not a FOCUS export.', { code: 'UNSUPPORTED_FORMAT' }),
      );
    expect((await handler(s3Event(key, 'etag-cur'))).batchItemFailures).toEqual([]);
    spy.mockRestore();
    const record = await getIngestion(org, key, 'etag-cur');
    expect(record).toMatchObject({
      status: 'rejected',
      error: 'This file is not a FOCUS export.',
      code: 'UNSUPPORTED_FORMAT',
    });
    expect(record).not.toHaveProperty('retryable');
    expect((await handler(s3Event(key, 'etag-cur', 'redelivered'))).batchItemFailures).toEqual([]);
    expect(await getIngestion(org, key, 'etag-cur')).toEqual(record);
    expect(await receiveAll()).toEqual([]);
  });

  it('keeps the detected format on the record of a file refused after detection (a malformed CUR row)', async () => {
    const key = `uploads/${org}/${run}-bad-cur.csv`;
    const file = join(mkdtempSync(join(tmpdir(), 'rejections-')), 'bad-cur.csv');
    writeFileSync(
      file,
      [
        'lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/LineItemType,lineItem/UnblendedCost,lineItem/CurrencyCode',
        '2024-03-02T00:00:00Z,2024-03-02T01:00:00Z,Usage,1.5,USD',
        '2024-03-02T00:00:00Z,2024-03-02T01:00:00Z,Usage,one euro,USD',
      ].join('\n'),
    );
    harness.upload(key, file);
    expect((await handler(s3Event(key, 'etag-bad-cur'))).batchItemFailures).toEqual([]);
    expect(await getIngestion(org, key, 'etag-bad-cur')).toMatchObject({
      status: 'rejected',
      code: 'MALFORMED_FILE',
      format: 'aws-cur-1',
    });
  });

  it('leaves any other error to SQS (retry, then the DLQ), with the upload still processing', async () => {
    const key = `uploads/${org}/${run}-boom.csv`;
    upload(key);
    const warehouse = await getWarehouse();
    const spy = jest.spyOn(warehouse, 'ingestFile').mockRejectedValueOnce(new Error('disk full'));
    const res = await handler(s3Event(key, 'etag-boom', 'msg-boom'));
    spy.mockRestore();
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'msg-boom' }]);
    expect(await getIngestion(org, key, 'etag-boom')).toMatchObject({ status: 'processing' });
  });

  it('recordIngestRejection never overwrites an upload that succeeded', async () => {
    const key = `uploads/${org}/${run}-ok.csv`;
    upload(key);
    expect((await handler(s3Event(key, 'etag-ok'))).batchItemFailures).toEqual([]);
    await receiveAll();
    const before = await getIngestion(org, key, 'etag-ok');
    expect(before?.status).toBe('succeeded');
    await recordIngestRejection({ orgId: org, objectKey: key, version: 'etag-ok' }, 'late rejection');
    expect(await getIngestion(org, key, 'etag-ok')).toEqual(before);
  });
});
