/**
 * The warehouse's billing schema: every FOCUS 1.0–1.2 column (from the specification's column
 * list, `focus_spec_columns_v1.0-1.2.csv`) with the type it is stored as, plus the columns we add.
 * DuckDB and the Athena/Glue table share this one list, so both adapters see the same table.
 */
export type StoredType = 'string' | 'number' | 'timestamp' | 'json' | 'tags';

export const FOCUS_COLUMN_TYPES = {
  AvailabilityZone: 'string',
  BilledCost: 'number',
  BillingAccountId: 'string',
  BillingAccountName: 'string',
  BillingAccountType: 'string',
  BillingCurrency: 'string',
  BillingPeriodEnd: 'timestamp',
  BillingPeriodStart: 'timestamp',
  CapacityReservationId: 'string',
  CapacityReservationStatus: 'string',
  ChargeCategory: 'string',
  ChargeClass: 'string',
  ChargeDescription: 'string',
  ChargeFrequency: 'string',
  ChargePeriodEnd: 'timestamp',
  ChargePeriodStart: 'timestamp',
  CommitmentDiscountCategory: 'string',
  CommitmentDiscountId: 'string',
  CommitmentDiscountName: 'string',
  CommitmentDiscountQuantity: 'number',
  CommitmentDiscountStatus: 'string',
  CommitmentDiscountType: 'string',
  CommitmentDiscountUnit: 'string',
  ConsumedQuantity: 'number',
  ConsumedUnit: 'string',
  ContractedCost: 'number',
  ContractedUnitPrice: 'number',
  EffectiveCost: 'number',
  InvoiceId: 'string',
  InvoiceIssuerName: 'string',
  ListCost: 'number',
  ListUnitPrice: 'number',
  PricingCategory: 'string',
  PricingCurrency: 'string',
  PricingCurrencyContractedUnitPrice: 'number',
  PricingCurrencyEffectiveCost: 'number',
  PricingCurrencyListUnitPrice: 'number',
  PricingQuantity: 'number',
  PricingUnit: 'string',
  ProviderName: 'string',
  PublisherName: 'string',
  RegionId: 'string',
  RegionName: 'string',
  ResourceId: 'string',
  ResourceName: 'string',
  ResourceType: 'string',
  ServiceCategory: 'string',
  ServiceName: 'string',
  ServiceSubcategory: 'string',
  SkuId: 'string',
  SkuMeter: 'string',
  SkuPriceDetails: 'json',
  SkuPriceId: 'string',
  SubAccountId: 'string',
  SubAccountName: 'string',
  SubAccountType: 'string',
  Tags: 'tags',
  ...{
    // FOCUS 1.3: the provider columns that replace ProviderName and PublisherName (deprecated), the
    // columns of data-generator-calculated split cost allocation, and ContractApplied. Stored after
    // the other billing columns (FOCUS_1_3_COLUMNS), so an existing table gains them at its end.
    ServiceProviderName: 'string',
    HostProviderName: 'string',
    AllocatedMethodId: 'string',
    AllocatedMethodDetails: 'json',
    AllocatedResourceId: 'string',
    AllocatedResourceName: 'string',
    AllocatedTags: 'json',
    ContractApplied: 'json',
  },
} as const satisfies Record<string, StoredType>;

/** The columns FOCUS 1.3 introduced in the Cost and Usage dataset: their presence makes a file a 1.3 export. */
export const FOCUS_1_3_COLUMNS = [
  'ServiceProviderName',
  'HostProviderName',
  'AllocatedMethodId',
  'AllocatedMethodDetails',
  'AllocatedResourceId',
  'AllocatedResourceName',
  'AllocatedTags',
  'ContractApplied',
] as const satisfies readonly (keyof typeof FOCUS_COLUMN_TYPES)[];

export type FocusColumn = keyof typeof FOCUS_COLUMN_TYPES;
export const FOCUS_COLUMNS = Object.keys(FOCUS_COLUMN_TYPES) as FocusColumn[];

export function isFocusColumn(name: string): name is FocusColumn {
  return Object.hasOwn(FOCUS_COLUMN_TYPES, name);
}

/**
 * FOCUS 1.3's Contract Commitment dataset: the terms of the contracts agreed between a provider
 * and a customer, uploaded on its own (docs/warehouse.md, "Contract commitments") and kept in a
 * table of its own with the organisation and the provenance of each row.
 */
export const CONTRACT_COMMITMENT_COLUMN_TYPES = {
  ContractCommitmentId: 'string',
  ContractId: 'string',
  ContractPeriodStart: 'timestamp',
  ContractPeriodEnd: 'timestamp',
  ContractCommitmentPeriodStart: 'timestamp',
  ContractCommitmentPeriodEnd: 'timestamp',
  ContractCommitmentDescription: 'string',
  ContractCommitmentType: 'string',
  ContractCommitmentCategory: 'string',
  ContractCommitmentUnit: 'string',
  ContractCommitmentQuantity: 'number',
  ContractCommitmentCost: 'number',
  BillingCurrency: 'string',
} as const satisfies Record<string, Exclude<StoredType, 'json' | 'tags'>>;

