import { type FocusRow, type GeneratorOptions, generateFocusRows } from './generator';
import { writeRows } from './write-rows';

/**
 * The generated FOCUS rows of ./generator.ts written in a provider's native export format, for
 * tests (formats without a real sample: CUR 2.0, Google Cloud) and the ingestion benchmark (the
 * same rows in every format). One native line per FOCUS row, shaped as each provider writes it:
 *
 * - `cur1`: AWS CUR 1.0 slash headers, ISO timestamps with milliseconds, `resourceTags/user:…`
 *   columns; rows under a Savings Plan are `SavingsPlanCoveredUsage` (unblended = on-demand cost,
 *   effective = the discounted cost), credits are `Credit` lines.
 * - `cur2`: the same in CUR 2.0 snake_case, with net columns, `product` and `resource_tags` as JSON maps.
 * - `azure`: an EA actual-cost export: UTF-8 BOM, `M/D/YYYY` dates, tags as JSON without braces,
 *   billed in EUR.
 * - `gcp-csv` / `gcp-jsonl`: the BigQuery billing export; a discounted row has `cost` at list
 *   price and its discount as a nested credit; a credit row has cost 0 and one promotion credit.
 *   Timestamps are `YYYY-MM-DD HH:MM:SS UTC`; labels are `[{key, value}]`.
 * - `oci`: an OCI cost report: `2023-11-13T05:00Z` timestamps, `tags/<namespace>.<key>` columns.
 */
export type NativeKind = 'cur1' | 'cur2' | 'azure' | 'gcp-csv' | 'gcp-jsonl' | 'oci';

type Line = Record<string, string | null>;

const TAG_KEYS = [
  'environment',
  'env',
  'team',
  'application',
  'business_unit',
  'org',
  'cost-center',
  'ms:Department',
  'aks-managed-cluster-name',
];

const str = (v: string | number | null | undefined): string | null =>
  v === null || v === undefined || v === '' ? null : String(v);
const num = (v: string | number | null | undefined): number =>
  v === null || v === undefined || v === '' ? 0 : Number(v);

/** Tags of a generated row, keys exactly as the FOCUS row writes them (`" org"` stays `" org"`). */
function tagsOf(row: FocusRow): Record<string, string> {
  if (!row.Tags) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(JSON.parse(String(row.Tags)) as Record<string, string>))
    if (k) out[k] = v;
  return out;
}

