import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../shared/model/uploads';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { csvTable } from '../../support/csv-text';
/**
 * FOCUS 1.2 rows built for the conformance tests: a usage row, a tax row and a row covered by a
 * commitment discount that keep every requirement the checker implements, and the CSV text of
 * rows (cells quoted per RFC 4180). Tests change single cells to break named requirements.
 */
export type Row = Record<string, string | number | null>;

export const usage = (i: number): Row => ({
  BilledCost: 4,
  BillingAccountId: 'acct-1',
  BillingAccountName: 'Main',
  BillingAccountType: 'Billing Account',
  BillingCurrency: 'USD',
  BillingPeriodStart: '2025-03-01T00:00:00Z',
  BillingPeriodEnd: '2025-04-01T00:00:00Z',
  ChargeCategory: 'Usage',
  ChargeClass: null,
  ChargeDescription: 'VM hours',
  ChargeFrequency: 'Usage-Based',
  ChargePeriodStart: `2025-03-0${1 + (i % 9)}T00:00:00Z`,
  ChargePeriodEnd: `2025-03-0${1 + (i % 9)}T01:00:00Z`,
  CommitmentDiscountCategory: null,
  CommitmentDiscountId: null,
  CommitmentDiscountName: null,
  CommitmentDiscountQuantity: null,
  CommitmentDiscountStatus: null,
  CommitmentDiscountType: null,
  CommitmentDiscountUnit: null,
  ConsumedQuantity: 10,
  ConsumedUnit: 'Hours',
  ContractedCost: 4,
  ContractedUnitPrice: 0.4,
  EffectiveCost: 4,
  InvoiceId: 'inv-2025-03',
  InvoiceIssuerName: 'Cloud Inc',
  ListCost: 5,
  ListUnitPrice: 0.5,
  PricingCategory: 'Standard',
  PricingQuantity: 10,
  PricingUnit: 'Hours',
  ProviderName: 'Cloud Inc',
  PublisherName: 'Cloud Inc',
  RegionId: 'eu-1',
  RegionName: 'Europe 1',
  ResourceId: `vm-${i}`,
  ResourceName: `web-${i}`,
  ResourceType: 'Virtual Machine',
  ServiceCategory: 'Compute',
  ServiceName: 'Compute Engine',
  ServiceSubcategory: 'Virtual Machines',
  SkuId: 'sku-1',
  SkuMeter: 'Compute Hours',
  SkuPriceId: 'price-1',
  SubAccountId: 'proj-1',
  SubAccountName: 'Project 1',
  SubAccountType: 'Project',
});

export const tax = (i: number): Row => ({
  ...usage(i),
  ChargeCategory: 'Tax',
  ChargeDescription: 'VAT',
  ChargeFrequency: 'Recurring',
  BilledCost: 1,
  ContractedCost: 1,
  EffectiveCost: 1,
  ListCost: 1,
  ConsumedQuantity: null,
  ConsumedUnit: null,
  ContractedUnitPrice: null,
  ListUnitPrice: null,
  PricingCategory: null,
  PricingQuantity: null,
  PricingUnit: null,
  ResourceId: null,
  ResourceName: null,
  ResourceType: null,
  SkuId: null,
  SkuMeter: null,
  SkuPriceId: null,
});

export const committed = (i: number): Row => ({
  ...usage(i),
  BilledCost: 0,
  EffectiveCost: 3,
  ContractedCost: 4,
  PricingCategory: 'Committed',
  CommitmentDiscountCategory: 'Usage',
  CommitmentDiscountId: 'cd-1',
  CommitmentDiscountName: 'RI one',
  CommitmentDiscountQuantity: 10,
  CommitmentDiscountStatus: 'Used',
  CommitmentDiscountType: 'Reserved Instance',
  CommitmentDiscountUnit: 'Hours',
});

