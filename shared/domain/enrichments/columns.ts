/**
 * The billing columns an enrichment may reference: every column of FOCUS 1.0, 1.1 and 1.2
 * (taken from `focus_spec_columns_v1.0-1.2.csv`, the FOCUS specification's column list), with the
 * specification's data type. Provider `x_…` columns and published labels are not included: they
 * differ per organisation and per export, while a stored enrichment must stay valid.
 */
export type FocusDataType = 'string' | 'decimal' | 'datetime' | 'json';

export const FOCUS_COLUMNS = {
  AvailabilityZone: 'string', // FOCUS 1.0+
  BilledCost: 'decimal', // FOCUS 1.0+
  BillingAccountId: 'string', // FOCUS 1.0+
  BillingAccountName: 'string', // FOCUS 1.0+
  BillingAccountType: 'string', // FOCUS 1.2+
  BillingCurrency: 'string', // FOCUS 1.0+
  BillingPeriodEnd: 'datetime', // FOCUS 1.0+
  BillingPeriodStart: 'datetime', // FOCUS 1.0+
  CapacityReservationId: 'string', // FOCUS 1.1+
  CapacityReservationStatus: 'string', // FOCUS 1.1+
  ChargeCategory: 'string', // FOCUS 1.0+
  ChargeClass: 'string', // FOCUS 1.0+
  ChargeDescription: 'string', // FOCUS 1.0+
  ChargeFrequency: 'string', // FOCUS 1.0+
  ChargePeriodEnd: 'datetime', // FOCUS 1.0+
  ChargePeriodStart: 'datetime', // FOCUS 1.0+
  CommitmentDiscountCategory: 'string', // FOCUS 1.0+
  CommitmentDiscountId: 'string', // FOCUS 1.0+
  CommitmentDiscountName: 'string', // FOCUS 1.0+
  CommitmentDiscountQuantity: 'decimal', // FOCUS 1.1+
  CommitmentDiscountStatus: 'string', // FOCUS 1.0+
  CommitmentDiscountType: 'string', // FOCUS 1.0+
  CommitmentDiscountUnit: 'string', // FOCUS 1.1+
  ConsumedQuantity: 'decimal', // FOCUS 1.0+
  ConsumedUnit: 'string', // FOCUS 1.0+
  ContractedCost: 'decimal', // FOCUS 1.0+
  ContractedUnitPrice: 'decimal', // FOCUS 1.0+
  EffectiveCost: 'decimal', // FOCUS 1.0+
  InvoiceId: 'string', // FOCUS 1.2+
  InvoiceIssuerName: 'string', // FOCUS 1.0+
  ListCost: 'decimal', // FOCUS 1.0+
  ListUnitPrice: 'decimal', // FOCUS 1.0+
  PricingCategory: 'string', // FOCUS 1.0+
  PricingCurrency: 'string', // FOCUS 1.2+
  PricingCurrencyContractedUnitPrice: 'decimal', // FOCUS 1.2+
  PricingCurrencyEffectiveCost: 'decimal', // FOCUS 1.2+
  PricingCurrencyListUnitPrice: 'decimal', // FOCUS 1.2+
  PricingQuantity: 'decimal', // FOCUS 1.0+
  PricingUnit: 'string', // FOCUS 1.0+
  ProviderName: 'string', // FOCUS 1.0+
  PublisherName: 'string', // FOCUS 1.0+
  RegionId: 'string', // FOCUS 1.0+
  RegionName: 'string', // FOCUS 1.0+
  ResourceId: 'string', // FOCUS 1.0+
  ResourceName: 'string', // FOCUS 1.0+
  ResourceType: 'string', // FOCUS 1.0+
  ServiceCategory: 'string', // FOCUS 1.0+
  ServiceName: 'string', // FOCUS 1.0+
  ServiceSubcategory: 'string', // FOCUS 1.1+
  SkuId: 'string', // FOCUS 1.0+
  SkuMeter: 'string', // FOCUS 1.1+
  SkuPriceDetails: 'json', // FOCUS 1.1+
  SkuPriceId: 'string', // FOCUS 1.0+
  SubAccountId: 'string', // FOCUS 1.0+
  SubAccountName: 'string', // FOCUS 1.0+
  SubAccountType: 'string', // FOCUS 1.2+
  Tags: 'json', // FOCUS 1.0+
} as const satisfies Record<string, FocusDataType>;

export type FocusColumn = keyof typeof FOCUS_COLUMNS;

export function isFocusColumn(name: string): name is FocusColumn {
  return Object.hasOwn(FOCUS_COLUMNS, name);
}

/**
 * Columns that may be an enrichment's `keyField`: the String columns. An entry's `key` is compared
 * with the column's value as text; decimals, timestamps and JSON objects make poor lookup keys.
 */
export function isKeyColumn(name: string): boolean {
  return isFocusColumn(name) && FOCUS_COLUMNS[name] === 'string';
}

/** A FOCUS column whose name equals `name` ignoring case (warehouse identifiers are case-insensitive). */
export function focusColumnIgnoringCase(name: string): FocusColumn | undefined {
  const lower = name.toLowerCase();
  return (Object.keys(FOCUS_COLUMNS) as FocusColumn[]).find((c) => c.toLowerCase() === lower);
}