const iso = (t: string | number | null) => (t ? `${String(t).replace(' ', 'T')}.000Z` : null);
const mdy = (t: string | number | null) => {
  if (!t) return null;
  const [y, m, d] = String(t).slice(0, 10).split('-').map(Number) as [number, number, number];
  return `${m}/${d}/${y}`;
};
const lastDay = (t: string | number | null) => {
  if (!t) return null;
  const d = new Date(`${String(t).slice(0, 10)}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return mdy(d.toISOString().slice(0, 10));
};
const bq = (t: string | number | null) => (t ? `${String(t).slice(0, 19)} UTC` : null);
const ociTime = (t: string | number | null) => (t ? `${String(t).slice(0, 16).replace(' ', 'T')}Z` : null);

function curType(r: FocusRow): string {
  if (r.ChargeCategory === 'Credit') return 'Credit';
  if (r.CommitmentDiscountType === 'Savings Plan') return 'SavingsPlanCoveredUsage';
  return 'Usage';
}

function cur(r: FocusRow, snake: boolean, tagKeys: string[]): Line {
  const type = curType(r);
  const covered = type === 'SavingsPlanCoveredUsage';
  const unblended = covered ? num(r.ListCost) : num(r.BilledCost);
  const tags = tagsOf(r);
  const common = {
    type,
    start: iso(r.ChargePeriodStart),
    end: iso(r.ChargePeriodEnd),
    periodStart: iso(r.BillingPeriodStart),
    periodEnd: iso(r.BillingPeriodEnd),
    payer: str(r.BillingAccountId),
    account: str(r.SubAccountId),
    productCode: str(r.x_ServiceCode) ?? str(r.ServiceName)?.replaceAll(' ', '') ?? null,
    productName: str(r.ServiceName),
    unblended: String(unblended),
    publicCost: type === 'Credit' ? '0' : String(num(r.ListCost)),
    publicRate: str(r.ListUnitPrice),
    amount: type === 'Credit' ? '0' : String(num(r.ConsumedQuantity)),
    unit: str(r.PricingUnit),
    description: str(r.ChargeDescription),
    region: str(r.RegionId),
    location: str(r.RegionName),
    az: str(r.AvailabilityZone),
    resource: type === 'Credit' ? null : str(r.ResourceId),
    sku: str(r.SkuId),
    spArn: covered
      ? `arn:aws:savingsplans::${r.BillingAccountId}:savingsplan/${r.CommitmentDiscountId}`
      : null,
    spEffective: covered ? String(num(r.BilledCost)) : null,
  };
  if (!snake) {
    const line: Line = {
      'identity/LineItemId': null,
      'bill/PayerAccountId': common.payer,
      'bill/BillingEntity': 'AWS',
      'bill/InvoicingEntity': 'Amazon Web Services, Inc.',
      'bill/BillingPeriodStartDate': common.periodStart,
      'bill/BillingPeriodEndDate': common.periodEnd,
      'lineItem/UsageAccountId': common.account,
      'lineItem/LineItemType': common.type,
      'lineItem/UsageStartDate': common.start,
      'lineItem/UsageEndDate': common.end,
      'lineItem/ProductCode': common.productCode,
      'lineItem/UsageAmount': common.amount,
      'lineItem/CurrencyCode': 'USD',
      'lineItem/UnblendedCost': common.unblended,
      'lineItem/LineItemDescription': common.description,
      'lineItem/ResourceId': common.resource,
      'lineItem/AvailabilityZone': common.az,
      'product/ProductName': common.productName,
      'product/regionCode': common.region,
      'product/location': common.location,
      'product/sku': common.sku,
      'pricing/publicOnDemandCost': common.publicCost,
      'pricing/publicOnDemandRate': common.publicRate,
      'pricing/unit': common.unit,
      'savingsPlan/SavingsPlanARN': common.spArn,
      'savingsPlan/SavingsPlanEffectiveCost': common.spEffective,
    };
    for (const k of tagKeys) line[`resourceTags/user:${k}`] = tags[k] ?? null;
    return line;
  }
  const userTags = Object.fromEntries(Object.entries(tags).map(([k, v]) => [`user_${k}`, v]));
  return {
    identity_line_item_id: null,
    bill_payer_account_id: common.payer,
    bill_payer_account_name: str(r.BillingAccountName),
    bill_billing_entity: 'AWS',
    bill_invoicing_entity: 'Amazon Web Services, Inc.',
    bill_billing_period_start_date: common.periodStart,
    bill_billing_period_end_date: common.periodEnd,
    line_item_usage_account_id: common.account,
    line_item_usage_account_name: str(r.SubAccountName),
    line_item_line_item_type: common.type,
    line_item_usage_start_date: common.start,
    line_item_usage_end_date: common.end,
    line_item_product_code: common.productCode,
    line_item_usage_amount: common.amount,
    line_item_currency_code: 'USD',
    line_item_unblended_cost: common.unblended,
    line_item_net_unblended_cost: common.unblended,
    line_item_line_item_description: common.description,
    line_item_resource_id: common.resource,
    line_item_availability_zone: common.az,
    product: JSON.stringify({ product_name: common.productName, region: common.region }),
    product_region_code: common.region,
    product_location: common.location,
    product_sku: common.sku,
    pricing_public_on_demand_cost: common.publicCost,
    pricing_public_on_demand_rate: common.publicRate,
    pricing_unit: common.unit,
    savings_plan_savings_plan_a_r_n: common.spArn,
    savings_plan_savings_plan_effective_cost: common.spEffective,
    savings_plan_net_savings_plan_effective_cost: common.spEffective,
    resource_tags: Object.keys(userTags).length ? JSON.stringify(userTags) : null,
  };
}

function azure(r: FocusRow): Line {
  const tags = tagsOf(r);
  const credit = r.ChargeCategory === 'Credit';
  const quantity = num(r.ConsumedQuantity);
  return {
    BillingAccountId: str(r.BillingAccountId),
    BillingAccountName: str(r.BillingAccountName),
    BillingPeriodStartDate: mdy(r.BillingPeriodStart),
    BillingPeriodEndDate: lastDay(r.BillingPeriodEnd),
    SubscriptionId: str(r.SubAccountId),
    SubscriptionName: str(r.SubAccountName),
    Date: mdy(r.ChargePeriodStart),
    ProductName: str(r.ChargeDescription),
    MeterCategory: str(r.ServiceName),
    MeterRegion: str(r.RegionName),
    ResourceLocation: str(r.RegionId),
    UnitOfMeasure: str(r.PricingUnit),
    Quantity: String(quantity),
    EffectivePrice: str(r.ContractedUnitPrice),
    CostInBillingCurrency: String(num(r.BilledCost)),
    UnitPrice: str(r.ContractedUnitPrice),
    PayGPrice: str(r.ListUnitPrice),
    ConsumedService: 'Microsoft.Compute',
    ResourceId: str(r.ResourceId),
    ResourceName: str(r.ResourceName),
    Tags: Object.keys(tags).length ? JSON.stringify(tags).slice(1, -1) : null,
    ChargeType: credit ? 'Refund' : 'Usage',
    Frequency: credit ? 'OneTime' : 'UsageBased',
    PricingModel: r.CommitmentDiscountType === 'Savings Plan' ? 'SavingsPlan' : 'OnDemand',
    benefitId: r.CommitmentDiscountType === 'Savings Plan' ? str(r.CommitmentDiscountId) : null,
    BillingCurrencyCode: 'EUR',
  };
}

interface GcpRecord {
  billing_account_id: string | null;
  service: { id: string | null; description: string | null };
  sku: { id: string | null; description: string | null };
  usage_start_time: string | null;
  usage_end_time: string | null;
  project: { id: string | null; name: string | null };
  labels: { key: string; value: string }[];
  location: { location: string | null; region: string | null; zone: string | null };
  resource: { name: string | null; global_name: string | null };
  cost: number;
  currency: string;
  usage: {
    amount: number;
    unit: string | null;
    amount_in_pricing_units: number;
    pricing_unit: string | null;
  };
  credits: { name: string; amount: number; full_name: string; id: string; type: string }[];
  invoice: { month: string };
  cost_type: string;
  cost_at_list: number;
}

function gcpRecord(r: FocusRow): GcpRecord {
  const credit = r.ChargeCategory === 'Credit';
  const discounted = r.CommitmentDiscountType === 'Savings Plan';
  const billed = num(r.BilledCost);
  const list = num(r.ListCost);
  const credits: GcpRecord['credits'] = [];
  if (credit)
    credits.push({
      name: 'Free trial',
      amount: billed,
      full_name: 'Free trial credit',
      id: 'promo-1',
      type: 'PROMOTION',
    });
  else if (discounted)
    credits.push({
      name: 'Committed use discount',
      amount: Math.round((billed - list) * 1e10) / 1e10,
      full_name: 'Committed use discount: CPU',
      id: `cud-${r.CommitmentDiscountId}`,
      type: 'COMMITTED_USAGE_DISCOUNT',
    });
  const quantity = num(r.ConsumedQuantity);
  return {
    billing_account_id: str(r.BillingAccountId),
    service: { id: str(r.x_ServiceCode) ?? str(r.SkuId), description: str(r.ServiceName) },
    sku: { id: str(r.SkuId), description: str(r.ChargeDescription) },
    usage_start_time: bq(r.ChargePeriodStart),
    usage_end_time: bq(r.ChargePeriodEnd),
    project: { id: str(r.SubAccountId), name: str(r.SubAccountName) },
    labels: Object.entries(tagsOf(r)).map(([key, value]) => ({ key, value })),
    location: { location: str(r.RegionId), region: str(r.RegionId), zone: str(r.AvailabilityZone) },
    resource: { name: str(r.ResourceName), global_name: credit ? null : str(r.ResourceId) },
    cost: credit ? 0 : discounted ? list : billed,
    currency: 'USD',
    usage: {
      amount: quantity,
      unit: str(r.ConsumedUnit),
      amount_in_pricing_units: quantity,
      pricing_unit: str(r.PricingUnit),
    },
    credits,
    invoice: {
      month: String(r.BillingPeriodStart ?? r.ChargePeriodStart)
        .slice(0, 7)
        .replace('-', ''),
    },
    cost_type: 'regular',
    cost_at_list: credit ? 0 : list,
  };
}

/** The CSV form: nested records flattened to dotted columns, repeated ones as JSON text. */
function gcpCsv(r: FocusRow): Line {
  const rec = gcpRecord(r);
  const line: Line = {};
  for (const [k, v] of Object.entries(rec)) {
    if (Array.isArray(v)) line[k] = JSON.stringify(v);
    else if (v && typeof v === 'object')
      for (const [ik, iv] of Object.entries(v)) line[`${k}.${ik}`] = str(iv as string | number | null);
    else line[k] = str(v as string | number | null);
  }
  return line;
}

function oci(r: FocusRow, tagKeys: string[]): Line {
  const tags = tagsOf(r);
  const line: Line = {
    'lineItem/referenceNo': null,
    'lineItem/tenantId': str(r.BillingAccountId),
    'lineItem/intervalUsageStart': ociTime(r.ChargePeriodStart),
    'lineItem/intervalUsageEnd': ociTime(r.ChargePeriodEnd),
    'product/service': str(r.ServiceName)?.toUpperCase() ?? null,
    'product/compartmentId': str(r.SubAccountId),
    'product/compartmentName': str(r.SubAccountName),
    'product/region': str(r.RegionId),
    'product/resourceId': str(r.ResourceId),
    'usage/billedQuantity': String(num(r.ConsumedQuantity)),
    'cost/productSku': str(r.SkuId),
    'product/Description': str(r.ChargeDescription),
    'cost/unitPrice': str(r.ContractedUnitPrice),
    'cost/myCost': String(num(r.BilledCost)),
    'cost/currencyCode': 'USD',
    'cost/billingUnitReadable': str(r.PricingUnit),
    'cost/skuUnitDescription': str(r.ConsumedUnit),
    'lineItem/isCorrection': 'false',
  };
  for (const k of tagKeys) line[`tags/Operations.${k}`] = tags[k] ?? null;
  return line;
}

function cell(v: string | null): string {
  if (v === null) return '';
  return /[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** Writes `opts`' generated rows to `path` in `kind`'s format; returns the number of data lines. */
export async function writeNativeExport(
  path: string,
  kind: NativeKind,
  opts: GeneratorOptions,
): Promise<number> {
  const tagKeys = [...TAG_KEYS, ...Object.keys(opts.extraTags ?? {})];
  const toLine: (r: FocusRow) => Line =
    kind === 'cur1'
      ? (r) => cur(r, false, tagKeys)
      : kind === 'cur2'
        ? (r) => cur(r, true, tagKeys)
        : kind === 'azure'
          ? azure
          : kind === 'oci'
            ? (r) => oci(r, tagKeys)
            : gcpCsv;
  let header: string[] | undefined;
  return writeRows(path, kind === 'azure' ? '\ufeff' : '', generateFocusRows(opts), (row) => {
    if (kind === 'gcp-jsonl') return `${JSON.stringify(gcpRecord(row))}\n`;
    const line = toLine(row);
    // The header: the first line's columns (every line of a kind has the same).
    const first = !header;
    header ??= Object.keys(line);
    const head = first ? `${header.map(cell).join(',')}\n` : '';
    return `${head}${header.map((h) => cell(line[h] ?? null)).join(',')}\n`;
  });
}
