import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AthenaClient } from '@aws-sdk/client-athena';
import { resetConfig } from '../../../shared/config';
import type { ConformanceReport } from '../../../shared/model/uploads';
import { AthenaWarehouse } from '../../../shared/warehouse/athena/adapter';
import { athenaRunner } from '../../../shared/warehouse/athena/client';
import { contractCommitmentKey } from '../../../shared/warehouse/athena/sql';
import { CONTRACT_COMMITMENT_REQUIREMENTS } from '../../../shared/warehouse/conformance/contract-commitment';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { LOCAL_BUCKET_NAME } from '../../../shared/warehouse/object-store';
import { suiteFolder } from '../../support/suite-folder';
import { csv, DEPRECATED_IN_1_3, failures, type Row, underContract, usage13, uses } from './focus-rows';

/**
 * FOCUS 1.3's Contract Commitment dataset as an upload of its own: recognised by its header,
 * kept in the contract commitments table (an upload restates the contracts it names), and checked
 * against the dataset's requirements; rows built here break named requirements on named lines.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const folder = suiteFolder('contract-commitments-');
let n = 0;

const spend = (i: number, contract = 'c-1'): Row => ({
  ContractCommitmentId: `cc-${i}`,
  ContractId: contract,
  ContractPeriodStart: '2025-01-01T00:00:00Z',
  ContractPeriodEnd: '2027-01-01T00:00:00Z',
  ContractCommitmentPeriodStart: '2025-01-01T00:00:00Z',
  ContractCommitmentPeriodEnd: '2026-01-01T00:00:00Z',
  ContractCommitmentDescription: 'Spend 10,000 USD in the first year',
  ContractCommitmentType: 'Annual spend commitment',
  ContractCommitmentCategory: 'Spend',
  ContractCommitmentUnit: null,
  ContractCommitmentQuantity: null,
  ContractCommitmentCost: 10_000 + i,
  BillingCurrency: 'USD',
});

const usage = (i: number, contract = 'c-1'): Row => ({
  ...spend(i, contract),
  ContractCommitmentDescription: '1,000 VM hours a month',
  ContractCommitmentType: 'Compute hours',
  ContractCommitmentCategory: 'Usage',
  ContractCommitmentUnit: 'Hours',
  ContractCommitmentQuantity: 1000,
  ContractCommitmentCost: null,
});

async function ingest(rows: Row[], orgId = `org_cc_${run}_${++n}`) {
  const path = folder.file(`cc-${++n}.csv`);
  writeFileSync(path, csv(rows));
  return { orgId, result: await warehouse.ingestFile({ orgId, path, sourceName: `cc-${n}.csv` }) };
}

async function report(rows: Row[]): Promise<ConformanceReport> {
  const { result } = await ingest(rows);
  if (!result.conformance) throw new Error('no conformance report');
  return result.conformance;
}

/** A 1.3 usage row whose ContractApplied names each [contract, commitment] given. */
const applied = (i: number, ...pairs: [string, string][]): Row =>
  underContract(
    i,
    pairs.map(([ContractID, ContractCommitmentID]) => ({
      ContractID,
      ContractCommitmentID,
      ContractCommitmentAppliedCost: 1,
    })),
  );

/** A 1.3 billing file of `rows` (without the deprecated provider columns): its path. */
function billFile(rows: Row[]): string {
  const path = folder.file(`bill-${++n}.csv`);
  writeFileSync(path, csv(rows, DEPRECATED_IN_1_3));
  return path;
}

const stored = (orgId: string) =>
  withConnection((c) =>
    query(
      c,
      `SELECT "ContractCommitmentId" AS id, "ContractId" AS contract, "ContractCommitmentCost" AS cost,
              "ContractCommitmentQuantity" AS quantity, "ContractCommitmentPeriodEnd" AS ends
         FROM contract_commitments WHERE org_id = $1 ORDER BY 1`,
      [orgId],
    ),
  );