/** The valid file: usage rows, a commitment-covered row and a tax row (data rows 1–6 = lines 2–7). */
export const valid = (): Row[] => [usage(1), usage(2), usage(3), usage(4), committed(5), tax(6)];

export function csv(rows: Row[], drop: string[] = []): string {
  const header = Object.keys(rows[0] as Row).filter((h) => !drop.includes(h));
  return csvTable(
    header,
    rows.map((r) => header.map((h) => r[h] ?? null)),
  );
}

/**
 * FOCUS 1.3 rows: ServiceProviderName and HostProviderName instead of the deprecated ProviderName
 * and PublisherName (leave those out of the file with `csv(rows, DEPRECATED_IN_1_3)`), Tags, and
 * the allocation and ContractApplied columns (null unless the row is allocated or under contract).
 */
export const DEPRECATED_IN_1_3 = ['ProviderName', 'PublisherName'];

export const usage13 = (i: number): Row => ({
  ...usage(i),
  ServiceProviderName: 'Cloud Inc',
  HostProviderName: 'Cloud Inc',
  Tags: '{"team":"web"}',
  AllocatedMethodId: null,
  AllocatedMethodDetails: null,
  AllocatedResourceId: null,
  AllocatedResourceName: null,
  AllocatedTags: null,
  ContractApplied: null,
});

/** A tax row without a host provider (1.3 allows it for "Tax" and "Adjustment"). */
export const tax13 = (i: number): Row => ({ ...usage13(i), ...tax(i), HostProviderName: null, Tags: null });

/** A usage row split by the data generator: half of it allocated to pod `pod-<i>`. */
export const allocated = (
  i: number,
  details: unknown = { Elements: [{ AllocatedRatio: 0.5, UsageUnit: 'Hours', UsageQuantity: 5 }] },
): Row => ({
  ...usage13(i),
  AllocatedMethodId: 'split-by-cpu',
  AllocatedMethodDetails: typeof details === 'string' ? details : JSON.stringify(details),
  AllocatedResourceId: `pod-${i}`,
  AllocatedResourceName: `api pod ${i}`,
  AllocatedTags: '{"app":"api"}',
});

/** A usage row applied to contract commitments (ContractApplied's `Elements`). */
export const underContract = (
  i: number,
  elements: unknown = [{ ContractID: 'c-1', ContractCommitmentID: 'cc-1', ContractCommitmentAppliedCost: 4 }],
): Row => ({
  ...usage13(i),
  ContractApplied: typeof elements === 'string' ? elements : JSON.stringify({ Elements: elements }),
});

const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
let dir: Promise<string> | undefined;
let n = 0;

/** Ingests `rows` (as CSV, without the `drop` columns) for an organisation of its own: its report. */
export async function conformanceOf(rows: Row[], drop: string[] = []): Promise<ConformanceReport> {
  dir ??= mkdtemp(join(tmpdir(), 'conformance-'));
  const path = join(await dir, `file-${++n}.csv`);
  writeFileSync(path, csv(rows, drop));
  const result = await warehouse.ingestFile({ orgId: `org_conf_${run}_${n}`, path, sourceName: 'f.csv' });
  if (!result.conformance) throw new Error('no conformance report');
  return result.conformance;
}

/** The failed requirements: id → [violating rows, lines of the samples]. */
export function failures(report: ConformanceReport): Record<string, [number, number[]]> {
  return Object.fromEntries(
    report.requirements
      .filter((r) => r.status === 'fail')
      .map((r) => [r.id, [r.violations, (r.samples ?? []).map((s) => s.line)]]),
  );
}

export function status(report: ConformanceReport, id: string) {
  return report.requirements.find((r) => r.id === id)?.status;
}

/** The rows that use each applicable MAY requirement: id → rows. */
export function uses(report: ConformanceReport): Record<string, number> {
  return Object.fromEntries(
    report.requirements
      .filter((r) => r.keyword === 'MAY' && r.uses !== undefined)
      .map((r) => [r.id, r.uses as number]),
  );
}
