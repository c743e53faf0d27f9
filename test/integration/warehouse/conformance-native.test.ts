import { join } from 'node:path';
import { type NativeKind, writeNativeExport } from '../../../infra/local/demo-data/native-generator';
import type { ConformanceReport } from '../../../shared/model/uploads';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { suiteFolder } from '../../support/suite-folder';
import { SAMPLES } from './support';

/**
 * Our own conversions of provider-native exports against the implemented FOCUS 1.2 MUST
 * requirements: every applicable MUST passes except the gaps listed here (and in
 * docs/focus-conformance.md, "Our conversions"): what the raw files do not carry. The list is
 * exact both ways: a new failure fails the test, and so does a gap that gets fixed (so the documented table stays true).
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const folder = suiteFolder('conformance-native-');
let n = 0;

/**
 * What the raw files do not carry, so no conversion can give it (docs/focus-conformance.md, "Our
 * conversions"). Every converter gives ChargeClass, ServiceCategory, ContractedCost,
 * BillingAccountName and BillingPeriodEnd; a rule naming ChargeClass now applies to every format.
 */
/** CUR 1.0 has no account names (CUR 2.0 has `line_item_usage_account_name`). */
const NO_ACCOUNT_NAME = 'SubAccountName-C-005-C';
/** OCI cost reports have no list (public) price. */
const NO_LIST_COST = 'CostAndUsage-D-032-M';
/** The generated Azure and OCI files leave the unit price empty on the lines whose FOCUS source has none. */
const NO_UNIT_PRICE = 'ContractedUnitPrice-C-006-C';
const KNOWN_GAPS: Record<string, string[]> = {
  'AWS CUR 1.0 sample': [
    'ChargeFrequency-C-002-M',
    'PricingQuantity-C-004-C',
    'PricingUnit-C-006-C',
    NO_ACCOUNT_NAME,
  ],
  'OCI sample': [NO_LIST_COST],
  cur1: [NO_ACCOUNT_NAME],
  // The generated Azure file has no MeterId or ProductId column (real exports have both).
  azure: [NO_UNIT_PRICE, 'SkuId-C-005-C'],
  'gcp-csv': ['ChargeFrequency-C-002-M'],
  'gcp-jsonl': ['ChargeFrequency-C-002-M'],
  oci: [NO_LIST_COST, NO_UNIT_PRICE],
};

async function reportOf(path: string): Promise<ConformanceReport> {
  const result = await warehouse.ingestFile({ orgId: `org_confn_${run}_${++n}`, path, sourceName: 'x' });
  if (!result.conformance) throw new Error('no conformance report');
  return result.conformance;
}

const failedMust = (r: ConformanceReport) =>
  r.requirements
    .filter((x) => x.keyword.startsWith('MUST') && x.status === 'fail')
    .map((x) => x.id)
    .sort();

describe('our conversions of native exports keep every applicable MUST but the listed converter gaps', () => {
  it.each([
    ['AWS CUR 1.0 sample', 'aws_cur_sample-anonymous-aws-export-dataset.csv'],
    ['Azure EA sample', 'azure_ea_sample-anonymous-ea-export-dataset.csv'],
    ['OCI sample', 'oci_cost_report_sample.csv'],
  ])('%s', async (label, file) => {
    const report = await reportOf(join(SAMPLES, file));
    expect(failedMust(report)).toEqual([...(KNOWN_GAPS[label] ?? [])].sort());
  });

  it.each(['cur1', 'cur2', 'azure', 'gcp-csv', 'gcp-jsonl', 'oci'] as NativeKind[])(
    'generated %s export',
    async (kind) => {
      const path = folder.file(`${kind}.${kind === 'gcp-jsonl' ? 'jsonl' : 'csv'}`);
      await writeNativeExport(path, kind, {
        seed: 7,
        months: ['2025-01'],
        resourcesPerProvider: 3,
        daysPerMonth: 3,
      });
      const report = await reportOf(path);
      expect(failedMust(report)).toEqual([...(KNOWN_GAPS[kind] ?? [])].sort());
    },
  );
});
