import type { Principal } from '../../../shared/auth/principal';
import { runRefresh } from '../../../shared/domain/billing/refresh';
import { listDimensions } from '../../../shared/domain/dimensions/service';
import type { EnrichmentFeature } from '../../../shared/model/view-features';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { entry } from '../../unit/enrichments/fixtures';
import {
  type CsvRow,
  close,
  expectSameSums,
  FOCUS_SAMPLE,
  num,
  readCsv,
  sumBy,
  tagsOf,
  totals2024By,
} from './support';

const warehouse = new DuckDbWarehouse();
const sample = readCsv(FOCUS_SAMPLE);
const org = `org_enr_${Date.now().toString(36)}`;
const accounts = [...new Set(sample.map((r) => r.SubAccountId).filter((a): a is string => Boolean(a)))].slice(
  0,
  3,
);

/** Applied in priority order (the store returns them sorted): 5, 10, 20; one broken document. */
const enrichments: EnrichmentFeature[] = [
  {
    name: 'aws_amazon',
    keyField: 'ProviderName',
    priority: 5,
    conditions: 'input.ServiceName.startsWith("Amazon") && input.BilledCost >= 0.0',
    targetColumns: [{ name: 'cost_center', mode: 'merge' }],
    entries: [entry('AWS', { cost_center: 'CC-AWS' })],
  },
  {
    name: 'accounts',
    keyField: 'SubAccountId',
    priority: 10,
    targetColumns: [
      { name: 'cost_center', mode: 'merge' },
      { name: 'owner', mode: 'merge' },
    ],
    entries: [
      entry(accounts[0]!, { cost_center: 'CC-1', owner: 'alice' }),
      entry(accounts[1]!, { cost_center: 'CC-2' }),
      entry(accounts[2]!, { owner: 'bob' }),
    ],
  },
  {
    name: 'broken',
    keyField: 'ServiceName',
    priority: 15,
    conditions: 'input.NotAColumn == "x"',
    targetColumns: [{ name: 'cost_center', mode: 'overwrite' }],
    entries: [entry('Amazon Simple Queue Service', { cost_center: 'WRONG' })],
  },
  {
    name: 'network_dev',
    keyField: 'ServiceCategory',
    priority: 20,
    conditions: 'input.Tags["environment"] == "dev"',
    targetColumns: [{ name: 'owner', mode: 'overwrite' }],
    entries: [entry('Networking', { owner: 'netops' })],
  },
];

/** The same rules, applied row by row in plain JavaScript. */
function expectedCostCenter(r: CsvRow): string {
  const v5 =
    r.ProviderName === 'AWS' && (r.ServiceName ?? '').startsWith('Amazon') && num(r.BilledCost) >= 0
      ? 'CC-AWS'
      : null;
  const v10 = r.SubAccountId === accounts[0] ? 'CC-1' : r.SubAccountId === accounts[1] ? 'CC-2' : null;
  return v5 ?? v10 ?? '';
}
const totalsBy = (groupBy: string) => totals2024By(warehouse, org, groupBy);
/** The warehouse's 2024 cost by `groupBy` is the sample's billed cost summed by `expected` of each row. */
async function expectTotalsBy(groupBy: string, expected: (r: CsvRow) => string) {
  expectSameSums(
    await totalsBy(groupBy),
    sumBy(sample, expected, (r) => num(r.BilledCost)),
    1e-6,
  );
}

/** Every target column starts empty (a label of another name does not feed it). */
function expectedOwner(r: CsvRow): string {
  const v10 = r.SubAccountId === accounts[0] ? 'alice' : r.SubAccountId === accounts[2] ? 'bob' : null;
  const v20 = r.ServiceCategory === 'Networking' && tagsOf(r).environment === 'dev' ? 'netops' : null;
  return v20 ?? v10 ?? '';
}
const applicationLabel = (r: CsvRow): string => tagsOf(r).application ?? '';

