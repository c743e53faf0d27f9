import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirementsOf } from '../../../shared/warehouse/conformance/requirements';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { billingColumnsMigration, query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { BILLING_COLUMNS, FOCUS_1_3_COLUMNS } from '../../../shared/warehouse/focus-columns';
import {
  allocated,
  conformanceOf,
  csv,
  DEPRECATED_IN_1_3,
  failures,
  type Row,
  status,
  tax13,
  underContract,
  usage13,
  uses,
} from './focus-rows';

/**
 * FOCUS 1.3 files: detected by the columns 1.3 introduced, stored with them, checked against the
 * 1.3 requirements (./shared/warehouse/conformance/focus-1-3.ts) instead of the deprecated
 * ProviderName/PublisherName ones. Each variant breaks named requirements in named rows and gets
 * exactly those failures, with the lines of the file (line 1 is the header).
 */
const check = (rows: Row[]) => conformanceOf(rows, DEPRECATED_IN_1_3);
const valid13 = (): Row[] => [usage13(1), allocated(2), underContract(3), tax13(4)];

describe('FOCUS 1.3 conformance', () => {
  it('a 1.3 file that keeps every rule is reported against the 1.3 requirements and fails none', async () => {
    const report = await check(valid13());
    expect(report.focusVersion).toBe('1.3');
    expect(failures(report)).toEqual({});
    // With the cross-dataset check of ContractApplied (no contract dataset for this organisation).
    expect(report.requirements.map((r) => r.id)).toEqual([
      ...requirementsOf('1.3').map((r) => r.id),
      'ContractApplied-X-001-C',
    ]);
    // The split cost allocation attribute: listed, not machine-checkable, never scored.
    const split = report.requirements.filter((r) =>
      r.id.startsWith('DataGeneratorCalculatedSplitCostAllocationHandling-'),
    );
    expect(
      split.map((r) => [r.status, r.reason?.startsWith('not machine-checkable: the origin charge')]),
    ).toEqual(Array(4).fill(['not_applicable', true]));
    // The deprecated columns are not required of a 1.3 file; their replacements are.
    const ids = report.requirements.map((r) => r.id);
    expect(ids).not.toContain('CostAndUsage-D-038-M');
    expect(status(report, 'ServiceProviderName-C-001-M')).toBe('pass');
    expect(status(report, 'AllocatedMethodDetails-C-016-M')).toBe('pass');
    // The tax row has no host provider, which 1.3 allows.
    expect(uses(report)['HostProviderName-C-005-O']).toBe(1);
  });

  it('a 1.2 file is not held to the 1.3 requirements', async () => {
    // The same rows without the columns 1.3 introduced (ProviderName and PublisherName kept).
    const report = await conformanceOf([usage13(1), tax13(2)], [...FOCUS_1_3_COLUMNS]);
    expect(report.focusVersion).toBe('1.2');
    expect(report.requirements.map((r) => r.id)).toEqual(requirementsOf('1.2').map((r) => r.id));
  });

  it('provider columns: ServiceProviderName never null, HostProviderName set on usage of a resource', async () => {
    const rows = valid13();
    rows[0] = { ...usage13(1), ServiceProviderName: null };
    rows[2] = { ...underContract(3), HostProviderName: null };
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'ServiceProviderName-C-004-M': [1, [2]],
      'HostProviderName-C-006-C': [1, [4]],
    });
  });

  it('allocation columns: method details, resource name and allocated tags, each broken once', async () => {
    const rows: Row[] = [
      usage13(1),
      allocated(2, 'not json'),
      allocated(3, { Ratio: 0.5 }),
      allocated(4, { Elements: [1] }),
      allocated(5, { Elements: [{ AllocatedRatio: 1, Weight: 2 }] }),
      allocated(6, { Elements: [{ UsageUnit: 'Hours' }] }),
      allocated(7, { Elements: [{ AllocatedRatio: '0.5' }] }),
      allocated(8, { Elements: [{ AllocatedRatio: 1, UsageQuantity: 2 }] }),
      allocated(9, { Elements: [{ AllocatedRatio: 1, UsageUnit: 'Hours', UsageQuantity: 'two' }] }),
      { ...allocated(10), AllocatedResourceName: null },
      { ...allocated(11), AllocatedTags: '{"team":"api"}' },
      { ...allocated(12), AllocatedTags: '{"app":{"name":"api"}}' },
      { ...usage13(13), AllocatedResourceId: 'pod-x', AllocatedResourceName: 'pod x' },
      allocated(14, { Elements: [{ AllocatedRatio: 0.25, x_Weight: 2 }] }),
    ];
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'AllocatedMethodDetails-C-004-M': [1, [3]],
      'AllocatedMethodDetails-C-007-M': [1, [4]],
      'AllocatedMethodDetails-C-008-M': [1, [5]],
      'AllocatedMethodDetails-C-014-M': [1, [6]],
      'AllocatedMethodDetails-C-016-M': [1, [7]],
      'AllocatedMethodDetails-C-017-M': [1, [8]],
      'AllocatedMethodDetails-C-019-M': [1, [9]],
      'AllocatedMethodDetails-C-023-M': [1, [10]],
      'AllocatedResourceName-C-005-C': [1, [11]],
      // Tags has "team": an allocated tag may not repeat it.
      'AllocatedTags-C-005-C': [1, [12]],
      'AllocatedTags-C-002-M': [1, [13]],
      // Allocated to a pod without an allocation method: not a split cost allocation.
      'AllocatedResourceId-C-004-C': [1, [14]],
    });
  });

  it('ContractApplied: JSON object, its schema, no nesting, one contract per commitment, purchases', async () => {
    const purchase = (i: number, commitment: string): Row => ({
      ...underContract(i, [{ ContractID: 'c-1', ContractCommitmentID: commitment }]),
      ChargeCategory: 'Purchase',
      ChargeFrequency: 'One-Time',
      ConsumedQuantity: null,
      ConsumedUnit: null,
      ResourceId: 'cc-7',
    });
    const rows: Row[] = [
      usage13(1),
      underContract(2, 'nope'),
      underContract(3, [{ ContractCommitmentID: 'cc-9' }]),
      underContract(4, [{ ContractID: 'c-1', ContractCommitmentID: 'cc-1', x_Meta: { tier: 1 } }]),
      underContract(5, [{ ContractID: 'c-2', ContractCommitmentID: 'cc-2' }]),
      underContract(6, [{ ContractID: 'c-3', ContractCommitmentID: 'cc-2' }]),
      purchase(7, 'cc-7'),
      purchase(8, 'cc-8'),
      underContract(9, [
        {
          ContractID: 'c-1',
          ContractCommitmentID: 'cc-1',
          ContractCommitmentAppliedQuantity: 2,
          ContractCommitmentAppliedUnit: 'hours',
        },
      ]),
      underContract(10, [{ ContractID: 'c-4', ContractCommitmentID: 'c-4' }]),
    ];
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'ContractApplied-C-003-M': [1, [3]],
      'ContractApplied-C-006-M': [1, [4]],
      'ContractApplied-C-007-M': [1, [5]],
      // cc-2 has two parent contracts: both its rows.
      'ContractApplied-C-013-M': [2, [6, 7]],
      // The purchase of cc-8 is on resource cc-7.
      'ContractApplied-C-014-C': [1, [9]],
      'ContractApplied-C-018-O': [1, [10]],
    });
    expect(uses(report)['ContractApplied-C-015-O']).toBe(1);
  });

  it('stores the 1.3 columns and answers the provider dimension from ServiceProviderName', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'focus13-'));
    const path = join(dir, 'focus13.csv');
    const rows = [
      usage13(1),
      allocated(2),
      underContract(3),
      { ...tax13(4), ServiceProviderName: 'Other Co' },
    ];
    writeFileSync(path, csv(rows, DEPRECATED_IN_1_3));
    const orgId = `org_focus13_${Date.now().toString(36)}`;
    const result = await new DuckDbWarehouse().ingestFile({ orgId, path, sourceName: 'focus13.csv' });
    expect(result.rows).toBe(rows.length);
    const stored = await withConnection((c) =>
      query(
        c,
        `SELECT "ProviderName" AS provider, "PublisherName" AS publisher, "ServiceProviderName" AS service, "HostProviderName" AS host,
                "AllocatedResourceId" AS pod, "ContractApplied" AS applied, "BilledCost" AS cost
           FROM billing WHERE org_id = $1 ORDER BY "ChargePeriodStart"`,
        [orgId],
      ),
    );
    expect(stored.map((r) => [r.provider, r.publisher, r.service, r.host])).toEqual(
      rows.map((r) => [
        r.ServiceProviderName,
        r.ServiceProviderName,
        r.ServiceProviderName,
        r.HostProviderName,
      ]),
    );
    expect(stored.map((r) => r.pod)).toEqual(rows.map((r) => r.AllocatedResourceId));
    expect(JSON.parse(String(stored[2]?.applied))).toEqual(JSON.parse(String(rows[2]?.ContractApplied)));
    const total = stored.reduce((s, r) => s + Number(r.cost), 0);
    expect(total).toBeCloseTo(
      rows.reduce((s, r) => s + Number(r.BilledCost), 0),
      9,
    );
  });
});

describe('a billing table created before FOCUS 1.3', () => {
  it('gains the 1.3 columns at its end, in the order of a new table', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    const old = BILLING_COLUMNS.filter((c) => !(FOCUS_1_3_COLUMNS as readonly string[]).includes(c.name));
    await conn.run(`CREATE TABLE old_billing (${old.map((c) => `"${c.name}" VARCHAR`).join(', ')})`);
    for (const sql of billingColumnsMigration('old_billing')) await conn.run(sql);
    for (const sql of billingColumnsMigration('old_billing')) await conn.run(sql); // idempotent
    const described = await query(conn, 'DESCRIBE old_billing');
    expect(described.map((d) => d.column_name)).toEqual(BILLING_COLUMNS.map((c) => c.name));
    conn.closeSync();
  });
});