export type ContractCommitmentColumn = keyof typeof CONTRACT_COMMITMENT_COLUMN_TYPES;
export const CONTRACT_COMMITMENT_COLUMNS = Object.keys(
  CONTRACT_COMMITMENT_COLUMN_TYPES,
) as ContractCommitmentColumn[];
/** A column of either FOCUS dataset the service keeps (the conformance check reads both). */
export type DatasetColumn = FocusColumn | ContractCommitmentColumn;

/** The contract commitments table's columns, in order. */
export const CONTRACT_COMMITMENT_TABLE_COLUMNS: readonly { name: string; type: StoredType }[] = [
  { name: 'org_id', type: 'string' },
  ...CONTRACT_COMMITMENT_COLUMNS.map((name) => ({
    name,
    type: CONTRACT_COMMITMENT_COLUMN_TYPES[name] as StoredType,
  })),
  { name: 'source_file', type: 'string' },
  { name: 'ingested_at', type: 'timestamp' },
];

/** The FOCUS specification's name of each stored type (as messages to users say it). */
export const FOCUS_DATA_TYPE_NAMES: Record<StoredType, string> = {
  string: 'string',
  number: 'decimal',
  timestamp: 'datetime',
  json: 'json',
  tags: 'json',
};

/**
 * Columns a file must have to be ingested. FOCUS marks more columns mandatory, but real exports
 * omit some of them; these are the ones the service cannot work without. Every other FOCUS column
 * is stored as NULL when absent.
 */
export const REQUIRED_COLUMNS: readonly FocusColumn[] = [
  'BilledCost',
  'BillingCurrency',
  'ChargePeriodStart',
  'ProviderName',
  'ServiceName',
];

/**
 * Provider-specific cost columns we keep as typed numbers, recognised by name ignoring case and
 * underscores (`x_UnblendedCost`, `x_unblended_cost`). They back the AWS-flavoured metric ids.
 */
export const PROVIDER_COST_COLUMNS = {
  x_unblended_cost: 'unblendedcost',
  x_net_unblended_cost: 'netunblendedcost',
  x_amortized_cost: 'amortizedcost',
  x_net_amortized_cost: 'netamortizedcost',
} as const;
export type ProviderCostColumn = keyof typeof PROVIDER_COST_COLUMNS;

/** Columns we add: partition keys, the typed provider costs, other `x_` columns, provenance. */
export const EXTRA_COLUMNS = {
  org_id: 'string',
  billing_month: 'string',
  x_unblended_cost: 'number',
  x_net_unblended_cost: 'number',
  x_amortized_cost: 'number',
  x_net_amortized_cost: 'number',
  /** Every other `x_…` column of the file, as text, keyed by its header. */
  x_columns: 'tags',
  source_file: 'string',
  ingested_at: 'timestamp',
} as const satisfies Record<string, StoredType>;

/** Column order of the billing table (and of the Parquet files). */
export const BILLING_COLUMNS: readonly { name: string; type: StoredType }[] = [
  { name: 'org_id', type: 'string' },
  { name: 'billing_month', type: 'string' },
  ...FOCUS_COLUMNS.filter((name) => !(FOCUS_1_3_COLUMNS as readonly string[]).includes(name)).map((name) => ({
    name,
    type: FOCUS_COLUMN_TYPES[name] as StoredType,
  })),
  ...(Object.keys(PROVIDER_COST_COLUMNS) as ProviderCostColumn[]).map((name) => ({
    name,
    type: 'number' as StoredType,
  })),
  { name: 'x_columns', type: 'tags' },
  { name: 'source_file', type: 'string' },
  { name: 'ingested_at', type: 'timestamp' },
  ...FOCUS_1_3_COLUMNS.map((name) => ({ name, type: FOCUS_COLUMN_TYPES[name] as StoredType })),
];

/** Glue/Athena column types for the Parquet files (partition columns org_id and billing_month excluded). */
export function glueColumns(
  columns: readonly { name: string; type: StoredType }[] = BILLING_COLUMNS,
): { name: string; type: string }[] {
  const glue: Record<StoredType, string> = {
    string: 'string',
    number: 'double',
    timestamp: 'timestamp',
    json: 'string',
    tags: 'map<string,string>',
  };
  return columns
    .filter((c) => c.name !== 'org_id' && c.name !== 'billing_month')
    .map((c) => ({
      name: c.name.toLowerCase(),
      type: glue[c.type],
    }));
}

/** The FOCUS column whose name equals `name` ignoring case. */
export function focusColumnOf(name: string): FocusColumn | undefined {
  const lower = name.trim().toLowerCase();
  return FOCUS_COLUMNS.find((c) => c.toLowerCase() === lower);
}

/**
 * Canonical provider names. Exports spell providers many ways (`AWS`, `Amazon Web Services`,
 * `Microsoft`, `Azure`, `GCP`, `Oracle`, `OCI`…); ingestion stores one spelling per provider so
 * that grouping by provider does not split one cloud in two. Unknown names are kept as written.
 */
