import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { azureDaily, billingSourceSamples, curDaily, expectSums, prefixed } from './support';

/**
 * An upload replaces, for each billing month it holds, only the rows of its billing sources
 * (provider, billing account): exports of several providers or payer accounts for one month are
 * all kept, and a corrected export replaces its own source. Figures are sums computed here from
 * the uploaded files.
 */
const dir = mkdtempSync(join(tmpdir(), 'wh-sources-'));
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const NOVEMBER = { start: '2023-11-01', end: '2023-12-01' };

const { cur, azure, corrected, secondPayer } = billingSourceSamples(dir);

/** The warehouse's November cost per `provider|day` (or `provider|account|day`). */
async function daily(orgId: string, byAccount = false): Promise<Map<string, number>> {
  const rows = await warehouse.costSeries({
    orgId,
    metricId: 'cost',
    groupBy: byAccount ? ['provider', 'billing_account'] : 'provider',
    granularity: 'Day',
    ...NOVEMBER,
  });
  const out = new Map<string, number>();
  for (const r of rows) {
    const key = [...Object.values(r.group), r.period].join('|');
    out.set(key, (out.get(key) ?? 0) + r.value);
  }
  return out;
}

describe('billing sources: an upload replaces only its own (provider, billing account) of each month', () => {
  const org = `org_sources_${run}`;

  it('keeps a CUR and an Azure export of the same month, each equal to its raw file per day', async () => {
    expect(await warehouse.ingestFile({ orgId: org, path: cur.path, sourceName: 'cur.csv' })).toMatchObject({
      rows: cur.rows.length,
      months: ['2023-11'],
    });
    expect(
      await warehouse.ingestFile({ orgId: org, path: azure.path, sourceName: 'azure.csv' }),
    ).toMatchObject({
      rows: azure.rows.length,
      months: ['2023-11'],
    });
    expectSums(await daily(org), [
      ...prefixed('AWS', curDaily(cur.rows)),
      ...prefixed('Microsoft', azureDaily(azure.rows)),
    ]);
  });

  it('a corrected CUR of the month replaces the AWS rows only', async () => {
    await warehouse.ingestFile({ orgId: org, path: corrected.path, sourceName: 'cur-corrected.csv' });
    const expected = [
      ...prefixed('AWS', curDaily(corrected.rows)),
      ...prefixed('Microsoft', azureDaily(azure.rows)),
    ];
    expectSums(await daily(org), expected);
    // Re-ingesting the Azure file again changes nothing (no double counting).
    await warehouse.ingestFile({ orgId: org, path: azure.path, sourceName: 'azure.csv' });
    expectSums(await daily(org), expected);
    // The corrected CUR is smaller than the first one: the figures above could not pass by summing both.
    expect(corrected.rows.length).toBeLessThan(cur.rows.length);
  });

  it('keeps two payer accounts of the same provider, and replaces each by its own re-export', async () => {
    await warehouse.ingestFile({ orgId: org, path: secondPayer.path, sourceName: 'cur-payer-2.csv' });
    const expected = () => [
      ...prefixed('AWS|123412340534', curDaily(corrected.rows)),
      ...prefixed('AWS|999988887777', curDaily(secondPayer.rows)),
      ...prefixed('Microsoft|12345678', azureDaily(azure.rows)),
    ];
    expectSums(await daily(org, true), expected());
    await warehouse.ingestFile({ orgId: org, path: cur.path, sourceName: 'cur.csv' });
    expectSums(await daily(org, true), [
      ...prefixed('AWS|123412340534', curDaily(cur.rows)),
      ...prefixed('AWS|999988887777', curDaily(secondPayer.rows)),
      ...prefixed('Microsoft|12345678', azureDaily(azure.rows)),
    ]);
  });

  it('rows without a billing account are one source per provider', async () => {
    const orgId = `org_sources_null_${run}`;
    const header =
      'ProviderName,BillingAccountId,ServiceName,BilledCost,BillingCurrency,ChargePeriodStart,BillingPeriodStart';
    const file = (name: string, lines: string[]) => {
      const path = join(dir, name);
      writeFileSync(path, `${header}\n${lines.join('\n')}\n`);
      return path;
    };
    const day = '2024-03-05T00:00:00Z,2024-03-01T00:00:00Z';
    await warehouse.ingestFile({
      orgId,
      path: file('a.csv', [`Acme Cloud,,Compute,1.5,USD,${day}`, `Acme Cloud,NULL,Storage,2.25,USD,${day}`]),
      sourceName: 'a.csv',
    });
    await warehouse.ingestFile({
      orgId,
      path: file('b.csv', [`Acme Cloud,acct-1,Compute,10,USD,${day}`, `Other Cloud,,Compute,100,USD,${day}`]),
      sourceName: 'b.csv',
    });
    const byAccount = async () => {
      const rows = await warehouse.costSeries({
        orgId,
        metricId: 'cost',
        groupBy: ['provider', 'billing_account'],
        granularity: 'Month',
        start: '2024-03-01',
        end: '2024-04-01',
      });
      return Object.fromEntries(rows.map((r) => [Object.values(r.group).join('|'), r.value]));
    };
    expect(await byAccount()).toEqual({
      'Acme Cloud|': 1.5 + 2.25,
      'Acme Cloud|acct-1': 10,
      'Other Cloud|': 100,
    });
    // A re-export of Acme's account-less rows replaces those only.
    await warehouse.ingestFile({
      orgId,
      path: file('c.csv', [`Acme Cloud,,Compute,4,USD,${day}`]),
      sourceName: 'c.csv',
    });
    expect(await byAccount()).toEqual({ 'Acme Cloud|': 4, 'Acme Cloud|acct-1': 10, 'Other Cloud|': 100 });
  });
});
