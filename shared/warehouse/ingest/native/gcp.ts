import { quoteIdent } from '../../sql/quote';
import {
  type Columns,
  type Converted,
  correctionWhenEarlier,
  type Header,
  isoInstant,
  lit,
  monthAfter,
  type NativeFormat,
  num,
  select,
  TAG_ENTRIES,
  text,
} from './convert';
import { GCP_SERVICE_CATEGORIES, serviceCategory } from './service-category';

/**
 * Google Cloud: the BigQuery billing export, as CSV (nested records flattened to `service.description`
 * or `service_description`, repeated ones as JSON text) or as JSON lines. Each credit becomes a row
 * of its own (ChargeCategory Credit), so the usage rows keep `cost` exactly.
 */

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

/** A column of the export by its dotted name (`service.description`, also `service_description`). */
type Field = (field: string) => string;

/**
 * Committed use discounts: the fee a commitment bills (SKUs `Commitment v1: …` for resource-based,
 * `Commitment - dollar based v1: …` for spend-based) and the credits it gives covered usage.
 */
function gcpCud(g: Field) {
  const credit = '__l.credit';
  const sku = g('sku.description');
  const fee = `(NOT ${credit} AND ${sku} ILIKE 'Commitment%')`;
  const credited = `(${credit} AND __l.type IN ('COMMITTED_USAGE_DISCOUNT', 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE'))`;
  const spendBased = `(CASE WHEN ${credit} THEN __l.type = 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE' ELSE ${sku} ILIKE '%dollar based%' END)`;
  return { fee, credited, spendBased, any: `(${fee} OR ${credited})` };
}

/**
 * The CommitmentDiscount… columns. The export names no commitment on fee or credits, so a
 * commitment is the pool it applies to: its service, kind and region
 * (`<service id>/<resource|spend>/<region>`), the same on fee and credits.
 */
function gcpCommitments(g: Field, cud: ReturnType<typeof gcpCud>): Columns {
  const { fee: cudFee, credited: cudCredit, spendBased, any } = cud;
  const cost = g('cost');
  const region = `coalesce(${g('location.region')}, ${g('location.location')}, 'global')`;
  return {
    CommitmentDiscountId: `CASE WHEN ${any} THEN ${g('service.id')} || '/' || CASE WHEN ${spendBased} THEN 'spend' ELSE 'resource' END || '/' || ${region} END`,
    CommitmentDiscountName: `CASE WHEN ${any} THEN ${g('service.description')} || CASE WHEN ${spendBased} THEN ' spend-based' ELSE ' resource-based' END || ' CUD, ' || ${region} END`,
    CommitmentDiscountType: `CASE WHEN ${any} THEN 'Committed Use Discount' END`,
    CommitmentDiscountCategory: `CASE WHEN ${any} THEN CASE WHEN ${spendBased} THEN 'Spend' ELSE 'Usage' END END`,
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
  };
}

function gcp(h: Header, from: string): Converted {
  const g: Field = (field) => h.col(field, field.replaceAll('.', '_'));
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
  const cud = gcpCud(g);
  // The invoice month (`202501`) as the billing period's first day.
  const periodStart = `CASE WHEN regexp_matches(${g('invoice.month')}, '^\\d{6}$') THEN left(${g('invoice.month')}, 4) || '-' || right(${g('invoice.month')}, 2) || '-01' END`;
  const columns: Columns = {
    ProviderName: `'Google Cloud'`,
    BilledCost: '__l.amount',
    EffectiveCost: '__l.amount',
    ListCost: `CASE WHEN ${credit} THEN '0' ELSE ${g('cost_at_list')} END`,
    // The charge at the account's prices, before credits (credits are the discounts).
    ContractedCost: `CASE WHEN ${credit} THEN '0' ELSE ${cost} END`,
    // The detailed export's effective price; the standard export has none, and its cost is the
    // usage at the account's price before credits, so the price is cost per pricing unit.
    ContractedUnitPrice: `CASE WHEN NOT ${credit} THEN coalesce(${g('price.effective_price')}, ${text(`${num(cost)} / nullif(${num(g('usage.amount_in_pricing_units'))}, 0)`)}) END`,
    BillingCurrency: g('currency'),
    ChargePeriodStart: g('usage_start_time'),
    ChargePeriodEnd: g('usage_end_time'),
    BillingPeriodStart: periodStart,
    BillingPeriodEnd: monthAfter(periodStart),
    BillingAccountId: g('billing_account_id'),
    // The export names the billing account by its id only.
    BillingAccountName: 'NULL::VARCHAR',
    SubAccountId: g('project.id'),
    SubAccountName: g('project.name'),
    InvoiceIssuerName: `'Google'`,
    PublisherName: `coalesce(${g('seller_name')}, 'Google')`,
    ChargeCategory: `CASE
      WHEN ${credit} THEN 'Credit'
      WHEN ${cud.fee} AND (${costType} IS NULL OR ${costType} = 'regular') THEN 'Purchase'
      WHEN ${costType} IS NULL OR ${costType} = 'regular' THEN 'Usage'
      WHEN ${costType} = 'tax' THEN 'Tax'
      ELSE 'Adjustment' END`,
    ChargeClass: correctionWhenEarlier(isoInstant(g('usage_start_time')), isoInstant(periodStart)),
    ChargeFrequency: `CASE WHEN ${cud.fee} THEN 'Recurring' WHEN NOT ${credit} AND (${costType} IS NULL OR ${costType} = 'regular') THEN 'Usage-Based' END`,
    ...gcpCommitments(g, cud),
    ChargeDescription: `CASE WHEN ${credit} THEN __l.name ELSE ${g('sku.description')} END`,
    ServiceCategory: serviceCategory(GCP_SERVICE_CATEGORIES, g('service.description')),
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

export const GCP: NativeFormat = {
  id: 'gcp',
  label: 'Google Cloud BigQuery billing export',
  signature: [['cost'], ['currency'], ['usage_start_time'], ['service.description', 'service_description']],
  convert: gcp,
};