/** A full refresh with the enrichments and one label `name` of the `application` tag. */
const refreshWithAppLabel = (name: string) =>
  warehouse.refreshFeatures(
    org,
    {
      labels: [{ name, columnsMerged: [{ name: 'application', type: 'label' }], maps: [] }],
      vdims: [],
      enrichments,
    },
    'full',
  );

describe('full refresh applies enrichments by priority', () => {
  beforeAll(async () => {
    await warehouse.ingestFile({ orgId: org, path: FOCUS_SAMPLE, sourceName: 'focus_sample.csv' });
  });

  it('fills target columns: lower priority first, merge keeps, overwrite replaces, conditions in CEL', async () => {
    expect(accounts).toHaveLength(3);
    const catalog = await refreshWithAppLabel('app');
    expect(catalog.dimensions.map((d) => [d.name, d.kind])).toEqual([
      ['app', 'label'],
      ['cost_center', 'enrichment'],
      ['owner', 'enrichment'],
    ]);
    expect(catalog.warnings).toEqual([expect.stringMatching(/^enrichment broken skipped: .*NotAColumn/)]);
    await expectTotalsBy('cost_center', expectedCostCenter);
    await expectTotalsBy('owner', expectedOwner);
    await expectTotalsBy('app', applicationLabel);
    // The condition really filtered: some AWS rows are not "Amazon…" services.
    expect(sample.some((r) => r.ProviderName === 'AWS' && !(r.ServiceName ?? '').startsWith('Amazon'))).toBe(
      true,
    );
    expect(sample.some((r) => r.ServiceCategory === 'Networking' && tagsOf(r).environment === 'dev')).toBe(
      true,
    );
  });

  it('lists enrichment target columns as dimensions after a refresh, and a light refresh keeps them', async () => {
    const principal: Principal = { orgId: org, principalId: 'u', kind: 'user', role: 'admin', teamIds: [] };
    const base = {
      type: 'warehouse-refresh' as const,
      orgId: org,
      reason: 'test',
      requestedAt: new Date().toISOString(),
    };
    const deps = { warehouse, loadEnrichments: async () => enrichments, now: () => new Date() };
    expect(await runRefresh({ ...base, requestId: `a-${org}`, mode: 'full' }, deps)).toBe('refreshed');
    const { dimensions, status } = await listDimensions(principal);
    const cc = dimensions.find((d) => d.name === 'cost_center');
    expect(cc).toMatchObject({
      groupTitle: 'Enrichments',
      description: 'Enrichment column from aws_amazon, accounts, broken',
    });
    const total = sample.reduce((s, r) => s + num(r.BilledCost), 0);
    const byCc = sumBy(sample, expectedCostCenter, (r) => num(r.BilledCost));
    byCc.delete('');
    expect(cc?.values.map((v) => v.name).sort()).toEqual([...byCc.keys()].sort());
    for (const v of cc?.values ?? [])
      expect(close(v.proportionCostAllocated, (byCc.get(v.name) ?? 0) / total)).toBe(true);
    expect(status.warnings).toEqual([expect.stringContaining('enrichment broken skipped')]);

    expect(
      await runRefresh(
        { ...base, requestId: `b-${org}`, mode: 'light', requestedAt: new Date().toISOString() },
        deps,
      ),
    ).toBe('refreshed');
    await expectTotalsBy('cost_center', expectedCostCenter);
  });

  it('does not apply a target column named like a published label: the label keeps its own values', async () => {
    // PUT and publish refuse such names now; a document stored before that is skipped, with a warning.
    const catalog = await refreshWithAppLabel('Owner');
    expect(catalog.dimensions.map((d) => [d.name, d.kind])).toEqual([
      ['Owner', 'label'],
      ['cost_center', 'enrichment'],
    ]);
    expect(catalog.warnings).toEqual([
      expect.stringMatching(/^enrichment broken skipped: /),
      'enrichment accounts: column owner is the name of a published label and is not applied',
      'enrichment network_dev: column owner is the name of a published label and is not applied',
    ]);
    await expectTotalsBy('Owner', applicationLabel);
    await expectTotalsBy('cost_center', expectedCostCenter);
  });
});