export const PROVIDER_ALIASES: Record<string, string> = {
  aws: 'AWS',
  'amazon web services': 'AWS',
  'amazon web services, inc.': 'AWS',
  amazon: 'AWS',
  microsoft: 'Microsoft',
  azure: 'Microsoft',
  'microsoft azure': 'Microsoft',
  'microsoft corporation': 'Microsoft',
  google: 'Google Cloud',
  gcp: 'Google Cloud',
  'google cloud': 'Google Cloud',
  'google cloud platform': 'Google Cloud',
  oracle: 'Oracle',
  oci: 'Oracle',
  'oracle cloud infrastructure': 'Oracle',
  'oracle cloud': 'Oracle',
};

/**
 * The eight cost metric ids of the spec and the column each sums. The AWS-flavoured ids use the
 * provider's `x_` column where the export has one and fall back to the nearest FOCUS column:
 * FOCUS BilledCost is the invoiced (net, unamortised) cost, EffectiveCost the amortised one.
 */
export const METRIC_COLUMNS = {
  cost: { column: 'BilledCost' },
  effective_cost: { column: 'EffectiveCost' },
  list_cost: { column: 'ListCost' },
  contracted_cost: { column: 'ContractedCost' },
  unblended_cost: { column: 'x_unblended_cost', fallback: 'BilledCost' },
  net_unblended_cost: { column: 'x_net_unblended_cost', fallback: 'BilledCost' },
  amortized_cost: { column: 'x_amortized_cost', fallback: 'EffectiveCost' },
  net_amortized_cost: { column: 'x_net_amortized_cost', fallback: 'EffectiveCost' },
} as const satisfies Record<string, { column: string; fallback?: string }>;
export type MetricId = keyof typeof METRIC_COLUMNS;

/**
 * Built-in dimensions: FOCUS columns exposed under short names. Queries also accept the FOCUS
 * column name itself (`ProviderName`) for the same dimension.
 */
export interface BuiltinDimension {
  name: string;
  column: FocusColumn;
  label: string;
  groupTitle: string;
}

export const BUILTIN_DIMENSIONS: readonly BuiltinDimension[] = (
  [
    ['provider', 'ProviderName', 'Provider', 'Provider'],
    ['service', 'ServiceName', 'Service', 'Service'],
    ['service_category', 'ServiceCategory', 'Service category', 'Service'],
    ['service_subcategory', 'ServiceSubcategory', 'Service subcategory', 'Service'],
    ['region', 'RegionId', 'Region', 'Location'],
    ['region_name', 'RegionName', 'Region name', 'Location'],
    ['availability_zone', 'AvailabilityZone', 'Availability zone', 'Location'],
    ['billing_account', 'BillingAccountId', 'Billing account', 'Account'],
    ['billing_account_name', 'BillingAccountName', 'Billing account name', 'Account'],
    ['sub_account', 'SubAccountId', 'Sub-account', 'Account'],
    ['sub_account_name', 'SubAccountName', 'Sub-account name', 'Account'],
    ['resource_type', 'ResourceType', 'Resource type', 'Resource'],
    ['resource_id', 'ResourceId', 'Resource', 'Resource'],
    ['charge_category', 'ChargeCategory', 'Charge category', 'Charge'],
    ['charge_class', 'ChargeClass', 'Charge class', 'Charge'],
    ['charge_frequency', 'ChargeFrequency', 'Charge frequency', 'Charge'],
    ['pricing_category', 'PricingCategory', 'Pricing category', 'Charge'],
    ['commitment_discount_type', 'CommitmentDiscountType', 'Commitment discount type', 'Charge'],
    ['billing_currency', 'BillingCurrency', 'Billing currency', 'Charge'],
    ['consumed_unit', 'ConsumedUnit', 'Consumed unit', 'Usage'],
    ['publisher', 'PublisherName', 'Publisher', 'Provider'],
    ['invoice_issuer', 'InvoiceIssuerName', 'Invoice issuer', 'Provider'],
  ] as const satisfies readonly (readonly [string, FocusColumn, string, string])[]
).map(([name, column, label, groupTitle]) => ({ name, column, label, groupTitle }));

/** Built-in dimensions whose value lists are not cached: one value per resource is no filter menu. */
export const HIGH_CARDINALITY_DIMENSIONS: ReadonlySet<string> = new Set(['resource_id']);

/** The built-in dimension a name refers to: its short name or its FOCUS column, ignoring case. */
export function builtinDimensionOf(name: string): BuiltinDimension | undefined {
  const lower = name.toLowerCase();
  return BUILTIN_DIMENSIONS.find((d) => d.name === lower || d.column.toLowerCase() === lower);
}

/** Names a label, virtual dimension or enrichment column may not take (case-insensitive). */
export function isReservedDimensionName(name: string): boolean {
  const lower = name.trim().toLowerCase();
  return (
    Boolean(builtinDimensionOf(lower)) ||
    Boolean(focusColumnOf(lower)) ||
    lower in EXTRA_COLUMNS ||
    lower.startsWith('tag:') ||
    lower.startsWith('x_')
  );
}
