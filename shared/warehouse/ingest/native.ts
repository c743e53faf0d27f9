import type { FocusColumn, ProviderCostColumn } from '../focus-columns';
import { quoteIdent, quoteLiteral } from '../sql/quote';

/**
 * Provider-native billing exports converted to FOCUS columns in DuckDB SQL, the way the FinOps
 * Foundation's FOCUS converters map them (our own SQL, not their code). Each format is recognised
 * from its header; its converter is a SELECT over the raw file (every cell text, empty cells NULL)
 * that yields FOCUS-named text columns, which the FOCUS reader (./normalise.ts) then types and
 * checks exactly as it does a FOCUS export. BilledCost is always the provider's own cost column,
 * passed through as written, so totals per day and per service are the provider's.
 */

/**
 * A file's header: columns looked up by name ignoring case, BOM and surrounding spaces. `names`
 * are the reader's column names; `labels` (same length, when known) the file's own spellings:
 * DuckDB renames a column whose name differs from an earlier one only in case (`user:Name`,
 * `user:name` → `user:name_1`), and AWS tag keys are case-sensitive, so tag keys come from labels.
 */
export class Header {
  private readonly byKey = new Map<string, string>();
  private readonly labelOf = new Map<string, string>();

  constructor(
    readonly names: readonly string[],
    labels?: readonly string[],
  ) {
    const usable = labels && labels.length === names.length ? labels : names;
    names.forEach((name, i) => {
      this.labelOf.set(name, usable[i]!);
      const key = Header.key(usable[i]!);
      if (!this.byKey.has(key)) this.byKey.set(key, name);
    });
  }

  private static key(name: string): string {
    return name
      .replace(/^\ufeff/, '')
      .trim()
      .toLowerCase();
  }

