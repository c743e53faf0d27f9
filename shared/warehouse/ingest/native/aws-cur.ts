import { quoteIdent } from '../../sql/quote';
import {
  type Columns,
  type Converted,
  correctionWhenEarlier,
  type Header,
  inList,
  isoInstant,
  type NativeFormat,
  num,
  select,
  tagColumns,
  termColumns,
  text,
} from './convert';
import { AWS_SERVICE_CATEGORIES, serviceCategory } from './service-category';

/**
 * AWS Cost and Usage Report: CUR 1.0 (`lineItem/UnblendedCost`, or `line_item_unblended_cost` in
 * its Athena/Parquet form) and CUR 2.0 / Data Exports (snake_case, `resource_tags` as a map).
 */

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

/** The CUR columns every part of the converter reads, each under both of its spellings. */
interface Cur {
  h: Header;
  /** A CUR column under its CUR 1.0 name and its snake_case name (CUR 2.0, Athena CUR 1.0). */
  c: (slash: string, snake: string) => string;
  type: string;
  unblended: string;
  hasNet: boolean;
  /** BilledCost: the net unblended cost where the file has it, else the unblended cost. */
  billed: string;
  riArn: string;
  /** A Savings Plan line, and an RI line (usage, the monthly fee, the one-time `Fee` of an upfront RI). */
  spType: string;
  riType: string;
}

function curOf(h: Header): Cur {
  const c = (slash: string, snake: string) => h.col(slash, snake);
  const type = c('lineItem/LineItemType', 'line_item_line_item_type');
  const unblended = c('lineItem/UnblendedCost', 'line_item_unblended_cost');
  const hasNet = h.has('lineItem/NetUnblendedCost', 'line_item_net_unblended_cost');
  const netUnblended = c('lineItem/NetUnblendedCost', 'line_item_net_unblended_cost');
  const riArn = c('reservation/ReservationARN', 'reservation_reservation_a_r_n');
  return {
    h,
    c,
    type,
    unblended,
    hasNet,
    billed: hasNet ? `coalesce(${netUnblended}, ${unblended})` : unblended,
    riArn,
    spType: `${type} IN (${inList(SP_TYPES)})`,
    riType: `(${type} IN (${inList(RI_TYPES)}) OR (${type} = 'Fee' AND ${riArn} IS NOT NULL))`,
  };
}

/** EffectiveCost: commitment purchases spread over the usage they cover; net figures when `net`. */
function amortised(cur: Cur, net: boolean): string {
  const { h, c, type, riArn } = cur;
  const pick = (gross: string, grossSnake: string, netName: string, netSnake: string) =>
    net && h.has(netName, netSnake)
      ? `coalesce(${c(netName, netSnake)}, ${c(gross, grossSnake)})`
      : c(gross, grossSnake);
  const base = net ? cur.billed : cur.unblended;
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
}

/**
 * Tags: `resourceTags/user:team` columns (CUR 1.0), `resource_tags_user_team` (Athena CUR 1.0) or
 * one `resource_tags` JSON map (CUR 2.0). User tags lose their `user:`/`user_` prefix.
 */
function curTags(h: Header): Columns {
  const tagPairs = [
    ...h
      .withPrefix('resourceTags/')
      .map((t) => ({ key: t.rest.replace(/^user:/, ''), col: quoteIdent(t.name) })),
    ...h
      .withPrefix('resource_tags_')
      .map((t) => ({ key: t.rest.replace(/^user_/, ''), col: quoteIdent(t.name) })),
  ];
  const tagMap = h.name('resource_tags');
  return tagMap
    ? { Tags: `regexp_replace(${quoteIdent(tagMap)}, '([{,]\\s*)"user_', '\\1"', 'g')` }
    : tagColumns(tagPairs);
}

/** The CommitmentDiscount… columns of Savings Plan and RI lines. */
function curCommitments(cur: Cur): Columns {
  const { c, type, spType, riType, riArn } = cur;
  const currency = c('lineItem/CurrencyCode', 'line_item_currency_code');
  const unit = c('pricing/unit', 'pricing_unit');
  const usageAmount = c('lineItem/UsageAmount', 'line_item_usage_amount');
  const spRateCost = c('savingsPlan/SavingsPlanEffectiveCost', 'savings_plan_savings_plan_effective_cost');
  // The part of a Savings Plan's commitment left unused in the fee line's period, and an RI fee's unused hours and cost.
  const spUnused = `(${num(c('savingsPlan/TotalCommitmentToDate', 'savings_plan_total_commitment_to_date'))} - ${num(c('savingsPlan/UsedCommitment', 'savings_plan_used_commitment'))})`;
  const riUnusedQty = num(c('reservation/UnusedQuantity', 'reservation_unused_quantity'));
  const riUnusedCost = `(coalesce(${num(c('reservation/UnusedAmortizedUpfrontFeeForBillingPeriod', 'reservation_unused_amortized_upfront_fee_for_billing_period'))}, 0) + coalesce(${num(c('reservation/UnusedRecurringFee', 'reservation_unused_recurring_fee'))}, 0))`;
  const spFeeUnused = `${type} = 'SavingsPlanRecurringFee' AND ${spUnused} > 0`;
  const riFeeUnused = `${type} = 'RIFee' AND (${riUnusedQty} > 0 OR ${riUnusedCost} > 0)`;
  const spArn = c('savingsPlan/SavingsPlanARN', 'savings_plan_savings_plan_a_r_n');
  return {
    CommitmentDiscountId: `CASE WHEN ${spType} THEN ${spArn} WHEN ${riType} THEN ${riArn} END`,
    // CUR names no commitment: its name is the last part of its ARN (`savingsplan/<id>`, `reserved-instances/<id>`).
    CommitmentDiscountName: `regexp_extract(CASE WHEN ${spType} THEN ${spArn} WHEN ${riType} THEN ${riArn} END, '[^/:]+$')`,
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
  };
}

