import { readFileSync } from 'node:fs';
import { handler } from '../../../functions/workers/billing-ingest';
import type { Principal } from '../../../shared/auth/principal';
import { resetQueueClient } from '../../../shared/cloud/queue';
import { resetConfig } from '../../../shared/config';
import { getIngestion } from '../../../shared/db/dimensions-repo';
import { registerOrganization } from '../../../shared/db/organizations-repo';
import { getUpload } from '../../../shared/db/uploads-repo';
import { requestRestore, uploadIdOf } from '../../../shared/domain/uploads/uploads';
import { getWarehouse } from '../../../shared/warehouse/warehouse';
import { ingestWorkerHarness } from '../../support/ingest-worker';
import { sqsEventOf } from '../../support/sqs';
import {
  CUR_PAYER,
  CUR_SAMPLE,
  curDaily,
  expectSums,
  novemberByProvider,
  num,
  parseCsv,
  prefixed,
} from './support';

/**
 * Parts of one CUR uploaded one at a time replace each other (one billing source). The second
 * upload, holding markedly less than the first, says so in its record, with both versions'
 * figures; the replaced version is kept and a restore puts it back. Figures come from the raw
 * parts, never from the warehouse's own SQL.
 */
const harness = ingestWorkerHarness('wh-replaced');
const { run, s3Event, receiveAll, upload } = harness;

beforeAll(() => {
  // Restore requests go to a queue of this suite (the running stack's worker must not take them).
  process.env.QUEUE_URL_BILLING_INGEST = harness.queueUrl();
  resetConfig();
  resetQueueClient();
});

const [header, ...data] = readFileSync(CUR_SAMPLE, 'utf8').trimEnd().split('\n') as [string, ...string[]];
const part1 = data.slice(0, 900);
const part2 = data.slice(900);
const text = (lines: string[]) => `${[header, ...lines].join('\n')}\n`;
const rowsOf = (lines: string[]) => parseCsv(text(lines));
const usd = (lines: string[]) => rowsOf(lines).reduce((a, r) => a + num(r['lineItem/UnblendedCost']), 0);
/** A version's figures as an upload record states them: its rows and USD cost, summed here from its lines. */
const figures = (lines: string[]) => ({ rows: lines.length, cost: { USD: expect.closeTo(usd(lines), 6) } });
/** The November source of the payer account, replaced: its figures before and after. */
const replacedSource = (before: string[], after: string[]) => ({
  month: '2023-11',
  provider: 'AWS',
  account: CUR_PAYER,
  before: figures(before),
  after: figures(after),
});

const novemberDaily = async (orgId: string) => novemberByProvider(await getWarehouse(), orgId);

describe('an upload that replaces a source with markedly less (DuckDB, billing-ingest worker)', () => {
  const org = `org_repl_${run}`;
  const admin: Principal = { orgId: org, principalId: 'user_a', kind: 'user', role: 'admin', teamIds: [] };
  const key1 = `uploads/${org}/cur-part-1.csv`;
  const key2 = `uploads/${org}/cur-part-2.csv`;

  beforeAll(async () => {
    await registerOrganization({ id: org, name: org, timezone: 'UTC', createdAt: new Date().toISOString() });
  });

  it('says so in its record, with rows and cost per currency before and after, from the raw parts', async () => {
    upload(key1, Buffer.from(text(part1)));
    expect((await handler(s3Event(key1, 'e1'))).batchItemFailures).toEqual([]);
    const first = await getIngestion(org, key1, 'e1');
    expect(first).toMatchObject({
      status: 'succeeded',
      rows: part1.length,
      uploadId: uploadIdOf(org, key1, 'e1'),
    });
    expect(first?.replaced).toBeUndefined();
    expect(first?.warnings).toBeUndefined();

    upload(key2, Buffer.from(text(part2)));
    expect((await handler(s3Event(key2, 'e2'))).batchItemFailures).toEqual([]);
    const second = await getIngestion(org, key2, 'e2');
    expect(second?.replaced).toEqual([{ ...replacedSource(part1, part2), kept: true }]);
    expect(part2.length).toBeLessThan(part1.length * 0.9);
    expect(second?.warnings).toHaveLength(1);
    const money = (n: number) =>
      n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expect(second?.warnings?.[0]).toContain(
      `AWS account ${CUR_PAYER}, 2023-11: ${money(usd(part2))} USD (was ${money(usd(part1))} USD`,
    );
    expect(second?.warnings?.[0]).toContain(`in ${part2.length} rows (was ${part1.length}`);
    expect(Date.parse(second?.restorableUntil ?? '') - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expectSums(await novemberDaily(org), prefixed('AWS', curDaily(rowsOf(part2))));
    await receiveAll();
  });

  it('restores the replaced version once, through the worker, and keeps what it replaced', async () => {
    const id = uploadIdOf(org, key2, 'e2');
    const answer = await requestRestore(admin, id, new Date());
    expect(answer).toMatchObject({
      id,
      status: 'restoring',
      sources: [{ month: '2023-11', provider: 'AWS', account: CUR_PAYER }],
    });
    await expect(requestRestore(admin, id, new Date())).rejects.toMatchObject({ status: 409 });
    const messages = await receiveAll();
    const restore = messages.find((m) => JSON.parse(m).type === 'billing-restore');
    expect(restore).toBeDefined();
    const event = sqsEventOf([{ messageId: 'r1', body: restore as string }], 'billing-ingest');
    expect((await handler(event)).batchItemFailures).toEqual([]);
    expectSums(await novemberDaily(org), prefixed('AWS', curDaily(rowsOf(part1))));
    const record = await getUpload(org, id);
    expect(record?.restoredAt).toBeDefined();
    expect(record?.restored).toEqual([
      expect.objectContaining({
        before: figures(part2),
        after: figures(part1),
      }),
    ]);
    // A redelivered restore changes nothing.
    expect(
      (await handler(sqsEventOf([{ messageId: 'r2', body: restore as string }], 'billing-ingest')))
        .batchItemFailures,
    ).toEqual([]);
    expectSums(await novemberDaily(org), prefixed('AWS', curDaily(rowsOf(part1))));
  });

  it('an upload that does not drop markedly says nothing and keeps nothing to restore', async () => {
    const key3 = `uploads/${org}/cur-part-1-again.csv`;
    upload(key3, Buffer.from(text(part1)));
    expect((await handler(s3Event(key3, 'e3'))).batchItemFailures).toEqual([]);
    const record = await getIngestion(org, key3, 'e3');
    expect(record?.replaced).toEqual([replacedSource(part1, part1)]);
    expect(record?.warnings).toBeUndefined();
    expect(record?.restorableUntil).toBeUndefined();
    await expect(requestRestore(admin, uploadIdOf(org, key3, 'e3'), new Date())).rejects.toMatchObject({
      status: 404,
      message: 'NOTHING_TO_RESTORE',
    });
    expectSums(await novemberDaily(org), prefixed('AWS', curDaily(rowsOf(part1))));
    await receiveAll();
  });

  it('refuses an unknown upload (404), another organisation’s (404) and one that replaced nothing (404)', async () => {
    await expect(requestRestore(admin, 'upl_00000000000000000000000000', new Date())).rejects.toMatchObject({
      status: 404,
    });
    const other: Principal = { ...admin, orgId: `org_repl_other_${run}` };
    await expect(requestRestore(other, uploadIdOf(org, key2, 'e2'), new Date())).rejects.toMatchObject({
      status: 404,
    });
    await expect(requestRestore(admin, uploadIdOf(org, key1, 'e1'), new Date())).rejects.toMatchObject({
      status: 404,
    });
  });
});