describe('the Contract Commitment dataset', () => {
  it('is recognised, kept whole and checked: a file that keeps every rule fails none', async () => {
    const rows = [spend(1), usage(2), spend(3, 'c-2')];
    const { orgId, result } = await ingest(rows);
    expect(result).toMatchObject({ format: 'contract-commitment', rows: 3, months: [] });
    expect(result.conformance?.focusVersion).toBe('1.3');
    expect(failures(result.conformance as ConformanceReport)).toEqual({});
    expect(result.conformance?.requirements.map((r) => r.id)).toEqual(
      CONTRACT_COMMITMENT_REQUIREMENTS.map((r) => r.id),
    );
    // The two spend commitments leave their quantity out, as 1.3 allows.
    expect(uses(result.conformance as ConformanceReport)['ContractCommitmentQuantity-C-005-O']).toBe(2);
    const kept = await stored(orgId);
    expect(kept.map((r) => [r.id, r.contract, r.cost, r.quantity])).toEqual(
      rows.map((r) => [
        r.ContractCommitmentId,
        r.ContractId,
        r.ContractCommitmentCost,
        r.ContractCommitmentQuantity,
      ]),
    );
    expect(String(kept[0]?.ends)).toMatch(/^2026-01-01/);
  });

  it('an upload restates the contracts it names; other contracts stay', async () => {
    const { orgId } = await ingest([spend(1), usage(2), spend(3, 'c-2')]);
    await ingest([{ ...spend(4), ContractCommitmentCost: 500 }], orgId);
    expect((await stored(orgId)).map((r) => [r.id, r.contract, r.cost])).toEqual([
      ['cc-3', 'c-2', 10_003],
      ['cc-4', 'c-1', 500],
    ]);
  });

  it('each broken requirement fails with its rows and lines (line 1 is the header)', async () => {
    const rows: Row[] = [
      spend(1),
      { ...spend(2), ContractCommitmentCategory: 'Savings' },
      { ...spend(3), ContractCommitmentCost: null },
      { ...usage(4), ContractCommitmentQuantity: null, ContractCommitmentUnit: null },
      { ...usage(5), ContractCommitmentUnit: null },
      { ...spend(6), ContractCommitmentUnit: 'USD' },
      spend(7),
      spend(7),
      spend(9, 'c-1'),
      { ...spend(9, 'c-2') },
      { ...spend(11), ContractCommitmentPeriodEnd: '2024-12-31T00:00:00Z' },
      { ...spend(12), BillingCurrency: 'XAU' },
      { ...usage(13), ContractCommitmentUnit: 'hours' },
      { ...spend(14), ContractId: null },
      { ...spend(15), ContractCommitmentDescription: null },
    ];
    const r = await report(rows);
    expect(failures(r)).toEqual({
      'ContractCommitmentCategory-C-004-M': [1, [3]],
      'ContractCommitmentCost-C-004-C': [1, [4]],
      'ContractCommitmentQuantity-C-004-C': [1, [5]],
      'ContractCommitmentUnit-C-006-C': [1, [6]],
      'ContractCommitmentUnit-C-005-C': [1, [7]],
      // cc-7 twice; cc-9 twice, under two contracts.
      'ContractCommitmentId-C-009-M': [4, [8, 9, 10, 11]],
      'ContractCommitmentId-C-007-M': [2, [10, 11]],
      'ContractCommitmentPeriodEnd-C-005-M': [1, [12]],
      'BillingCurrency-C-007-M': [1, [13]],
      'UnitFormat-A-001-M:ContractCommitmentUnit': [1, [14]],
      'UnitFormat-A-003-M:ContractCommitmentUnit': [1, [14]],
      'ContractId-C-004-M': [1, [15]],
      'ContractCommitmentDescription-C-004-O': [1, [16]],
    });
    const missing = await report([spend(1)].map(({ ContractCommitmentDescription, ...rest }) => rest));
    expect(failures(missing)).toEqual({ 'ContractCommitmentDescription-C-001-M': [1, []] });
  });

  it('refuses a file with a cost that is no number, naming its row and column', async () => {
    await expect(ingest([spend(1), { ...spend(2), ContractCommitmentCost: 'ten thousand' }])).rejects.toThrow(
      'Row 2 (line 3), column ContractCommitmentCost: the value is not a number',
    );
  });

  it("a 1.3 billing file's ContractApplied is checked against the contracts stored before it", async () => {
    const bill = async (orgId: string) => {
      const path = billFile([
        usage13(1),
        applied(2, ['c-1', 'cc-1']),
        applied(3, ['c-1', 'cc-9']),
        applied(4, ['c-2', 'cc-3'], ['c-1', 'cc-8']),
      ]);
      const r = await warehouse.ingestFile({ orgId, path, sourceName: 'bill.csv' });
      return r.conformance!.requirements.find((x) => x.id === 'ContractApplied-X-001-C')!;
    };
    // No contract dataset yet: listed, not checked, and says how to get it checked.
    const orgId = `org_cc_ref_${run}`;
    const before = await bill(orgId);
    expect([before.status, before.keyword]).toEqual(['not_applicable', 'SHOULD']);
    expect(before.reason).toContain('no Contract Commitment dataset yet');
    // With cc-1, cc-2 and cc-3 stored: cc-9 (line 4) and cc-8 (line 5) are unknown.
    await ingest([spend(1), usage(2), spend(3, 'c-2')], orgId);
    const after = await bill(orgId);
    expect(after).toMatchObject({ status: 'fail', violations: 2 });
    expect(after.samples?.map((s) => s.line)).toEqual([4, 5]);
  });

  it('on Athena: one Parquet object per organisation and contract, replaced whole by a restating upload', async () => {
    const bucketDir = await mkdtemp(join(tmpdir(), 'cc-bucket-'));
    const env = { dir: process.env.LOCAL_BUCKET_DIR, bucket: process.env.BILLING_BUCKET };
    process.env.LOCAL_BUCKET_DIR = bucketDir;
    delete process.env.BILLING_BUCKET;
    resetConfig();
    try {
      const athena = new AthenaWarehouse({
        bucket: LOCAL_BUCKET_NAME,
        runner: athenaRunner({
          client: new AthenaClient({ region: 'us-east-1' }),
          workgroup: 'wg',
          database: 'db',
        }),
      });
      const orgId = `org_cc_athena_${run}`;
      const upload = async (rows: Row[]) => {
        const path = folder.file(`athena-${++n}.csv`);
        writeFileSync(path, csv(rows));
        return athena.ingestFile({ orgId, path, sourceName: `athena-${n}.csv` });
      };
      const first = await upload([spend(1), usage(2), spend(3, 'c-2')]);
      expect(first).toMatchObject({ format: 'contract-commitment', rows: 3, months: [] });
      expect(failures(first.conformance as ConformanceReport)).toEqual({});
      await upload([{ ...spend(4), ContractCommitmentCost: 500 }]);
      const objectOf = (contract: string) => join(bucketDir, contractCommitmentKey(orgId, contract));
      const read = (contract: string) =>
        withConnection((c) =>
          query(
            c,
            `SELECT contractcommitmentid AS id, contractcommitmentcost AS cost FROM read_parquet('${objectOf(contract)}') ORDER BY 1`,
          ),
        );
      expect((await read('c-1')).map((r) => [r.id, r.cost])).toEqual([['cc-4', 500]]);
      expect((await read('c-2')).map((r) => [r.id, r.cost])).toEqual([['cc-3', 10_003]]);
      // A 1.3 billing file's ContractApplied is checked against those objects: cc-4 and cc-3 are
      // stored, cc-1 was restated away by the second upload.
      const path = billFile([
        applied(1, ['c-1', 'cc-4']),
        applied(2, ['c-1', 'cc-1']),
        applied(3, ['c-2', 'cc-3']),
      ]);
      const billed = await athena.ingestFile({ orgId, path, sourceName: 'bill.csv' });
      expect(billed.conformance?.requirements.find((r) => r.id === 'ContractApplied-X-001-C')).toMatchObject({
        status: 'fail',
        violations: 1,
        samples: [expect.objectContaining({ line: 3 })],
      });
    } finally {
      if (env.dir === undefined) delete process.env.LOCAL_BUCKET_DIR;
      else process.env.LOCAL_BUCKET_DIR = env.dir;
      if (env.bucket !== undefined) process.env.BILLING_BUCKET = env.bucket;
      resetConfig();
    }
  });
});
