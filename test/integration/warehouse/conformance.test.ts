import { writeFileSync } from 'node:fs';
import { requirementsOf } from '../../../shared/warehouse/conformance/requirements';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { suiteFolder } from '../../support/suite-folder';
import {
  committed,
  conformanceOf,
  csv,
  failures,
  type Row,
  status,
  tax,
  usage,
  uses,
  valid,
} from './focus-rows';

/**
 * The FOCUS conformance check on files built here: a file that keeps every rule gets no failure;
 * each variant breaks named requirements in named rows and gets exactly those failures, with the
 * count and the lines of the file (line 1 is the header). The known defects of the requirements
 * model are tested the specification's way.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const folder = suiteFolder('conformance-');
const check = (rows: Row[], drop: string[] = []) => conformanceOf(rows, drop);

describe('FOCUS conformance of an upload', () => {
  it('a file that keeps every rule fails none, and every implemented requirement is reported once', async () => {
    const report = await check(valid());
    expect(failures(report)).toEqual({});
    expect(report.requirements.map((r) => r.id)).toEqual(requirementsOf('1.2').map((r) => r.id));
    expect(new Set(report.requirements.map((r) => r.id)).size).toBe(requirementsOf('1.2').length);
    expect(report.rows).toBe(6);
    // No PricingCurrency columns: their rules do not apply; the commitment rules do (row 5).
    expect(status(report, 'PricingCurrency-C-003-M')).toBe('not_applicable');
    expect(status(report, 'CommitmentDiscountStatus-C-004-C')).toBe('pass');
    const applicable = report.requirements.filter(
      (r) => r.keyword.startsWith('MUST') && r.status !== 'not_applicable',
    );
    expect(report.score.MUST).toEqual({ met: applicable.length, applicable: applicable.length });
  });

  it('counts bad allowed values and currency codes with the lines they are on', async () => {
    const rows = valid();
    rows[1] = { ...usage(2), BillingCurrency: 'usd' };
    rows[3] = { ...usage(4), BillingCurrency: 'US Dollar', ChargeFrequency: 'Daily' };
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'BillingCurrency-C-003-M': [2, [3, 5]],
      'ChargeFrequency-C-003-M': [1, [5]],
    });
    const sample = report.requirements.find((r) => r.id === 'BillingCurrency-C-003-M')?.samples?.[0];
    expect(sample).toEqual({ row: 2, line: 3, values: { BillingCurrency: 'usd' } });
    const applicable = report.requirements.filter(
      (r) => r.keyword.startsWith('MUST') && r.status !== 'not_applicable',
    ).length;
    expect(report.score.MUST).toEqual({ met: applicable - 2, applicable });
  });

  it('a currency that is no national currency (gold, special drawing rights) fails BillingCurrency-C-006-M', async () => {
    const rows = valid();
    rows[0] = { ...usage(1), BillingCurrency: 'XAU' };
    rows[2] = { ...usage(3), BillingCurrency: 'XDR' };
    rows[3] = { ...usage(4), BillingCurrency: 'XOF' };
    const report = await check(rows);
    // XOF (the West African CFA franc) is the national currency of eight states.
    expect(failures(report)).toEqual({ 'BillingCurrency-C-006-M': [2, [2, 4]] });
  });

  it('an unused capacity reservation line names its reservation (CapacityReservationId-C-005-C)', async () => {
    const rows = valid();
    rows[0] = { ...usage(1), CapacityReservationId: 'cr-1', CapacityReservationStatus: 'Used' };
    rows[1] = { ...usage(2), CapacityReservationId: null, CapacityReservationStatus: 'Unused' };
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'CapacityReservationId-C-005-C': [1, [3]],
      // A status without a reservation id is also against CapacityReservationStatus-C-003-C.
      'CapacityReservationStatus-C-003-C': [1, [3]],
    });
    const alone = valid();
    alone[1] = { ...usage(2), CapacityReservationId: null, CapacityReservationStatus: 'Unused' };
    // No row names a capacity reservation: the feature is not used, its rules do not apply.
    expect(status(await check(alone), 'CapacityReservationId-C-005-C')).toBe('not_applicable');
  });

  it('checks ListUnitPrice × PricingQuantity = ListCost within the documented tolerance', async () => {
    const rows = valid();
    rows[1] = { ...usage(2), ListCost: 5.004 }; // rounding: within 0.01
    rows[2] = { ...usage(3), ListCost: 5.5 }; // wrong
    rows[3] = { ...usage(4), ContractedCost: 3.9, BilledCost: 3.9, EffectiveCost: 3.9 }; // wrong
    const report = await check(rows);
    // The same equality is a requirement of the cost column and of the unit price column.
    expect(failures(report)).toEqual({
      'ListCost-C-009-C': [1, [4]],
      'ListUnitPrice-C-010-C': [1, [4]],
      'ContractedCost-C-009-C': [1, [5]],
      'ContractedUnitPrice-C-011-C': [1, [5]],
    });
  });

  it('region name and id go together; NaN and Infinity are no valid decimals', async () => {
    const rows = valid();
    rows[0] = { ...usage(1), RegionId: null };
    rows[2] = { ...usage(3), RegionName: null };
    rows[3] = { ...usage(4), EffectiveCost: 'NaN', BilledCost: 4 };
    rows[5] = { ...tax(6), EffectiveCost: 'Infinity', BilledCost: 1 };
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'RegionName-C-004-C': [1, [2]],
      'RegionName-C-005-C': [1, [4]],
      'EffectiveCost-C-004-M': [2, [5, 7]],
    });
  });

  it('a pricing currency column has no null; blank strings fail the StringHandling SHOULD NOT', async () => {
    const rows = valid().map((r): Row => ({ ...r, PricingCurrency: 'USD' }));
    rows[1] = { ...(rows[1] as Row), PricingCurrency: null };
    rows[2] = { ...(rows[2] as Row), ServiceName: '   ' };
    rows[4] = { ...(rows[4] as Row), InvoiceIssuerName: ' ' };
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'PricingCurrency-C-004-M': [1, [3]],
      'ServiceName-C-002-M': [1, [4]],
      'InvoiceIssuerName-C-002-M': [1, [6]],
    });
    // The model's MUST is the attribute's SHOULD NOT: the MUST score is untouched by the blanks.
    expect(report.requirements.find((r) => r.id === 'ServiceName-C-002-M')?.keyword).toBe('SHOULD NOT');
    const should = report.requirements.filter(
      (r) => r.keyword.startsWith('SHOULD') && r.status !== 'not_applicable',
    ).length;
    expect(report.score.SHOULD).toEqual({ met: should - 2, applicable: should });
  });

  it('a commitment purchase has EffectiveCost 0 (EffectiveCost-C-005-C); other purchases are not held to it', async () => {
    const purchase = (i: number, cost: number, commitment: boolean): Row => ({
      ...tax(i),
      ChargeCategory: 'Purchase',
      ChargeDescription: 'Purchase',
      ChargeFrequency: 'One-Time',
      BilledCost: 120,
      ContractedCost: 120,
      ListCost: 120,
      ListUnitPrice: 120,
      ContractedUnitPrice: 120,
      EffectiveCost: cost,
      PricingCategory: 'Standard',
      PricingQuantity: 1,
      PricingUnit: 'Units',
      SkuId: 'sku-p',
      SkuMeter: 'Purchase',
      SkuPriceId: 'price-p',
      ...(commitment
        ? {
            CommitmentDiscountCategory: 'Usage',
            CommitmentDiscountId: 'cd-1',
            CommitmentDiscountName: 'RI one',
            CommitmentDiscountQuantity: 10,
            CommitmentDiscountType: 'Reserved Instance',
            CommitmentDiscountUnit: 'Hours',
          }
        : {}),
    });
    const rows = [...valid(), purchase(7, 0, true), purchase(8, 120, true), purchase(9, 120, false)];
    const report = await check(rows);
    // Line 10 (row 9, a marketplace purchase) keeps its cost: the model would fail it too.
    expect(failures(report)).toEqual({ 'EffectiveCost-C-005-C': [1, [9]] });
  });

  it('RECOMMENDED columns missing fail their SHOULD presence, never a MUST', async () => {
    const report = await check(valid(), ['InvoiceId', 'ChargeFrequency']);
    expect(failures(report)).toEqual({
      'CostAndUsage-D-027-O': [6, []],
      'CostAndUsage-D-033-O': [6, []],
    });
    expect(status(report, 'ChargeFrequency-C-003-M')).toBe('not_applicable');
    const applicable = report.requirements.filter(
      (r) => r.keyword.startsWith('MUST') && r.status !== 'not_applicable',
    ).length;
    expect(report.score.MUST).toEqual({ met: applicable, applicable });
  });

  it('commitment status: Used/Unused allowed (not Active/Expired/Pending), null when there is no commitment', async () => {
    const rows = valid();
    // Row 2: a status without a commitment (breaks C-003-C the spec's way: MUST be null).
    rows[1] = { ...usage(2), CommitmentDiscountStatus: 'Used' };
    // Row 3: a model value that the spec does not allow.
    rows[2] = { ...committed(3), CommitmentDiscountStatus: 'Active' };
    // Row 4: an unused commitment row: Usage, no consumed quantity, status Unused.
    rows[3] = {
      ...committed(4),
      CommitmentDiscountStatus: 'Unused',
      ConsumedQuantity: null,
      ConsumedUnit: null,
    };
    const report = await check(rows);
    expect(failures(report)).toEqual({
      'CommitmentDiscountStatus-C-003-C': [1, [3]],
      'CommitmentDiscountStatus-C-005-M': [1, [4]],
    });
  });

  it('counts every row of a SkuPriceId with two SkuIds, and a Tax row with a quantity', async () => {
    const rows = valid();
    rows[2] = { ...usage(3), SkuId: 'sku-2' };
    rows[5] = { ...tax(6), PricingQuantity: 1, PricingUnit: 'Units' };
    const report = await check(rows);
    expect(failures(report)).toEqual({
      // Rows 1–5 carry price-1; row 3 gives it a second SkuId.
      'SkuPriceId-C-008-M': [5, [2, 3, 4, 5, 6]],
      'PricingQuantity-C-004-C': [1, [7]],
    });
  });

  it('a missing mandatory column fails its presence and makes its row rules not applicable', async () => {
    const report = await check(valid(), ['InvoiceIssuerName', 'ChargeDescription']);
    expect(failures(report)).toEqual({
      'CostAndUsage-D-023-M': [6, []],
      'CostAndUsage-D-025-M': [6, []],
    });
    expect(status(report, 'InvoiceIssuerName-C-003-M')).toBe('not_applicable');
    expect(status(report, 'ChargeDescription-C-003-O')).toBe('not_applicable');
  });

  it('a failed MUST does not block the upload: its rows are stored and cost what the file says', async () => {
    const rows = valid();
    rows[0] = { ...usage(1), ServiceName: 'Odd Servers', ServiceCategory: 'Servers' };
    const path = folder.file('stored.csv');
    writeFileSync(path, csv(rows));
    const orgId = `org_conf_${run}_stored`;
    const result = await warehouse.ingestFile({ orgId, path, sourceName: 'stored.csv' });
    expect(result.conformance && failures(result.conformance)).toEqual({
      'ServiceCategory-C-003-M': [1, [2]],
      // Virtual Machines has one parent, Compute.
      'ServiceSubcategory-C-004-M': [1, [2]],
    });
    const [stored] = await withConnection((c) =>
      query(c, 'SELECT count(*)::INT AS n, sum("BilledCost") AS cost FROM billing WHERE org_id = $1', [
        orgId,
      ]),
    );
    expect(Number(stored?.n)).toBe(rows.length);
    expect(Number(stored?.cost)).toBeCloseTo(
      rows.reduce((s, r) => s + Number(r.BilledCost), 0),
      9,
    );
  });

  it('UnitFormat: each rule of the attribute, per unit column, as SHOULD; a quantity is a MAY', async () => {
    const rows = valid();
    rows[0] = { ...usage(1), ConsumedUnit: 'hours' }; // lower case: not a form, not the listed spelling
    rows[1] = { ...usage(2), ConsumedUnit: 'Gigabytes' }; // a spelled-out data size
    rows[2] = { ...usage(3), ConsumedUnit: '1.5 Hours', PricingUnit: 'GBs' }; // a fractional quantity; a plural abbreviation
    rows[3] = { ...usage(4), ConsumedUnit: 'GB per Hour' }; // "per" instead of "/"
    rows[4] = { ...committed(5), CommitmentDiscountUnit: 'HOURS' }; // a form, not the listed spelling
    const fine = ['1000 Tokens', 'GB-Hours', 'GB/Hour', 'Units/3 Months', 'KiB', 'Requests'];
    const extra = fine.map((unit, i) => ({ ...usage(7 + i), ConsumedUnit: unit }));
    const report = await check([...rows, ...extra]);
    expect(failures(report)).toEqual({
      'UnitFormat-A-001-M:ConsumedUnit': [3, [2, 4, 5]],
      'UnitFormat-A-002-M:ConsumedUnit': [1, [4]],
      'UnitFormat-A-003-M:ConsumedUnit': [1, [2]],
      'UnitFormat-A-004-C:ConsumedUnit': [2, [3, 5]],
      'UnitFormat-A-004-C:PricingUnit': [1, [4]],
      'UnitFormat-A-003-M:CommitmentDiscountUnit': [1, [6]],
    });
    // The columns SHOULD conform to UnitFormat: its rules never cost a MUST.
    const applicable = report.requirements.filter(
      (r) => r.keyword.startsWith('MUST') && r.status !== 'not_applicable',
    ).length;
    expect(report.score.MUST).toEqual({ met: applicable, applicable });
    expect(report.requirements.find((r) => r.id === 'UnitFormat-A-003-M:ConsumedUnit')?.keyword).toBe(
      'SHOULD',
    );
    // "1000 Tokens" and "Units/3 Months" use the permission of a quantity or interval.
    expect(uses(report)['UnitFormat-A-002-O:ConsumedUnit']).toBe(2);
  });

  it('MAY requirements always pass and count the rows that use them', async () => {
    const credit: Row = {
      ...tax(7),
      ChargeCategory: 'Credit',
      ChargeDescription: 'Promotional credit',
      ChargeFrequency: 'One-Time',
      BilledCost: -2,
      ContractedCost: -2,
      EffectiveCost: -2,
      ListCost: -2,
    };
    const correction: Row = {
      ...usage(8),
      ChargeClass: 'Correction',
      ListCost: 3,
      ConsumedQuantity: null,
      ConsumedUnit: null,
    };
    const sameIds: Row = { ...usage(9), SkuId: 'sku-9', SkuPriceId: 'sku-9' };
    const noName: Row = { ...committed(10), CommitmentDiscountName: null };
    const report = await check([...valid(), credit, correction, sameIds, noName]);
    expect(failures(report)).toEqual({});
    const may = report.requirements.filter((r) => r.keyword === 'MAY');
    expect(may.length).toBeGreaterThan(15);
    expect(may.every((r) => r.status !== 'fail' && r.violations === 0)).toBe(true);
    // Counted from the rows above: one credit (no unit price, quantity, SKU, pricing category),
    // one correction whose ListCost is off 10 × 0.5, one row whose SkuId is its SkuPriceId.
    expect(uses(report)).toMatchObject({
      'ListUnitPrice-C-006-O': 1,
      'PricingQuantity-C-006-O': 1,
      'SkuId-C-006-O': 1,
      'PricingCategory-C-005-O': 1,
      'ListCost-C-010-C': 1,
      'ContractedCost-C-010-C': 0,
      'ConsumedQuantity-C-007-C': 1,
      'SkuId-C-012-O': 1,
      'SkuPriceId-C-011-O': 1,
      'CommitmentDiscountName-C-007-C': 1,
      'RegionId-C-005-C': 0,
    });
  });
});
