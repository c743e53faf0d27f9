import { readFileSync } from 'node:fs';
import { handler } from '../../../functions/workers/billing-ingest';
import { resetConfig } from '../../../shared/config';
import { getIngestion } from '../../../shared/db/dimensions-repo';
import { dueOutboxEntries } from '../../../shared/db/outbox-repo';
import { sweepOutbox } from '../../../shared/domain/billing/outbox';
import { parseRefreshRequest } from '../../../shared/domain/billing/refresh-request';
import { getWarehouse } from '../../../shared/warehouse/warehouse';
import { ingestWorkerHarness } from '../../support/ingest-worker';
import { FOCUS_SAMPLE } from './support';

const { run, queueUrl, upload, s3Event, receiveAll } = ingestWorkerHarness('wh-test-refresh');

describe('billing-ingest worker (S3 events, local bucket, DynamoDB records, outbox)', () => {
  const org = 'org_demo';

  it('ingests an upload, records it and asks for a full refresh; a redelivery changes nothing', async () => {
    const key = `uploads/${org}/${run}-sample.csv`;
    upload(key, FOCUS_SAMPLE);
    const res = await handler(s3Event(key, 'etag-1'));
    expect(res.batchItemFailures).toEqual([]);
    const record = await getIngestion(org, key, 'etag-1');
    expect(record).toMatchObject({ status: 'succeeded', rows: 1000, months: ['2024-09', '2024-10'] });
    const messages = await receiveAll();
    expect(messages).toHaveLength(1);
    expect(parseRefreshRequest(messages[0]!)).toMatchObject({ orgId: org, mode: 'full', reason: 'ingest' });
    await expect((await getWarehouse()).billingMonths(org)).resolves.toEqual(['2024-10', '2024-09']);

    const again = await handler(s3Event(key, 'etag-1', 'redelivered'));
    expect(again.batchItemFailures).toEqual([]);
    expect(await getIngestion(org, key, 'etag-1')).toEqual(record);
    expect(await receiveAll()).toEqual([]);
  });

  it('records a malformed file as rejected (row and column), without retry or change', async () => {
    const lines = readFileSync(FOCUS_SAMPLE, 'utf8').split('\n');
    lines[3] = (lines[3] as string).replace(/^NULL,[^,]+,/, 'NULL,abc,');
    const key = `uploads/${org}/${run}-bad.csv`;
    upload(key, Buffer.from(lines.join('\n')));
    const res = await handler(s3Event(key, 'etag-bad'));
    expect(res.batchItemFailures).toEqual([]);
    expect(await getIngestion(org, key, 'etag-bad')).toMatchObject({
      status: 'rejected',
      error: 'Row 3 (line 4), column BilledCost: "abc" is not a number',
      row: 3,
      column: 'BilledCost',
    });
    expect(await receiveAll()).toEqual([]);
  });

  it('ignores keys outside uploads/<known org>/ and reports a transient failure for retry', async () => {
    expect((await handler(s3Event(`uploads/org_nobody_${run}/x.csv`, 'e'))).batchItemFailures).toEqual([]);
    expect((await handler(s3Event('elsewhere/x.csv', 'e'))).batchItemFailures).toEqual([]);
    // The object is not in the bucket (yet): a failure of this message only, for SQS to retry.
    const missing = await handler(s3Event(`uploads/${org}/${run}-missing.csv`, 'e-missing', 'msg-missing'));
    expect(missing.batchItemFailures).toEqual([{ itemIdentifier: 'msg-missing' }]);
  });

  it('keeps the refresh in the outbox when SQS fails, and the sweep sends it later', async () => {
    const key = `uploads/${org}/${run}-outbox.csv`;
    upload(key, FOCUS_SAMPLE);
    process.env.QUEUE_URL_WAREHOUSE_REFRESH = `${queueUrl()}-does-not-exist`;
    resetConfig();
    expect((await handler(s3Event(key, 'etag-ob'))).batchItemFailures).toEqual([]);
    expect(await getIngestion(org, key, 'etag-ob')).toMatchObject({ status: 'succeeded' });
    const pending = (await dueOutboxEntries(new Date(Date.now() + 60_000).toISOString())).filter(
      (e) => e.orgId === org && JSON.parse(e.body).reason === 'ingest',
    );
    expect(pending.length).toBeGreaterThanOrEqual(1);
    expect(await receiveAll()).toEqual([]);

    process.env.QUEUE_URL_WAREHOUSE_REFRESH = queueUrl();
    resetConfig();
    const swept = await sweepOutbox(new Date(Date.now() + 60_000), 30, (e) => e.orgId === org);
    expect(swept.sent).toBeGreaterThanOrEqual(1);
    const ids = (await receiveAll()).map((b) => parseRefreshRequest(b).requestId);
    expect(ids).toEqual(expect.arrayContaining(pending.map((p) => p.id)));
    const left = await dueOutboxEntries(new Date(Date.now() + 60_000).toISOString());
    expect(left.filter((e) => pending.some((p) => p.id === e.id))).toEqual([]);
  });
});