/** ChargeCategory, ChargeFrequency and PricingCategory from the line item type. */
function curCharge(cur: Cur): Columns {
  const { c, type } = cur;
  const isUsage = `${type} IN (${inList(USAGE_TYPES)})`;
  return {
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
    PricingCategory: `CASE
      WHEN ${type} IN ('DiscountedUsage', 'SavingsPlanCoveredUsage') THEN 'Committed'
      WHEN ${type} = 'Usage' AND ${c('lineItem/UsageType', 'line_item_usage_type')} LIKE '%SpotUsage%' THEN 'Dynamic'
      WHEN ${type} = 'Usage' THEN 'Standard' END`,
  };
}

function awsCur(h: Header, from: string): Converted {
  const cur = curOf(h);
  const { c, type, unblended, billed, hasNet } = cur;
  const productJson = h.has('product') ? h.col('product') : undefined;
  const productName = h.has('product/ProductName', 'product_product_name')
    ? c('product/ProductName', 'product_product_name')
    : productJson
      ? `TRY(json_extract_string(${productJson}, '$.product_name'))`
      : 'NULL::VARCHAR';
  const productCode = c('lineItem/ProductCode', 'line_item_product_code');
  const isUsage = `${type} IN (${inList(USAGE_TYPES)})`;
  const usageAmount = c('lineItem/UsageAmount', 'line_item_usage_amount');
  const unit = c('pricing/unit', 'pricing_unit');
  const columns: Columns = {
    ProviderName: `'AWS'`,
    BilledCost: billed,
    EffectiveCost: amortised(cur, hasNet),
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
    BillingCurrency: c('lineItem/CurrencyCode', 'line_item_currency_code'),
    // FOCUS: PricingCurrency MUST NOT be null; CUR leaves it blank on lines with no price (taxes,
    // fees), which are priced in the billing currency.
    PricingCurrency: `coalesce(${c('pricing/currency', 'pricing_currency')}, ${c('lineItem/CurrencyCode', 'line_item_currency_code')})`,
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
    ...curCharge(cur),
    ChargeClass: correctionWhenEarlier(
      isoInstant(c('lineItem/UsageStartDate', 'line_item_usage_start_date')),
      isoInstant(c('bill/BillingPeriodStartDate', 'bill_billing_period_start_date')),
    ),
    ChargeDescription: c('lineItem/LineItemDescription', 'line_item_line_item_description'),
    ...curCommitments(cur),
    ServiceCategory: serviceCategory(AWS_SERVICE_CATEGORIES, productCode, productName),
    ServiceName: `coalesce(${productName}, ${productCode})`,
    RegionId: c('product/regionCode', 'product_region_code'),
    // FOCUS: RegionName MUST be null when RegionId is (CUR names a location "Any" or a global
    // edge location for lines with no region code).
    RegionName: `CASE WHEN ${c('product/regionCode', 'product_region_code')} IS NOT NULL THEN ${c('product/location', 'product_location')} END`,
    AvailabilityZone: c('lineItem/AvailabilityZone', 'line_item_availability_zone'),
    ResourceId: c('lineItem/ResourceId', 'line_item_resource_id'),
    SkuId: c('product/sku', 'product_sku'),
    ConsumedQuantity: `CASE WHEN ${isUsage} THEN ${usageAmount} END`,
    ConsumedUnit: `CASE WHEN ${isUsage} THEN ${unit} END`,
    PricingQuantity: usageAmount,
    PricingUnit: unit,
    ...curTags(h),
    // The gross figures where BilledCost/EffectiveCost are net; otherwise the metrics fall back to those.
    ...(hasNet ? { x_unblended_cost: unblended, x_amortized_cost: amortised(cur, false) } : {}),
    x_LineItemType: type,
    ...awsCommitmentTerms(h, cur.spType, cur.riType),
    x_ServiceCode: productCode,
    x_UsageType: c('lineItem/UsageType', 'line_item_usage_type'),
    x_Operation: c('lineItem/Operation', 'line_item_operation'),
  };
  return select(columns, from);
}

/** CUR 1.0 and CUR 2.0 share one converter: it reads each column under both spellings. */
export const AWS_CUR_1: NativeFormat = {
  id: 'aws-cur-1',
  label: 'AWS Cost and Usage Report (CUR 1.0)',
  signature: [['lineItem/UnblendedCost'], ['lineItem/LineItemType'], ['lineItem/UsageStartDate']],
  convert: awsCur,
};

export const AWS_CUR_2: NativeFormat = {
  id: 'aws-cur-2',
  label: 'AWS CUR 2.0 / Data Exports',
  signature: [['line_item_unblended_cost'], ['line_item_line_item_type'], ['line_item_usage_start_date']],
  convert: awsCur,
};
