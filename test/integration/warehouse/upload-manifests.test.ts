import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { handler } from '../../../functions/workers/billing-ingest';
import { getIngestion } from '../../../shared/db/dimensions-repo';
import { registerOrganization } from '../../../shared/db/organizations-repo';
import { processUpload } from '../../../shared/domain/billing/ingestion';
import { getWarehouse } from '../../../shared/warehouse/warehouse';
import { ingestWorkerHarness } from '../../support/ingest-worker';
import { CUR_SAMPLE, curDaily, expectSums, novemberByProvider, parseCsv, prefixed } from './support';

/**
 * AWS delivers a multi-part CUR as parts and then a manifest listing them. The billing-ingest
 * worker leaves the parts waiting and ingests them together, as one upload, when the manifest's
 * event arrives; a redelivered manifest changes nothing. Sums come from the raw parts.
 */
const harness = ingestWorkerHarness('wh-manifests');
const { run, s3Event, receiveAll, upload } = harness;

const [header, ...data] = readFileSync(CUR_SAMPLE, 'utf8').trimEnd().split('\n') as [string, ...string[]];
const chunks = [data.slice(0, 250), data.slice(250, 700), data.slice(700)];
const gz = (lines: string[]) => gzipSync(`${[header, ...lines].join('\r\n')}\r\n`);

const novemberDaily = async (orgId: string) => novemberByProvider(await getWarehouse(), orgId);

async function newOrg(name: string): Promise<string> {
  const org = `org_${name}_${run}`;
  await registerOrganization({ id: org, name: org, timezone: 'UTC', createdAt: new Date().toISOString() });
  return org;
}

describe('billing-ingest worker and AWS CUR manifests', () => {
  it('CUR 1.0: parts wait, the manifest ingests them all as one upload; a redelivery changes nothing', async () => {
    const org = await newOrg('man1');
    const folder = `uploads/${org}/cur/acme/20231101-20231201`;
    const keys = chunks.map((_, i) => `${folder}/asm-1/acme-${i + 1}.csv.gz`);
    for (const [i, key] of keys.entries()) {
      upload(key, gz(chunks[i] as string[]));
      expect(await processUpload({ bucket: 'local-billing', key, version: `p${i}` })).toBe('part');
      expect(await getIngestion(org, key, `p${i}`)).toBeUndefined();
    }
    expect(await (await getWarehouse()).billingMonths(org)).toEqual([]);
    const manifestKey = `${folder}/acme-Manifest.json`;
    upload(
      manifestKey,
      Buffer.from(
        JSON.stringify({
          assemblyId: 'asm-1',
          account: '123412340534',
          reportName: 'acme',
          bucket: 'local-billing',
          billingPeriod: { start: '20231101T000000.000Z', end: '20231201T000000.000Z' },
          reportKeys: keys,
        }),
      ),
    );
    expect((await handler(s3Event(manifestKey, 'm-1'))).batchItemFailures).toEqual([]);
    expect(await getIngestion(org, manifestKey, 'm-1')).toMatchObject({
      status: 'succeeded',
      rows: data.length,
      months: ['2023-11'],
    });
    const expected = prefixed('AWS', curDaily(parseCsv(`${[header, ...data].join('\n')}\n`)));
    expectSums(await novemberDaily(org), expected);
    expect(await receiveAll()).toHaveLength(1);
    // At-least-once delivery: the same manifest event again is skipped.
    expect((await handler(s3Event(manifestKey, 'm-1', 'again'))).batchItemFailures).toEqual([]);
    expectSums(await novemberDaily(org), expected);
    expect(await receiveAll()).toEqual([]);
  });

  it('CUR 2.0: a Manifest.json of s3:// dataFiles ingests the parts; a part not there yet is retried', async () => {
    const org = await newOrg('man2');
    const base = `uploads/${org}/exports/acme`;
    const keys = chunks.map((_, i) => `${base}/data/BILLING_PERIOD=2023-11/acme-0000${i + 1}.csv.gz`);
    const manifestKey = `${base}/metadata/BILLING_PERIOD=2023-11/acme-Manifest.json`;
    upload(
      manifestKey,
      Buffer.from(
        JSON.stringify({
          version: '1.0',
          exportArn: 'arn:aws:bcm-data-exports:us-east-1:123412340534:export/acme-1',
          executionId: 'e-1',
          billingPeriod: { start: '2023-11-01T00:00:00.000Z', end: '2023-12-01T00:00:00.000Z' },
          dataFiles: keys.map((k) => `s3://local-billing/${k}`),
        }),
      ),
    );
    for (const [i, key] of keys.slice(0, 2).entries()) upload(key, gz(chunks[i] as string[]));
    // The last part is missing: a failure of this message only, for SQS to retry.
    expect((await handler(s3Event(manifestKey, 'm-2', 'early'))).batchItemFailures).toEqual([
      { itemIdentifier: 'early' },
    ]);
    upload(keys[2] as string, gz(chunks[2] as string[]));
    expect((await handler(s3Event(manifestKey, 'm-2', 'retry'))).batchItemFailures).toEqual([]);
    expect(await getIngestion(org, manifestKey, 'm-2')).toMatchObject({
      status: 'succeeded',
      rows: data.length,
    });
    expectSums(
      await novemberDaily(org),
      prefixed('AWS', curDaily(parseCsv(`${[header, ...data].join('\n')}\n`))),
    );
  });

  it('refuses a manifest listing a part of another organisation, and reads nothing of it', async () => {
    const org = await newOrg('man3');
    const other = `uploads/org_other_${run}/cur/x/20231101-20231201/a/x-1.csv.gz`;
    upload(other, gz(data.slice(0, 5)));
    const manifestKey = `uploads/${org}/cur/x/20231101-20231201/x-Manifest.json`;
    upload(
      manifestKey,
      Buffer.from(JSON.stringify({ assemblyId: 'a', reportName: 'x', bucket: 'b', reportKeys: [other] })),
    );
    expect((await handler(s3Event(manifestKey, 'm-3'))).batchItemFailures).toEqual([]);
    expect(await getIngestion(org, manifestKey, 'm-3')).toMatchObject({
      status: 'rejected',
      code: 'MANIFEST_PART_OUTSIDE',
    });
    expect(await (await getWarehouse()).billingMonths(org)).toEqual([]);
  });

  it('calls a manifest a manifest when it is given where billing data is expected', async () => {
    const dir = (await import('node:fs')).mkdtempSync(`${(await import('node:os')).tmpdir()}/man-`);
    const path = `${dir}/Manifest.json`;
    (await import('node:fs')).writeFileSync(
      path,
      JSON.stringify({ exportArn: 'arn:x', executionId: 'e', dataFiles: ['s3://b/k-00001.csv.gz'] }, null, 2),
    );
    await expect(
      (await getWarehouse()).ingestFile({ orgId: `org_man4_${run}`, path, sourceName: 'Manifest.json' }),
    ).rejects.toThrow(
      /^The file is an AWS CUR 2\.0 \/ Data Exports manifest \(Manifest\.json with dataFiles\), not billing data/,
    );
  });
});
