import {
  type Columns,
  type Converted,
  correctionWhenEarlier,
  type Header,
  type NativeFormat,
  num,
  select,
  termColumns,
  text,
  US_DATE_FORMATS,
} from './convert';
import { AZURE_SERVICE_CATEGORIES, serviceCategory } from './service-category';

/**
 * Azure cost exports: EA (`CostInBillingCurrency`, `BillingCurrencyCode`, `M/D/YYYY`) and MCA
 * (camelCase, `billingCurrency`), actual or amortised. Tags come as JSON with or without braces.
 */

const AZ = {
  cost: ['CostInBillingCurrency', 'costInBillingCurrency', 'PreTaxCost', 'Cost'],
  date: ['Date', 'UsageDate', 'UsageDateTime'],
  currency: ['BillingCurrencyCode', 'BillingCurrency', 'Currency'],
  service: ['MeterCategory', 'ConsumedService'],
};

/** An Azure date (`9/2/2023` or ISO) as a timestamp. */
const azureDay = (c: string) =>
  `coalesce(TRY_STRPTIME(${c}, ${US_DATE_FORMATS}), TRY_CAST(${c} AS TIMESTAMPTZ)::TIMESTAMP)`;
const nextDay = (c: string) => text(`CAST(${azureDay(c)} AS DATE) + 1`);

/** The columns and conditions both halves of the converter read. */
function azureLine(h: Header) {
  const chargeType = h.col('ChargeType');
  const pricingModel = h.col('PricingModel');
  const cost = h.col(...AZ.cost);
  const quantity = h.col('Quantity');
  const commitment = `${pricingModel} IN ('Reservation', 'SavingsPlan')`;
  const unused = `${chargeType} IN ('UnusedReservation', 'UnusedSavingsPlan')`;
  return { chargeType, pricingModel, cost, quantity, commitment, unused };
}

/** The CommitmentDiscount… columns of reservation and savings plan lines, and their terms. */
function azureCommitments(h: Header): Columns {
  const { chargeType, pricingModel, cost, quantity, commitment, unused } = azureLine(h);
  return {
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
    ...termColumns(commitment, {
      x_CommitmentTerm: h.has('Term') ? h.col('Term') : undefined,
      x_CommitmentStart: undefined,
      x_CommitmentEnd: undefined,
      x_CommitmentPurchaseOption: undefined,
      x_CommitmentHourly: undefined,
      x_CommitmentRegion: h.has('ResourceLocation') ? h.col('ResourceLocation') : undefined,
      x_CommitmentInstanceFamily: undefined,
    }),
  };
}

function azure(h: Header, from: string): Converted {
  const { chargeType, pricingModel, cost, quantity, commitment, unused } = azureLine(h);
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
    ChargeClass: correctionWhenEarlier(
      azureDay(h.col(...AZ.date)),
      azureDay(h.col('BillingPeriodStartDate')),
    ),
    ChargeFrequency: `CASE ${h.col('Frequency')} WHEN 'UsageBased' THEN 'Usage-Based' WHEN 'Recurring' THEN 'Recurring' WHEN 'OneTime' THEN 'One-Time' END`,
    ChargeDescription: h.col('ProductName', 'MeterName'),
    PricingCategory: `CASE ${pricingModel} WHEN 'OnDemand' THEN 'Standard' WHEN 'Spot' THEN 'Dynamic' WHEN 'Reservation' THEN 'Committed' WHEN 'SavingsPlan' THEN 'Committed' END`,
    ...azureCommitments(h),
    ServiceCategory: serviceCategory(AZURE_SERVICE_CATEGORIES, h.col('MeterCategory')),
    ServiceName: h.col(...AZ.service),
    RegionId: h.col('ResourceLocation'),
    // FOCUS: RegionName is set exactly when RegionId is; an EA export's MeterRegion is often blank
    // where ResourceLocation (itself a region name) is not.
    RegionName: `CASE WHEN ${h.col('ResourceLocation')} IS NOT NULL THEN coalesce(${h.col('MeterRegion')}, ${h.col('ResourceLocation')}) END`,
    AvailabilityZone: h.col('AvailabilityZone'),
    ResourceId: h.col('ResourceId', 'InstanceName'),
    ResourceName: h.col('ResourceName'),
    SkuId: h.col('ProductId', 'MeterId'),
    ConsumedQuantity: quantity,
    ConsumedUnit: h.col('UnitOfMeasure'),
    PricingQuantity: quantity,
    PricingUnit: h.col('UnitOfMeasure'),
    Tags: h.col('Tags'),
    x_ResourceGroup: h.col('ResourceGroup', 'ResourceGroupName'),
    x_ConsumedService: h.col('ConsumedService'),
    x_MeterSubCategory: h.col('MeterSubCategory'),
  };
  return select(columns, from);
}

export const AZURE: NativeFormat = {
  id: 'azure',
  label: 'Azure EA/MCA cost export',
  signature: [AZ.cost, AZ.date, AZ.currency, AZ.service],
  convert: azure,
};