  /** The header's spelling of the first candidate it has. */
  name(...candidates: string[]): string | undefined {
    for (const c of candidates) {
      const found = this.byKey.get(Header.key(c));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  has(...candidates: string[]): boolean {
    return this.name(...candidates) !== undefined;
  }

  /** The first candidate column as a quoted identifier, or a typed NULL when the file has none. */
  col(...candidates: string[]): string {
    const found = this.name(...candidates);
    return found === undefined ? 'NULL::VARCHAR' : quoteIdent(found);
  }

  /**
   * Columns whose name starts with `prefix` (ignoring case), with the rest of the name exactly as
   * the file spells it (a tag key keeps its spaces and case: `tags/ns. team` → `ns. team`).
   */
  withPrefix(prefix: string): { name: string; rest: string }[] {
    const p = prefix.toLowerCase();
    return this.names
      .map((name) => ({ name, label: this.labelOf.get(name) ?? name }))
      .filter(({ label }) => Header.key(label).startsWith(p) && Header.key(label).length > p.length)
      .map(({ name, label }) => ({
        name,
        rest: label
          .replace(/^\ufeff/, '')
          .trimStart()
          .slice(prefix.length),
      }));
  }
}

/** What a converter yields: FOCUS (and provider `x_`) column → SQL text expression. */
type Columns = Partial<Record<FocusColumn | ProviderCostColumn | typeof TAG_ENTRIES, string>> &
  Record<`x_${string}`, string>;

/**
 * The column a converter may give instead of `Tags`: the tags as a list of `{key, value}` structs,
 * which the reader takes as they are (no JSON text to write and parse again).
 */
export const TAG_ENTRIES = '__tag_entries';

export type NativeFormatId = 'aws-cur-1' | 'aws-cur-2' | 'azure' | 'gcp' | 'oci';

export interface NativeFormat {
  id: NativeFormatId;
  /** How messages and docs name it. */
  label: string;
  /**
   * The columns that recognise it, each a list of accepted spellings: a header holding one of each
   * is this format. A header holding most of them (not all) resembles it (`resemblance`).
   */
  signature: readonly (readonly string[])[];
  /** The converting SELECT over `from` (a table expression of the raw file) and its columns. */
  convert(h: Header, from: string): Converted;
}

const num = (c: string) => `TRY_CAST(${c} AS DOUBLE)`;
const text = (expr: string) => `CAST(${expr} AS VARCHAR)`;
const lit = quoteLiteral;
const inList = (values: readonly string[]) => values.map(lit).join(', ');

export interface Converted {
  sql: string;
  /** The names of its columns: FOCUS columns and provider `x_` columns. */
  columns: string[];
}

function select(columns: Columns, from: string): Converted {
  const list = Object.entries(columns).map(([name, expr]) => `${expr} AS ${quoteIdent(name)}`);
  return { sql: `SELECT ${list.join(',\n  ')} FROM ${from}`, columns: Object.keys(columns) };
}

/** Tag entries from one column per tag key (`resourceTags/user:team`, `tags/ns.key`): none when there are none. */
function tagColumns(pairs: { key: string; col: string }[]): Columns {
  if (!pairs.length) return {};
  const list = pairs.map((p) => `{'key': ${lit(p.key)}, 'value': ${p.col}}`).join(', ');
  return { [TAG_ENTRIES]: `list_filter([${list}], e -> e.value IS NOT NULL)` };
}

/** First day of the month of an ISO-like date-time text (`2023-11-13T05:00Z` → `2023-11-01`). */
const monthStart = (c: string) =>
  `CASE WHEN regexp_matches(${c}, '^\\d{4}-\\d{2}') THEN left(${c}, 7) || '-01' END`;

// ---------------------------------------------------------------------------------------------
// AWS Cost and Usage Report: CUR 1.0 (`lineItem/UnblendedCost`, or `line_item_unblended_cost` in
// its Athena/Parquet form) and CUR 2.0 / Data Exports (snake_case, `resource_tags` as a map).

const USAGE_TYPES = ['Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage', 'SavingsPlanNegation'];
const DISCOUNT_TYPES = [
  'BundledDiscount',
  'Discount',
  'EdpDiscount',
  'PrivateRateDiscount',
  'DistributorDiscount',
  'SppDiscount',
];
const SP_TYPES = [
  'SavingsPlanCoveredUsage',
  'SavingsPlanNegation',
  'SavingsPlanUpfrontFee',
  'SavingsPlanRecurringFee',
];
const RI_TYPES = ['DiscountedUsage', 'RIFee'];

/**
 * What an export says of a commitment's terms, as `x_Commitment…` columns on the lines that name
 * the commitment (kept in `x_columns`, so they are replaced with the upload that carries them):
 * term, start, end, purchase (payment) option, hourly commitment, region, instance family. Only
 * the columns the file has; a commitment's terms are those of its latest line.
 */
const COMMITMENT_TERMS = [
  'x_CommitmentTerm',
  'x_CommitmentStart',
  'x_CommitmentEnd',
  'x_CommitmentPurchaseOption',
  'x_CommitmentHourly',
  'x_CommitmentRegion',
  'x_CommitmentInstanceFamily',
] as const;
type CommitmentTerm = (typeof COMMITMENT_TERMS)[number];

function termColumns(when: string, pick: Record<CommitmentTerm, string | undefined>): Columns {
  const out: Columns = {};
  for (const name of COMMITMENT_TERMS) {
    const expr = pick[name];
    if (expr !== undefined) out[name] = `CASE WHEN ${when} THEN ${text(expr)} END`;
  }
  return out;
}

function awsCommitmentTerms(h: Header, spType: string, riType: string): Columns {
  const c = (slash: string, snake: string) => (h.has(slash, snake) ? h.col(slash, snake) : undefined);
  const either = (sp: string | undefined, ri: string | undefined) =>
    sp === undefined && ri === undefined
      ? undefined
      : `CASE WHEN ${spType} THEN ${sp ?? 'NULL'} WHEN ${riType} THEN ${ri ?? 'NULL'} END`;
  const hours = `date_diff('second', TRY_CAST(${h.col('lineItem/UsageStartDate', 'line_item_usage_start_date')} AS TIMESTAMP), TRY_CAST(${h.col('lineItem/UsageEndDate', 'line_item_usage_end_date')} AS TIMESTAMP)) / 3600.0`;
  const commitment = c('savingsPlan/TotalCommitmentToDate', 'savings_plan_total_commitment_to_date');
  const type = h.col('lineItem/LineItemType', 'line_item_line_item_type');
  return termColumns(`${spType} OR ${riType}`, {
    x_CommitmentTerm: either(
      c('savingsPlan/PurchaseTerm', 'savings_plan_purchase_term'),
      c('pricing/LeaseContractLength', 'pricing_lease_contract_length'),
    ),
    x_CommitmentStart: either(
      c('savingsPlan/StartTime', 'savings_plan_start_time'),
      c('reservation/StartTime', 'reservation_start_time'),
    ),
    x_CommitmentEnd: either(
      c('savingsPlan/EndTime', 'savings_plan_end_time'),
      c('reservation/EndTime', 'reservation_end_time'),
    ),
    x_CommitmentPurchaseOption: either(
      c('savingsPlan/PaymentOption', 'savings_plan_payment_option'),
      c('pricing/PurchaseOption', 'pricing_purchase_option'),
    ),
    // A Savings Plan fee line bills the commitment of its period (an hour): per hour of the line.
    x_CommitmentHourly:
      commitment === undefined
        ? undefined
        : `CASE WHEN ${type} = 'SavingsPlanRecurringFee' AND ${hours} > 0 THEN ${num(commitment)} / (${hours}) END`,
    x_CommitmentRegion: either(
      c('savingsPlan/Region', 'savings_plan_region'),
      c('product/regionCode', 'product_region_code'),
    ),
    x_CommitmentInstanceFamily: either(
      c('savingsPlan/InstanceTypeFamily', 'savings_plan_instance_type_family'),
      c('product/instanceFamily', 'product_instance_family'),
    ),
  });
}

function awsCur(h: Header, from: string): Converted {
  // Every CUR column under its CUR 1.0 name and its snake_case name (CUR 2.0, Athena CUR 1.0).
  const c = (slash: string, snake: string) => h.col(slash, snake);
  const type = c('lineItem/LineItemType', 'line_item_line_item_type');
  const unblended = c('lineItem/UnblendedCost', 'line_item_unblended_cost');
  const hasNet = h.has('lineItem/NetUnblendedCost', 'line_item_net_unblended_cost');
  const netUnblended = c('lineItem/NetUnblendedCost', 'line_item_net_unblended_cost');
  const billed = hasNet ? `coalesce(${netUnblended}, ${unblended})` : unblended;
  const riArn = c('reservation/ReservationARN', 'reservation_reservation_a_r_n');
  const amortised = (net: boolean) => {
    const pick = (gross: string, grossSnake: string, netName: string, netSnake: string) =>
      net && h.has(netName, netSnake)
        ? `coalesce(${c(netName, netSnake)}, ${c(gross, grossSnake)})`
        : c(gross, grossSnake);
    const base = net ? billed : unblended;
    const spEffective = pick(
      'savingsPlan/SavingsPlanEffectiveCost',
      'savings_plan_savings_plan_effective_cost',
      'savingsPlan/NetSavingsPlanEffectiveCost',
      'savings_plan_net_savings_plan_effective_cost',
    );
    const riEffective = pick(
      'reservation/EffectiveCost',
      'reservation_effective_cost',
      'reservation/NetEffectiveCost',
      'reservation_net_effective_cost',
    );
    const unusedUpfront = pick(
      'reservation/UnusedAmortizedUpfrontFeeForBillingPeriod',
      'reservation_unused_amortized_upfront_fee_for_billing_period',
      'reservation/NetUnusedAmortizedUpfrontFeeForBillingPeriod',
      'reservation_net_unused_amortized_upfront_fee_for_billing_period',
    );
    const unusedRecurring = pick(
      'reservation/UnusedRecurringFee',
      'reservation_unused_recurring_fee',
      'reservation/NetUnusedRecurringFee',
      'reservation_net_unused_recurring_fee',
    );
    const commitment = c('savingsPlan/TotalCommitmentToDate', 'savings_plan_total_commitment_to_date');
    const used = c('savingsPlan/UsedCommitment', 'savings_plan_used_commitment');
    return `CASE ${type}
      WHEN 'SavingsPlanCoveredUsage' THEN coalesce(${spEffective}, ${base})
      WHEN 'SavingsPlanNegation' THEN '0'
      WHEN 'SavingsPlanUpfrontFee' THEN '0'
      WHEN 'SavingsPlanRecurringFee' THEN ${text(`coalesce(${num(commitment)} - ${num(used)}, ${num(base)})`)}
      WHEN 'DiscountedUsage' THEN coalesce(${riEffective}, ${base})
      WHEN 'RIFee' THEN ${text(`coalesce(${num(unusedUpfront)}, 0) + coalesce(${num(unusedRecurring)}, 0)`)}
      WHEN 'Fee' THEN CASE WHEN ${riArn} IS NOT NULL THEN '0' ELSE ${base} END
      ELSE ${base} END`;
  };
  const productJson = h.has('product') ? h.col('product') : undefined;
  const productName = h.has('product/ProductName', 'product_product_name')
    ? c('product/ProductName', 'product_product_name')
    : productJson
      ? `TRY(json_extract_string(${productJson}, '$.product_name'))`
      : 'NULL::VARCHAR';
  const productCode = c('lineItem/ProductCode', 'line_item_product_code');
  // Tags: `resourceTags/user:team` columns (CUR 1.0), `resource_tags_user_team` (Athena CUR 1.0) or
  // one `resource_tags` JSON map (CUR 2.0). User tags lose their `user:`/`user_` prefix.
  const tagPairs = [
    ...h
      .withPrefix('resourceTags/')
      .map((t) => ({ key: t.rest.replace(/^user:/, ''), col: quoteIdent(t.name) })),
    ...h
      .withPrefix('resource_tags_')
      .map((t) => ({ key: t.rest.replace(/^user_/, ''), col: quoteIdent(t.name) })),
  ];
  const tagMap = h.name('resource_tags');
  const tags: Columns = tagMap
    ? { Tags: `regexp_replace(${quoteIdent(tagMap)}, '([{,]\\s*)"user_', '\\1"', 'g')` }
    : tagColumns(tagPairs);
  const spType = `${type} IN (${inList(SP_TYPES)})`;
  // RI lines: usage, the monthly fee, and the one-time `Fee` of an upfront RI (it names its reservation).
  const riType = `(${type} IN (${inList(RI_TYPES)}) OR (${type} = 'Fee' AND ${riArn} IS NOT NULL))`;
  const currency = c('lineItem/CurrencyCode', 'line_item_currency_code');
  const spRateCost = c('savingsPlan/SavingsPlanEffectiveCost', 'savings_plan_savings_plan_effective_cost');
  // The part of a Savings Plan's commitment left unused in the fee line's period, and an RI fee's unused hours and cost.
  const spUnused = `(${num(c('savingsPlan/TotalCommitmentToDate', 'savings_plan_total_commitment_to_date'))} - ${num(c('savingsPlan/UsedCommitment', 'savings_plan_used_commitment'))})`;
  const riUnusedQty = num(c('reservation/UnusedQuantity', 'reservation_unused_quantity'));
  const riUnusedCost = `(coalesce(${num(c('reservation/UnusedAmortizedUpfrontFeeForBillingPeriod', 'reservation_unused_amortized_upfront_fee_for_billing_period'))}, 0) + coalesce(${num(c('reservation/UnusedRecurringFee', 'reservation_unused_recurring_fee'))}, 0))`;
  const spFeeUnused = `${type} = 'SavingsPlanRecurringFee' AND ${spUnused} > 0`;
  const riFeeUnused = `${type} = 'RIFee' AND (${riUnusedQty} > 0 OR ${riUnusedCost} > 0)`;
  const isUsage = `${type} IN (${inList(USAGE_TYPES)})`;
  const usageAmount = c('lineItem/UsageAmount', 'line_item_usage_amount');
  const unit = c('pricing/unit', 'pricing_unit');
  const columns: Columns = {
    ProviderName: `'AWS'`,
    BilledCost: billed,
    EffectiveCost: amortised(hasNet),
    ListCost: c('pricing/publicOnDemandCost', 'pricing_public_on_demand_cost'),
    // The cost at the account's own rates without the commitment: covered usage is written at its
    // on-demand cost, RI usage at 0 (its on-demand equivalent is the public cost), the negation
    // and the fees are no usage at a rate.
    ContractedCost: `CASE ${type}
      WHEN 'SavingsPlanCoveredUsage' THEN ${unblended}
      WHEN 'DiscountedUsage' THEN ${c('pricing/publicOnDemandCost', 'pricing_public_on_demand_cost')}
      WHEN 'SavingsPlanNegation' THEN '0'
      ELSE ${billed} END`,
    ListUnitPrice: c('pricing/publicOnDemandRate', 'pricing_public_on_demand_rate'),
    BillingCurrency: currency,
    PricingCurrency: c('pricing/currency', 'pricing_currency'),
    ChargePeriodStart: c('lineItem/UsageStartDate', 'line_item_usage_start_date'),
    ChargePeriodEnd: c('lineItem/UsageEndDate', 'line_item_usage_end_date'),
    BillingPeriodStart: c('bill/BillingPeriodStartDate', 'bill_billing_period_start_date'),
    BillingPeriodEnd: c('bill/BillingPeriodEndDate', 'bill_billing_period_end_date'),
    BillingAccountId: c('bill/PayerAccountId', 'bill_payer_account_id'),
    BillingAccountName: c('bill/PayerAccountName', 'bill_payer_account_name'),
    SubAccountId: c('lineItem/UsageAccountId', 'line_item_usage_account_id'),
    SubAccountName: c('lineItem/UsageAccountName', 'line_item_usage_account_name'),
    InvoiceId: c('bill/InvoiceId', 'bill_invoice_id'),
    InvoiceIssuerName: c('bill/InvoicingEntity', 'bill_invoicing_entity'),
    PublisherName: c('bill/BillingEntity', 'bill_billing_entity'),
    ChargeCategory: `CASE
      WHEN ${isUsage} THEN 'Usage'
      WHEN ${type} = 'Tax' THEN 'Tax'
      WHEN ${type} = 'Credit' THEN 'Credit'
      WHEN ${type} IN (${inList(DISCOUNT_TYPES)}) THEN 'Credit'
      WHEN ${type} IN ('Fee', 'RIFee', 'SavingsPlanUpfrontFee', 'SavingsPlanRecurringFee') THEN 'Purchase'
      ELSE 'Adjustment' END`,
    ChargeFrequency: `CASE
      WHEN ${isUsage} THEN 'Usage-Based'
      WHEN ${type} IN ('RIFee', 'SavingsPlanRecurringFee') THEN 'Recurring'
      WHEN ${type} IN ('Fee', 'SavingsPlanUpfrontFee') THEN 'One-Time' END`,
    ChargeDescription: c('lineItem/LineItemDescription', 'line_item_line_item_description'),
    PricingCategory: `CASE
      WHEN ${type} IN ('DiscountedUsage', 'SavingsPlanCoveredUsage') THEN 'Committed'
      WHEN ${type} = 'Usage' AND ${c('lineItem/UsageType', 'line_item_usage_type')} LIKE '%SpotUsage%' THEN 'Dynamic'
      WHEN ${type} = 'Usage' THEN 'Standard' END`,
    CommitmentDiscountId: `CASE WHEN ${spType} THEN ${c('savingsPlan/SavingsPlanARN', 'savings_plan_savings_plan_a_r_n')} WHEN ${riType} THEN ${riArn} END`,
    // CUR names no commitment: its name is the last part of its ARN (`savingsplan/<id>`, `reserved-instances/<id>`).
    CommitmentDiscountName: `regexp_extract(CASE WHEN ${spType} THEN ${c('savingsPlan/SavingsPlanARN', 'savings_plan_savings_plan_a_r_n')} WHEN ${riType} THEN ${riArn} END, '[^/:]+$')`,
    CommitmentDiscountType: `CASE WHEN ${spType} THEN 'Savings Plan' WHEN ${riType} THEN 'Reservation' END`,
    CommitmentDiscountCategory: `CASE WHEN ${spType} THEN 'Spend' WHEN ${riType} THEN 'Usage' END`,
    // Used: the usage a commitment covered (and the negation that offsets it, a Usage line FOCUS
    // requires a status on). Unused: a fee line whose period left part of the commitment unused;
    // that part is the line's EffectiveCost (FOCUS allows a status on Purchase lines).
    CommitmentDiscountStatus: `CASE
      WHEN ${type} IN ('SavingsPlanCoveredUsage', 'SavingsPlanNegation', 'DiscountedUsage') THEN 'Used'
      WHEN ${spFeeUnused} OR ${riFeeUnused} THEN 'Unused' END`,
    // Spend-based: the commitment consumed or left unused, in the billing currency; usage-based:
    // the hours (pricing units) covered or left unused.
    CommitmentDiscountQuantity: `CASE
      WHEN ${type} = 'SavingsPlanCoveredUsage' THEN ${spRateCost}
      WHEN ${spFeeUnused} THEN ${text(spUnused)}
      WHEN ${type} = 'DiscountedUsage' THEN ${usageAmount}
      WHEN ${riFeeUnused} THEN ${text(riUnusedQty)} END`,
    CommitmentDiscountUnit: `CASE
      WHEN ${type} = 'SavingsPlanCoveredUsage' OR ${spFeeUnused} THEN ${currency}
      WHEN ${type} = 'DiscountedUsage' OR ${riFeeUnused} THEN ${unit} END`,
    ServiceName: `coalesce(${productName}, ${productCode})`,
    RegionId: c('product/regionCode', 'product_region_code'),
    RegionName: c('product/location', 'product_location'),
    AvailabilityZone: c('lineItem/AvailabilityZone', 'line_item_availability_zone'),
    ResourceId: c('lineItem/ResourceId', 'line_item_resource_id'),
    SkuId: c('product/sku', 'product_sku'),
    ConsumedQuantity: `CASE WHEN ${isUsage} THEN ${usageAmount} END`,
    ConsumedUnit: `CASE WHEN ${isUsage} THEN ${unit} END`,
    PricingQuantity: usageAmount,
    PricingUnit: unit,
    ...tags,
    // The gross figures where BilledCost/EffectiveCost are net; otherwise the metrics fall back to those.
    ...(hasNet ? { x_unblended_cost: unblended, x_amortized_cost: amortised(false) } : {}),
    x_LineItemType: type,
    ...awsCommitmentTerms(h, spType, riType),
    x_ServiceCode: productCode,
    x_UsageType: c('lineItem/UsageType', 'line_item_usage_type'),
    x_Operation: c('lineItem/Operation', 'line_item_operation'),
  };
  return select(columns, from);
}

// ---------------------------------------------------------------------------------------------
// Azure cost exports: EA (`CostInBillingCurrency`, `BillingCurrencyCode`, `M/D/YYYY`) and MCA
// (camelCase, `billingCurrency`), actual or amortised. Tags come as JSON with or without braces.

const AZ = {
  cost: ['CostInBillingCurrency', 'costInBillingCurrency', 'PreTaxCost', 'Cost'],
  date: ['Date', 'UsageDate', 'UsageDateTime'],
  currency: ['BillingCurrencyCode', 'BillingCurrency', 'Currency'],
  service: ['MeterCategory', 'ConsumedService'],
};

/**
 * US-style dates as Azure writes them (`9/2/2023`), and as a spreadsheet saves them again
 * (`9/2/2023 12:00:00 AM`, `09/02/2023 00:00:00`): DuckDB `strptime` formats, tried in turn.
 */
export const US_DATE_FORMATS = `['%m/%d/%Y', '%m/%d/%Y %I:%M:%S %p', '%m/%d/%Y %H:%M:%S', '%m/%d/%Y %H:%M']`;

/** An Azure date (`9/2/2023` or ISO) as a timestamp. */
const azureDay = (c: string) =>
  `coalesce(TRY_STRPTIME(${c}, ${US_DATE_FORMATS}), TRY_CAST(${c} AS TIMESTAMPTZ)::TIMESTAMP)`;
const nextDay = (c: string) => text(`CAST(${azureDay(c)} AS DATE) + 1`);

function azure(h: Header, from: string): Converted {
  const chargeType = h.col('ChargeType');
  const pricingModel = h.col('PricingModel');
  const cost = h.col(...AZ.cost);
  const quantity = h.col('Quantity');
  const commitment = `${pricingModel} IN ('Reservation', 'SavingsPlan')`;
  const unused = `${chargeType} IN ('UnusedReservation', 'UnusedSavingsPlan')`;
  const usageListCost = h.has('PayGCostInBillingCurrency', 'paygCostInBillingCurrency')
    ? h.col('PayGCostInBillingCurrency', 'paygCostInBillingCurrency')
    : text(`${num(h.col('PayGPrice', 'payGPrice'))} * ${num(quantity)}`);
  // An unused commitment is no usage at a list or agreed price: 0, so list − effective over a
  // commitment's lines is its savings net of what it left unused.
  const listCost = `CASE WHEN ${unused} THEN '0' ELSE ${usageListCost} END`;
  const contractedCost = `CASE WHEN ${unused} THEN '0' ELSE coalesce(${text(`${num(h.col('UnitPrice', 'unitPrice'))} * ${num(quantity)}`)}, ${cost}) END`;
  const columns: Columns = {
    ProviderName: `'Microsoft'`,
    BilledCost: cost,
    // A commitment purchase is spread over the usage it covers: it adds nothing to effective cost.
    EffectiveCost: `CASE WHEN ${chargeType} = 'Purchase' AND ${commitment} THEN '0' ELSE ${cost} END`,
    ListCost: listCost,
    ContractedCost: contractedCost,
    ListUnitPrice: h.col('PayGPrice', 'payGPrice'),
    ContractedUnitPrice: h.col('UnitPrice'),
    BillingCurrency: h.col(...AZ.currency),
    ChargePeriodStart: h.col(...AZ.date),
    ChargePeriodEnd: nextDay(h.col(...AZ.date)),
    BillingPeriodStart: h.col('BillingPeriodStartDate'),
    BillingPeriodEnd: nextDay(h.col('BillingPeriodEndDate')),
    BillingAccountId: h.col('BillingAccountId'),
    BillingAccountName: h.col('BillingAccountName'),
    SubAccountId: h.col('SubscriptionId', 'SubscriptionGuid'),
    SubAccountName: h.col('SubscriptionName'),
    InvoiceId: h.col('InvoiceId'),
    InvoiceIssuerName: `'Microsoft'`,
    PublisherName: `coalesce(${h.col('PublisherName')}, 'Microsoft')`,
    ChargeCategory: `CASE
      WHEN ${chargeType} IS NULL OR ${chargeType} IN ('Usage', 'UnusedReservation', 'UnusedSavingsPlan') THEN 'Usage'
      WHEN ${chargeType} = 'Purchase' THEN 'Purchase'
      WHEN ${chargeType} = 'Tax' THEN 'Tax'
      WHEN ${chargeType} = 'Credit' THEN 'Credit'
      ELSE 'Adjustment' END`,
    ChargeFrequency: `CASE ${h.col('Frequency')} WHEN 'UsageBased' THEN 'Usage-Based' WHEN 'Recurring' THEN 'Recurring' WHEN 'OneTime' THEN 'One-Time' END`,
    ChargeDescription: h.col('ProductName', 'MeterName'),
    PricingCategory: `CASE ${pricingModel} WHEN 'OnDemand' THEN 'Standard' WHEN 'Spot' THEN 'Dynamic' WHEN 'Reservation' THEN 'Committed' WHEN 'SavingsPlan' THEN 'Committed' END`,
    CommitmentDiscountId: `CASE WHEN ${commitment} THEN coalesce(${h.col('benefitId')}, ${h.col('ReservationId')}) END`,
    CommitmentDiscountName: `CASE WHEN ${commitment} THEN coalesce(${h.col('benefitName')}, ${h.col('ReservationName')}) END`,
    CommitmentDiscountType: `CASE ${pricingModel} WHEN 'Reservation' THEN 'Reservation' WHEN 'SavingsPlan' THEN 'Savings Plan' END`,
    CommitmentDiscountCategory: `CASE ${pricingModel} WHEN 'Reservation' THEN 'Usage' WHEN 'SavingsPlan' THEN 'Spend' END`,
    CommitmentDiscountStatus: `CASE WHEN ${commitment} AND ${chargeType} = 'Usage' THEN 'Used' WHEN ${unused} THEN 'Unused' END`,
    // A reservation counts the units it covered or left unused (`Quantity` of an `UnusedReservation`
    // line is its unused hours); a savings plan the spend it covered or left unused, in the billing currency.
    CommitmentDiscountQuantity: `CASE
      WHEN ${pricingModel} = 'Reservation' AND (${chargeType} = 'Usage' OR ${unused}) THEN ${quantity}
      WHEN ${pricingModel} = 'SavingsPlan' AND (${chargeType} = 'Usage' OR ${unused}) THEN ${cost} END`,
    CommitmentDiscountUnit: `CASE
      WHEN ${pricingModel} = 'Reservation' AND (${chargeType} = 'Usage' OR ${unused}) THEN ${h.col('UnitOfMeasure')}
      WHEN ${pricingModel} = 'SavingsPlan' AND (${chargeType} = 'Usage' OR ${unused}) THEN ${h.col(...AZ.currency)} END`,
    ServiceName: h.col(...AZ.service),
    RegionId: h.col('ResourceLocation'),
    RegionName: h.col('MeterRegion'),
    AvailabilityZone: h.col('AvailabilityZone'),
    ResourceId: h.col('ResourceId', 'InstanceName'),
    ResourceName: h.col('ResourceName'),
    SkuId: h.col('ProductId', 'MeterId'),
    ConsumedQuantity: quantity,
    ConsumedUnit: h.col('UnitOfMeasure'),
    PricingQuantity: quantity,
    PricingUnit: h.col('UnitOfMeasure'),
    Tags: h.col('Tags'),
    ...termColumns(commitment, {
      x_CommitmentTerm: h.has('Term') ? h.col('Term') : undefined,
      x_CommitmentStart: undefined,
      x_CommitmentEnd: undefined,
      x_CommitmentPurchaseOption: undefined,
      x_CommitmentHourly: undefined,
      x_CommitmentRegion: h.has('ResourceLocation') ? h.col('ResourceLocation') : undefined,
      x_CommitmentInstanceFamily: undefined,
    }),
    x_ResourceGroup: h.col('ResourceGroup', 'ResourceGroupName'),
    x_ConsumedService: h.col('ConsumedService'),
    x_MeterSubCategory: h.col('MeterSubCategory'),
  };
  return select(columns, from);
}

// ---------------------------------------------------------------------------------------------
// Google Cloud: the BigQuery billing export, as CSV (nested records flattened to `service.description`
// or `service_description`, repeated ones as JSON text) or as JSON lines. Each credit becomes a row
// of its own (ChargeCategory Credit), so the usage rows keep `cost` exactly.

/** The columns a GCP converter reads, by their dotted names (also accepted with `_`). */
export const GCP_FIELDS = [
  'billing_account_id',
  'service.id',
  'service.description',
  'sku.id',
  'sku.description',
  'usage_start_time',
  'usage_end_time',
  'project.id',
  'project.name',
  'location.location',
  'location.region',
  'location.zone',
  'resource.name',
  'resource.global_name',
  'cost',
  'currency',
  'usage.amount',
  'usage.unit',
  'usage.amount_in_pricing_units',
  'usage.pricing_unit',
  'credits',
  'labels',
  'invoice.month',
  'cost_type',
  'cost_at_list',
  'seller_name',
  'price.effective_price',
] as const;

/**
 * The JSON lines form read as the CSV form: one text column per field of `GCP_FIELDS`, read with
 * declared types (every leaf text, `credits` and `labels` kept as JSON) so each line is parsed once.
 */
export function gcpJsonLines(path: string, compression: 'gzip' | 'uncompressed'): string {
  const nested = new Map<string, string[]>();
  for (const f of GCP_FIELDS) {
    const [top, inner] = f.split('.') as [string, string | undefined];
    nested.set(top, [...(nested.get(top) ?? []), ...(inner ? [inner] : [])]);
  }
  const types = [...nested].map(([top, inner]) => {
    const type =
      top === 'credits' || top === 'labels'
        ? 'JSON'
        : inner.length
          ? `STRUCT(${inner.map((i) => `${quoteIdent(i)} VARCHAR`).join(', ')})`
          : 'VARCHAR';
    return `${quoteIdent(top)}: ${lit(type)}`;
  });
  const cols = GCP_FIELDS.map((f) => {
    const [top, inner] = f.split('.') as [string, string | undefined];
    const expr = inner ? `${quoteIdent(top)}.${quoteIdent(inner)}` : `CAST(${quoteIdent(top)} AS VARCHAR)`;
    return `${expr} AS ${quoteIdent(f)}`;
  });
  return `(SELECT ${cols.join(', ')} FROM read_json(${path}, format = 'newline_delimited', compression = '${compression}', columns = {${types.join(', ')}}))`;
}

const CREDIT_SCHEMA = `'[{"name":"VARCHAR","amount":"VARCHAR","full_name":"VARCHAR","id":"VARCHAR","type":"VARCHAR"}]'`;

function gcp(h: Header, from: string): Converted {
  const g = (field: string) => h.col(field, field.replaceAll('.', '_'));
  const cost = g('cost');
  const credits = g('credits');
  const labels = g('labels');
  // One line per charge and one per credit; a credits cell that is not a JSON list becomes a line
  // whose cost is that text, which the reader then refuses naming the row.
  const lines = `list_concat(
      [{'credit': false, 'amount': ${cost}, 'name': NULL::VARCHAR, 'type': NULL::VARCHAR}],
      CASE WHEN ${credits} IS NULL THEN [] ELSE coalesce(
        list_transform(TRY(from_json(${credits}, ${CREDIT_SCHEMA})),
          e -> {'credit': true, 'amount': e.amount, 'name': coalesce(e.full_name, e.name), 'type': e.type}),
        [{'credit': true, 'amount': ${credits}, 'name': NULL::VARCHAR, 'type': NULL::VARCHAR}]) END)`;
  // Labels: the export's `[{key, value}]` list, or a JSON object; anything else carries no tags.
  const labelEntries = `CASE WHEN ${labels} IS NOT NULL THEN coalesce(
      TRY(from_json(${labels}, '[{"key":"VARCHAR","value":"VARCHAR"}]')),
      TRY(map_entries(CAST(CAST(${labels} AS JSON) AS MAP(VARCHAR, VARCHAR))))) END`;
  const credit = '__l.credit';
  const costType = `lower(${g('cost_type')})`;
  // Committed use discounts: the fee a commitment bills (SKUs `Commitment v1: …` for resource-based,
  // `Commitment - dollar based v1: …` for spend-based) and the credits it gives covered usage. The
  // export names no commitment on either, so a commitment is the pool it applies to: its service,
  // kind and region (`<service id>/<resource|spend>/<region>`), the same on fee and credits.
  const sku = g('sku.description');
  const cudFee = `(NOT ${credit} AND ${sku} ILIKE 'Commitment%')`;
  const cudCredit = `(${credit} AND __l.type IN ('COMMITTED_USAGE_DISCOUNT', 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE'))`;
  const spendBased = `(CASE WHEN ${credit} THEN __l.type = 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE' ELSE ${sku} ILIKE '%dollar based%' END)`;
  const cud = `(${cudFee} OR ${cudCredit})`;
  const region = `coalesce(${g('location.region')}, ${g('location.location')}, 'global')`;
  const columns: Columns = {
    ProviderName: `'Google Cloud'`,
    BilledCost: '__l.amount',
    EffectiveCost: '__l.amount',
    ListCost: `CASE WHEN ${credit} THEN '0' ELSE ${g('cost_at_list')} END`,
    // The charge at the account's prices, before credits (credits are the discounts).
    ContractedCost: `CASE WHEN ${credit} THEN '0' ELSE ${cost} END`,
    ContractedUnitPrice: `CASE WHEN NOT ${credit} THEN ${g('price.effective_price')} END`,
    BillingCurrency: g('currency'),
    ChargePeriodStart: g('usage_start_time'),
    ChargePeriodEnd: g('usage_end_time'),
    BillingPeriodStart: `CASE WHEN regexp_matches(${g('invoice.month')}, '^\\d{6}$') THEN left(${g('invoice.month')}, 4) || '-' || right(${g('invoice.month')}, 2) || '-01' END`,
    BillingAccountId: g('billing_account_id'),
    SubAccountId: g('project.id'),
    SubAccountName: g('project.name'),
    InvoiceIssuerName: `'Google'`,
    PublisherName: `coalesce(${g('seller_name')}, 'Google')`,
    ChargeCategory: `CASE
      WHEN ${credit} THEN 'Credit'
      WHEN ${cudFee} AND (${costType} IS NULL OR ${costType} = 'regular') THEN 'Purchase'
      WHEN ${costType} IS NULL OR ${costType} = 'regular' THEN 'Usage'
      WHEN ${costType} = 'tax' THEN 'Tax'
      ELSE 'Adjustment' END`,
    ChargeFrequency: `CASE WHEN ${cudFee} THEN 'Recurring' WHEN NOT ${credit} AND (${costType} IS NULL OR ${costType} = 'regular') THEN 'Usage-Based' END`,
    CommitmentDiscountId: `CASE WHEN ${cud} THEN ${g('service.id')} || '/' || CASE WHEN ${spendBased} THEN 'spend' ELSE 'resource' END || '/' || ${region} END`,
    CommitmentDiscountName: `CASE WHEN ${cud} THEN ${g('service.description')} || CASE WHEN ${spendBased} THEN ' spend-based' ELSE ' resource-based' END || ' CUD, ' || ${region} END`,
    CommitmentDiscountType: `CASE WHEN ${cud} THEN 'Committed Use Discount' END`,
    CommitmentDiscountCategory: `CASE WHEN ${cud} THEN CASE WHEN ${spendBased} THEN 'Spend' ELSE 'Usage' END END`,
    // A CUD credit is the commitment used on the line it discounts; the fee line is the purchase.
    CommitmentDiscountStatus: `CASE WHEN ${cudCredit} THEN 'Used' END`,
    // Spend-based: the on-demand spend covered (the credit, made positive) or committed (the fee),
    // in the billing currency; resource-based: the units the fee commits to.
    CommitmentDiscountQuantity: `CASE
      WHEN ${cudCredit} AND ${spendBased} THEN ${text(`-${num('__l.amount')}`)}
      WHEN ${cudFee} AND ${spendBased} THEN ${cost}
      WHEN ${cudFee} THEN ${g('usage.amount_in_pricing_units')} END`,
    CommitmentDiscountUnit: `CASE
      WHEN (${cudCredit} OR ${cudFee}) AND ${spendBased} THEN ${g('currency')}
      WHEN ${cudFee} THEN ${g('usage.pricing_unit')} END`,
    ChargeDescription: `CASE WHEN ${credit} THEN __l.name ELSE ${g('sku.description')} END`,
    ServiceName: g('service.description'),
    RegionId: `coalesce(${g('location.region')}, ${g('location.location')})`,
    AvailabilityZone: g('location.zone'),
    ResourceId: `coalesce(${g('resource.global_name')}, ${g('resource.name')})`,
    ResourceName: g('resource.name'),
    SkuId: g('sku.id'),
    ConsumedQuantity: `CASE WHEN NOT ${credit} THEN ${g('usage.amount')} END`,
    ConsumedUnit: `CASE WHEN NOT ${credit} THEN ${g('usage.unit')} END`,
    PricingQuantity: `CASE WHEN NOT ${credit} THEN ${g('usage.amount_in_pricing_units')} END`,
    PricingUnit: `CASE WHEN NOT ${credit} THEN ${g('usage.pricing_unit')} END`,
    [TAG_ENTRIES]: labelEntries,
    x_ServiceId: g('service.id'),
    x_CostType: g('cost_type'),
    x_CreditType: '__l.type',
  };
  return select(columns, `(SELECT *, unnest(${lines}) AS __l FROM ${from})`);
}

// ---------------------------------------------------------------------------------------------
// Oracle Cloud Infrastructure cost reports (`lineItem/…`, `cost/myCost`, `tags/<namespace>.<key>`).

function oci(h: Header, from: string): Converted {
  const start = h.col('lineItem/intervalUsageStart');
  const correction = `lower(${h.col('lineItem/isCorrection')}) = 'true'`;
  const tags = tagColumns(h.withPrefix('tags/').map((t) => ({ key: t.rest, col: quoteIdent(t.name) })));
  const columns: Columns = {
    ProviderName: `'Oracle'`,
    BilledCost: h.col('cost/myCost'),
    EffectiveCost: h.col('cost/myCost'),
    ContractedUnitPrice: h.col('cost/unitPrice'),
    BillingCurrency: h.col('cost/currencyCode'),
    ChargePeriodStart: start,
    ChargePeriodEnd: h.col('lineItem/intervalUsageEnd'),
    BillingPeriodStart: monthStart(start),
    BillingAccountId: h.col('lineItem/tenantId'),
    SubAccountId: h.col('product/compartmentId'),
    SubAccountName: h.col('product/compartmentName'),
    InvoiceIssuerName: `'Oracle'`,
    PublisherName: `'Oracle'`,
    ChargeCategory: `'Usage'`,
    ChargeClass: `CASE WHEN ${correction} THEN 'Correction' END`,
    ChargeFrequency: `'Usage-Based'`,
    ChargeDescription: h.col('product/Description'),
    ServiceName: h.col('product/service'),
    RegionId: h.col('product/region'),
    AvailabilityZone: h.col('product/availabilityDomain'),
    ResourceId: h.col('product/resourceId'),
    SkuId: h.col('cost/productSku'),
    ConsumedQuantity: h.col('usage/billedQuantity'),
    ConsumedUnit: h.col('cost/skuUnitDescription'),
    PricingQuantity: h.col('usage/billedQuantity'),
    PricingUnit: h.col('cost/billingUnitReadable'),
    ...tags,
    x_SubscriptionId: h.col('cost/subscriptionId'),
    x_OverageFlag: h.col('cost/overageFlag'),
  };
  return select(columns, from);
}

export const NATIVE_FORMATS: readonly NativeFormat[] = [
  {
    id: 'aws-cur-1',
    label: 'AWS Cost and Usage Report (CUR 1.0)',
    signature: [['lineItem/UnblendedCost'], ['lineItem/LineItemType'], ['lineItem/UsageStartDate']],
    convert: awsCur,
  },
  {
    id: 'aws-cur-2',
    label: 'AWS CUR 2.0 / Data Exports',
    signature: [['line_item_unblended_cost'], ['line_item_line_item_type'], ['line_item_usage_start_date']],
    convert: awsCur,
  },
  {
    id: 'oci',
    label: 'OCI cost report',
    signature: [['cost/myCost'], ['lineItem/intervalUsageStart'], ['cost/currencyCode']],
    convert: oci,
  },
  {
    id: 'azure',
    label: 'Azure EA/MCA cost export',
    signature: [AZ.cost, AZ.date, AZ.currency, AZ.service],
    convert: azure,
  },
  {
    id: 'gcp',
    label: 'Google Cloud BigQuery billing export',
    signature: [['cost'], ['currency'], ['usage_start_time'], ['service.description', 'service_description']],
    convert: gcp,
  },
];

/** The native format a header belongs to, if any: the first whose signature columns it all has. */
export function nativeFormatOf(h: Header): NativeFormat | undefined {
  return NATIVE_FORMATS.find((f) => f.signature.every((names) => h.has(...names)));
}

/**
 * The native format a header that is none of them resembles most, with the signature columns it
 * lacks (each named by its first spelling): a header that has all but one or two of a format's
 * signature columns, and at least half of them. Undefined when none comes that close.
 */
export function resemblance(h: Header): { format: NativeFormat; missing: string[] } | undefined {
  let best: { format: NativeFormat; missing: string[]; present: number } | undefined;
  for (const format of NATIVE_FORMATS) {
    const missing = format.signature.filter((names) => !h.has(...names)).map((names) => names[0] as string);
    const present = format.signature.length - missing.length;
    if (!missing.length || missing.length > 2 || present * 2 < format.signature.length) continue;
    if (!best || present > best.present) best = { format, missing, present };
  }
  return best && { format: best.format, missing: best.missing };
}

/** The sentence that names what can be uploaded, for files that are none of it. */
export const ACCEPTED_FORMATS =
  'accepted are FOCUS 1.0 or later (CSV, gzipped CSV or Parquet), the AWS Cost and Usage Report (CUR 1.0 or CUR 2.0 / Data Exports), Azure EA or MCA cost exports (actual or amortised), the Google Cloud BigQuery billing export (CSV or JSON lines) and OCI cost reports';
