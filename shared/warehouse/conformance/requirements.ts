import type { FocusColumn } from '../focus-columns';
import { quoteLiteral } from '../sql/quote';
import type { Keyword } from './report';

/**
 * The FOCUS 1.2 requirements checked on every upload, written from the FOCUS specification
 * (FinOps Open Cost and Usage Specification 1.2, © FinOps Foundation, CC BY 4.0,
 * https://focus.finops.org). The ids are those of the FinOps Foundation's requirements model
 * (focus_validator, model-1.2.json), used as a list of which requirements exist; where the model
 * and the specification disagree the check follows the specification (docs/focus-conformance.md).
 *
 * Each requirement reads a few FOCUS columns of the converted rows (the staged table of an
 * upload) and is one SQL predicate, true for a row that breaks it: the checker counts those rows
 * in one statement per requirement. A requirement on a column the file does not have is not
 * applicable (the presence requirements say whether it should have had it); one that belongs to
 * an optional feature the file does not use (no commitment discount, no capacity reservation)
 * is not applicable either. Type requirements are not listed: a value that is not of its column's
 * type refuses the upload before the check (BilledCost, the charge period) or is read as null.
 */
export type Feature = 'commitment' | 'capacity';

export interface Requirement {
  id: string;
  keyword: Keyword;
  /** The specification's sentence, on one line. */
  statement: string;
  /** The FOCUS columns the check reads: not applicable when the file lacks one of them. */
  columns: FocusColumn[];
  /** Presence requirements: checked on the file's header, not on rows. */
  presence?: true;
  /** The optional feature it belongs to: not applicable when no row uses it. */
  feature?: Feature;
  /** A row that breaks it (SQL over the staged table `t`, which `table` names for sub-queries). */
  violates?: (table: string) => string;
  /** A failure would make figures wrong: the upload is refused before the check (never a stored fail). */
  refuses?: true;
}

const q = (c: FocusColumn) => `"${c}"`;
const list = (values: readonly string[]) => values.map(quoteLiteral).join(', ');
const isNull = (c: FocusColumn) => `${q(c)} IS NULL`;
const notNull = (c: FocusColumn) => `${q(c)} IS NOT NULL`;
const notCorrection = `"ChargeClass" IS DISTINCT FROM 'Correction'`;
const usageOrPurchase = `"ChargeCategory" IN ('Usage', 'Purchase')`;

/**
 * The tolerance of `A × B = C` (docs/focus-conformance.md): exports round each figure on its own
 * (costs to cents or to a few decimals, unit prices to more), so a product matches a cost when it
 * differs by at most one hundredth of a currency unit or 0.01 % of the cost, whichever is larger.
 */
export const PRODUCT_TOLERANCE = { absolute: 0.01, relative: 0.0001 };

function productMismatch(a: FocusColumn, b: FocusColumn, c: FocusColumn): string {
  const { absolute, relative } = PRODUCT_TOLERANCE;
  return `${notNull(a)} AND ${notNull(b)} AND ${notCorrection} AND (${isNull(c)} OR abs(${q(a)} * ${q(b)} - ${q(c)}) > greatest(${absolute}, ${relative} * abs(${q(c)})))`;
}

// Allowed values, from the specification's tables.
export const CHARGE_CATEGORIES = ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'] as const;
export const CHARGE_FREQUENCIES = ['One-Time', 'Recurring', 'Usage-Based'] as const;
export const PRICING_CATEGORIES = ['Standard', 'Dynamic', 'Committed', 'Other'] as const;
export const COMMITMENT_DISCOUNT_CATEGORIES = ['Spend', 'Usage'] as const;
/** The specification's values (the requirements model lists Active, Expired, Pending instead). */
export const COMMITMENT_DISCOUNT_STATUSES = ['Used', 'Unused'] as const;
export const CAPACITY_RESERVATION_STATUSES = ['Used', 'Unused'] as const;

/** ServiceCategory values and the ServiceSubcategory values each is the parent of. */
export const SERVICE_SUBCATEGORIES: Record<string, readonly string[]> = {
  'AI and Machine Learning': [
    'AI Platforms',
    'Bots',
    'Generative AI',
    'Machine Learning',
    'Natural Language Processing',
  ],
  Analytics: [
    'Analytics Platforms',
    'Business Intelligence',
    'Data Processing',
    'Search',
    'Streaming Analytics',
  ],
  'Business Applications': ['Productivity and Collaboration'],
  Compute: ['Containers', 'End User Computing', 'Quantum Compute', 'Serverless Compute', 'Virtual Machines'],
  Databases: [
    'Caching',
    'Data Warehouses',
    'Ledger Databases',
    'NoSQL Databases',
    'Relational Databases',
    'Time Series Databases',
  ],
  'Developer Tools': [
    'Developer Platforms',
    'Continuous Integration and Deployment',
    'Development Environments',
    'Source Code Management',
    'Quality Assurance',
  ],
  Identity: ['Identity and Access Management'],
  Integration: ['API Management', 'Messaging', 'Workflow Orchestration'],
  'Internet of Things': ['IoT Analytics', 'IoT Platforms'],
  'Management and Governance': [
    'Architecture',
    'Compliance',
    'Cost Management',
    'Data Governance',
    'Disaster Recovery',
    'Endpoint Management',
    'Observability',
    'Support',
  ],
  Media: ['Content Creation', 'Gaming', 'Media Streaming', 'Mixed Reality'],
  Migration: ['Data Migration', 'Resource Migration'],
  Mobile: [],
  Multicloud: ['Multicloud Integration'],
  Networking: [
    'Application Networking',
    'Content Delivery',
    'Network Connectivity',
    'Network Infrastructure',
    'Network Routing',
    'Network Security',
  ],
  Security: ['Secret Management', 'Security Posture Management', 'Threat Detection and Response'],
  Storage: ['Backup Storage', 'Block Storage', 'File Storage', 'Object Storage', 'Storage Platforms'],
  Web: ['Application Platforms'],
  Other: [],
};
export const SERVICE_CATEGORIES = Object.keys(SERVICE_SUBCATEGORIES);
/** Each category also has `Other (<category>)`. */
const subcategoryPairs = Object.entries(SERVICE_SUBCATEGORIES).flatMap(([category, subs]) =>
  [...subs, `Other (${category})`].map((sub) => `(${quoteLiteral(category)}, ${quoteLiteral(sub)})`),
);
const ALL_SUBCATEGORIES = Object.entries(SERVICE_SUBCATEGORIES).flatMap(([category, subs]) => [
  ...subs,
  `Other (${category})`,
]);

/** ISO 4217 codes of no national currency (funds codes of a country's own currency excluded). */
const NON_NATIONAL_CURRENCIES = [
  'XAU',
  'XAG',
  'XPD',
  'XPT',
  'XDR',
  'XSU',
  'XUA',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XTS',
  'XXX',
];

// Builders of the usual shapes.
function presence(id: string, column: FocusColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be present in a FOCUS dataset.`,
    columns: [column],
    presence: true,
  };
}

function notNullable(id: string, column: FocusColumn, refuses?: true): Requirement {
  return {
    id,
    keyword: 'MUST NOT',
    statement: `${column} MUST NOT be null.`,
    columns: [column],
    violates: () => isNull(column),
    ...(refuses ? { refuses } : {}),
  };
}

function allowed(id: string, column: FocusColumn, values: readonly string[], feature?: Feature): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be one of the allowed values (${values.join(', ')}).`,
    columns: [column],
    violates: () => `${notNull(column)} AND ${q(column)} NOT IN (${list(values)})`,
    ...(feature ? { feature } : {}),
  };
}

/** `column` MUST be null when ChargeCategory is "Tax". */
function nullForTax(id: string, column: FocusColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be null when ChargeCategory is "Tax".`,
    columns: [column, 'ChargeCategory'],
    violates: () => `"ChargeCategory" = 'Tax' AND ${notNull(column)}`,
  };
}

/** `column` MUST NOT be null when ChargeCategory is "Usage" or "Purchase" and ChargeClass is not "Correction". */
function setForUsage(id: string, column: FocusColumn): Requirement {
  return {
    id,
    keyword: 'MUST NOT',
    statement: `${column} MUST NOT be null when ChargeCategory is "Usage" or "Purchase" and ChargeClass is not "Correction".`,
    columns: [column, 'ChargeCategory', 'ChargeClass'],
    violates: () => `${usageOrPurchase} AND ${notCorrection} AND ${isNull(column)}`,
  };
}

/** `column` MUST be null when `other` is null. */
function nullWhenNull(id: string, column: FocusColumn, other: FocusColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be null when ${other} is null.`,
    columns: [column, other],
    // The spec's way: a value where `other` is null breaks it (the model tests NOT null here).
    violates: () => `${isNull(other)} AND ${notNull(column)}`,
  };
}

/** `column` MUST (or SHOULD) NOT be null when `other` is not null. */
function setWhenSet(
  id: string,
  column: FocusColumn,
  other: FocusColumn,
  keyword: 'MUST NOT' | 'SHOULD NOT' = 'MUST NOT',
  feature?: Feature,
): Requirement {
  return {
    id,
    keyword,
    statement: `${column} ${keyword} be null when ${other} is not null.`,
    columns: [column, other],
    violates: () => `${notNull(other)} AND ${isNull(column)}`,
    ...(feature ? { feature } : {}),
  };
}

function nonNegative(id: string, column: FocusColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be a non-negative decimal value.`,
    columns: [column],
    violates: () => `${q(column)} < 0`,
  };
}

/** Rows whose `key` has more than one distinct non-null `value` in the file. */
function oneValuePer(key: FocusColumn, value: FocusColumn) {
  return (table: string) =>
    `${q(key)} IN (SELECT ${q(key)} FROM ${table} WHERE ${notNull(key)} GROUP BY 1 HAVING count(DISTINCT ${q(value)}) > 1)`;
}

export const REQUIREMENTS: readonly Requirement[] = [
  // Presence of the columns every FOCUS dataset has (CostAndUsage dataset).
  presence('CostAndUsage-D-005-M', 'BillingAccountName'),
  presence('CostAndUsage-D-006-M', 'BilledCost'),
  presence('CostAndUsage-D-008-M', 'ChargeCategory'),
  presence('CostAndUsage-D-009-M', 'BillingPeriodStart'),
  presence('CostAndUsage-D-010-M', 'BillingPeriodEnd'),
  presence('CostAndUsage-D-021-M', 'PublisherName'),
  presence('CostAndUsage-D-023-M', 'InvoiceIssuerName'),
  presence('CostAndUsage-D-024-M', 'BillingAccountId'),
  presence('CostAndUsage-D-025-M', 'ChargeDescription'),
  presence('CostAndUsage-D-026-M', 'ChargeClass'),
  presence('CostAndUsage-D-028-M', 'ChargePeriodEnd'),
  presence('CostAndUsage-D-030-M', 'ContractedCost'),
  presence('CostAndUsage-D-031-M', 'EffectiveCost'),
  presence('CostAndUsage-D-032-M', 'ListCost'),
  presence('CostAndUsage-D-035-M', 'BillingCurrency'),
  presence('CostAndUsage-D-036-M', 'PricingQuantity'),
  presence('CostAndUsage-D-037-M', 'ChargePeriodStart'),
  presence('CostAndUsage-D-038-M', 'ProviderName'),
  presence('CostAndUsage-D-040-M', 'ServiceCategory'),
  presence('CostAndUsage-D-041-M', 'ServiceName'),
  presence('CostAndUsage-D-068-M', 'PricingUnit'),

  // Nullability of the mandatory columns.
  notNullable('BilledCost-C-003-M', 'BilledCost', true),
  notNullable('ChargePeriodStart-C-003-M', 'ChargePeriodStart', true),
  notNullable('BillingAccountId-C-001-M', 'BillingAccountId'),
  notNullable('BillingCurrency-C-004-M', 'BillingCurrency'),
  notNullable('BillingPeriodStart-C-003-M', 'BillingPeriodStart'),
  notNullable('BillingPeriodEnd-C-003-M', 'BillingPeriodEnd'),
  notNullable('ChargeCategory-C-002-M', 'ChargeCategory'),
  notNullable('ChargeFrequency-C-002-M', 'ChargeFrequency'),
  notNullable('ChargePeriodEnd-C-003-M', 'ChargePeriodEnd'),
  notNullable('ContractedCost-C-003-M', 'ContractedCost'),
  notNullable('EffectiveCost-C-003-M', 'EffectiveCost'),
  notNullable('InvoiceIssuerName-C-003-M', 'InvoiceIssuerName'),
  notNullable('ListCost-C-003-M', 'ListCost'),
  notNullable('ProviderName-C-003-M', 'ProviderName'),
  notNullable('PublisherName-C-003-M', 'PublisherName'),
  notNullable('ServiceCategory-C-002-M', 'ServiceCategory'),
  notNullable('ServiceName-C-003-M', 'ServiceName'),
  notNullable('ServiceSubcategory-C-002-M', 'ServiceSubcategory'),

  // Allowed values and formats.
  allowed('ChargeCategory-C-003-M', 'ChargeCategory', CHARGE_CATEGORIES),
  allowed('ChargeFrequency-C-003-M', 'ChargeFrequency', CHARGE_FREQUENCIES),
  allowed('PricingCategory-C-007-M', 'PricingCategory', PRICING_CATEGORIES),
  allowed('CommitmentDiscountCategory-C-005-M', 'CommitmentDiscountCategory', COMMITMENT_DISCOUNT_CATEGORIES),
  allowed('CommitmentDiscountStatus-C-005-M', 'CommitmentDiscountStatus', COMMITMENT_DISCOUNT_STATUSES),
  allowed('CapacityReservationStatus-C-006-M', 'CapacityReservationStatus', CAPACITY_RESERVATION_STATUSES),
  allowed('ServiceCategory-C-003-M', 'ServiceCategory', SERVICE_CATEGORIES),
  {
    id: 'ServiceSubcategory-C-003-M',
    keyword: 'MUST',
    statement: 'ServiceSubcategory MUST be one of the allowed values.',
    columns: ['ServiceSubcategory'],
    violates: () =>
      `${notNull('ServiceSubcategory')} AND "ServiceSubcategory" NOT IN (${list(ALL_SUBCATEGORIES)})`,
  },
  {
    id: 'ServiceSubcategory-C-004-M',
    keyword: 'MUST',
    statement:
      'ServiceSubcategory MUST have one and only one parent ServiceCategory as specified in the allowed values.',
    columns: ['ServiceSubcategory', 'ServiceCategory'],
    violates: () =>
      `"ServiceSubcategory" IN (${list(ALL_SUBCATEGORIES)}) AND ("ServiceCategory", "ServiceSubcategory") NOT IN (VALUES ${subcategoryPairs.join(', ')})`,
  },
  {
    id: 'ChargeClass-C-005-C',
    keyword: 'MUST',
    statement: 'ChargeClass MUST be "Correction" when ChargeClass is not null.',
    columns: ['ChargeClass'],
    violates: () => `${notNull('ChargeClass')} AND "ChargeClass" <> 'Correction'`,
  },
  {
    id: 'ChargeFrequency-C-004-C',
    keyword: 'MUST NOT',
    statement: 'ChargeFrequency MUST NOT be "Usage-Based" when ChargeCategory is "Purchase".',
    columns: ['ChargeFrequency', 'ChargeCategory'],
    violates: () => `"ChargeCategory" = 'Purchase' AND "ChargeFrequency" = 'Usage-Based'`,
  },
  {
    id: 'BillingCurrency-C-003-M',
    keyword: 'MUST',
    statement: 'BillingCurrency MUST conform to CurrencyFormat requirements (an ISO 4217 three-letter code).',
    columns: ['BillingCurrency'],
    violates: () => `NOT regexp_full_match("BillingCurrency", '[A-Z]{3}')`,
  },
  {
    // ISO 4217's codes that name no national currency: precious metals, IMF and bond-market units,
    // the testing code and "no currency". A cryptocurrency has no ISO code and fails C-003 already.
    id: 'BillingCurrency-C-006-M',
    keyword: 'MUST',
    statement: 'BillingCurrency MUST be expressed in national currency (e.g., USD, EUR).',
    columns: ['BillingCurrency'],
    violates: () => `"BillingCurrency" IN (${list(NON_NATIONAL_CURRENCIES)})`,
  },
  {
    id: 'PricingCurrency-C-003-M',
    keyword: 'MUST',
    statement: 'PricingCurrency MUST conform to CurrencyFormat requirements (an ISO 4217 three-letter code).',
    columns: ['PricingCurrency'],
    violates: () => `NOT regexp_full_match("PricingCurrency", '[A-Z]{3}')`,
  },
  {
    id: 'SkuPriceDetails-C-001-M',
    keyword: 'MUST',
    statement: 'SkuPriceDetails MUST conform to KeyValueFormat requirements (a serialized JSON object).',
    columns: ['SkuPriceDetails'],
    violates: () =>
      `${notNull('SkuPriceDetails')} AND (NOT coalesce(json_valid("SkuPriceDetails"), false) OR json_type("SkuPriceDetails"::JSON) <> 'OBJECT')`,
  },

  // Periods: an exclusive end after the inclusive start.
  {
    id: 'ChargePeriodEnd-C-004-M',
    keyword: 'MUST',
    statement: 'ChargePeriodEnd MUST be the exclusive end bound of the effective period of the charge.',
    columns: ['ChargePeriodEnd', 'ChargePeriodStart'],
    violates: () => `"ChargePeriodEnd" <= "ChargePeriodStart"`,
  },
  {
    id: 'BillingPeriodEnd-C-004-M',
    keyword: 'MUST',
    statement: 'BillingPeriodEnd MUST be the exclusive end bound of the billing period.',
    columns: ['BillingPeriodEnd', 'BillingPeriodStart'],
    violates: () => `"BillingPeriodEnd" <= "BillingPeriodStart"`,
  },

  // Columns that MUST be null for taxes and set for usage and purchases.
  nullForTax('ListUnitPrice-C-004-C', 'ListUnitPrice'),
  nullForTax('ContractedUnitPrice-C-005-C', 'ContractedUnitPrice'),
  nullForTax('PricingQuantity-C-004-C', 'PricingQuantity'),
  nullForTax('PricingCategory-C-003-C', 'PricingCategory'),
  nullForTax('SkuId-C-004-C', 'SkuId'),
  nullForTax('SkuPriceId-C-004-C', 'SkuPriceId'),
  nullForTax('PricingCurrencyListUnitPrice-C-004-C', 'PricingCurrencyListUnitPrice'),
  nullForTax('PricingCurrencyContractedUnitPrice-C-004-C', 'PricingCurrencyContractedUnitPrice'),
  setForUsage('ListUnitPrice-C-005-C', 'ListUnitPrice'),
  setForUsage('ContractedUnitPrice-C-006-C', 'ContractedUnitPrice'),
  setForUsage('PricingQuantity-C-005-C', 'PricingQuantity'),
  setForUsage('PricingCategory-C-004-C', 'PricingCategory'),
  setForUsage('SkuId-C-005-C', 'SkuId'),
  setForUsage('SkuPriceId-C-005-C', 'SkuPriceId'),
  setForUsage('PricingCurrencyListUnitPrice-C-005-C', 'PricingCurrencyListUnitPrice'),
  setForUsage('PricingCurrencyContractedUnitPrice-C-005-C', 'PricingCurrencyContractedUnitPrice'),

  // Columns that go with another one.
  nullWhenNull('PricingUnit-C-005-C', 'PricingUnit', 'PricingQuantity'),
  setWhenSet('PricingUnit-C-006-C', 'PricingUnit', 'PricingQuantity'),
  nullWhenNull('ConsumedUnit-C-005-C', 'ConsumedUnit', 'ConsumedQuantity'),
  setWhenSet('ConsumedUnit-C-006-C', 'ConsumedUnit', 'ConsumedQuantity'),
  nullWhenNull('SubAccountName-C-004-C', 'SubAccountName', 'SubAccountId'),
  setWhenSet('SubAccountName-C-005-C', 'SubAccountName', 'SubAccountId'),
  nullWhenNull('SubAccountType-C-004-C', 'SubAccountType', 'SubAccountId'),
  setWhenSet('SubAccountType-C-005-C', 'SubAccountType', 'SubAccountId'),
  nullWhenNull('BillingAccountType-C-004-C', 'BillingAccountType', 'BillingAccountId'),
  setWhenSet('BillingAccountType-C-005-C', 'BillingAccountType', 'BillingAccountId'),
  nullWhenNull('ResourceType-C-004-C', 'ResourceType', 'ResourceId'),
  setWhenSet('ResourceType-C-005-C', 'ResourceType', 'ResourceId'),
  {
    ...nullWhenNull('ResourceName-C-004-C', 'ResourceName', 'ResourceId'),
    statement: 'ResourceName MUST be null when ResourceId is null (checked: the display-name half is not).',
  },
  nullWhenNull('SkuMeter-C-004-C', 'SkuMeter', 'SkuId'),
  setWhenSet('SkuMeter-C-005-C', 'SkuMeter', 'SkuId', 'SHOULD NOT'),
  nullWhenNull('SkuPriceDetails-C-004-C', 'SkuPriceDetails', 'SkuPriceId'),
  nullWhenNull('CommitmentDiscountName-C-004-C', 'CommitmentDiscountName', 'CommitmentDiscountId'),
  nullWhenNull('CommitmentDiscountCategory-C-003-C', 'CommitmentDiscountCategory', 'CommitmentDiscountId'),
  setWhenSet(
    'CommitmentDiscountCategory-C-004-C',
    'CommitmentDiscountCategory',
    'CommitmentDiscountId',
    'MUST NOT',
    'commitment',
  ),
  nullWhenNull('CommitmentDiscountType-C-004-C', 'CommitmentDiscountType', 'CommitmentDiscountId'),
  setWhenSet(
    'CommitmentDiscountType-C-005-C',
    'CommitmentDiscountType',
    'CommitmentDiscountId',
    'MUST NOT',
    'commitment',
  ),
  nullWhenNull('CommitmentDiscountStatus-C-003-C', 'CommitmentDiscountStatus', 'CommitmentDiscountId'),
  {
    id: 'CommitmentDiscountStatus-C-004-C',
    keyword: 'MUST NOT',
    statement:
      'CommitmentDiscountStatus MUST NOT be null when CommitmentDiscountId is not null and ChargeCategory is "Usage".',
    columns: ['CommitmentDiscountStatus', 'CommitmentDiscountId', 'ChargeCategory'],
    feature: 'commitment',
    violates: () =>
      `${notNull('CommitmentDiscountId')} AND "ChargeCategory" = 'Usage' AND ${isNull('CommitmentDiscountStatus')}`,
  },
  nullWhenNull('CommitmentDiscountUnit-C-005-C', 'CommitmentDiscountUnit', 'CommitmentDiscountQuantity'),
  setWhenSet('CommitmentDiscountUnit-C-006-C', 'CommitmentDiscountUnit', 'CommitmentDiscountQuantity'),
  {
    id: 'CommitmentDiscountQuantity-C-005-C',
    keyword: 'MUST NOT',
    statement:
      'CommitmentDiscountQuantity MUST NOT be null when ChargeCategory is "Usage" or "Purchase", CommitmentDiscountId is not null and ChargeClass is not "Correction".',
    columns: ['CommitmentDiscountQuantity', 'CommitmentDiscountId', 'ChargeCategory', 'ChargeClass'],
    feature: 'commitment',
    violates: () =>
      `${usageOrPurchase} AND ${notNull('CommitmentDiscountId')} AND ${notCorrection} AND ${isNull('CommitmentDiscountQuantity')}`,
  },
  {
    id: 'CommitmentDiscountQuantity-C-007-C',
    keyword: 'MUST',
    statement:
      'CommitmentDiscountQuantity MUST be null in all other cases (not a usage or purchase of a commitment discount).',
    columns: ['CommitmentDiscountQuantity', 'CommitmentDiscountId', 'ChargeCategory'],
    violates: () =>
      `${notNull('CommitmentDiscountQuantity')} AND (${isNull('CommitmentDiscountId')} OR "ChargeCategory" IS NULL OR "ChargeCategory" NOT IN ('Usage', 'Purchase'))`,
  },
  nullWhenNull('CapacityReservationStatus-C-003-C', 'CapacityReservationStatus', 'CapacityReservationId'),
  {
    id: 'CapacityReservationId-C-005-C',
    keyword: 'MUST NOT',
    statement:
      'CapacityReservationId MUST NOT be null when the charge is the unused portion of a capacity reservation (CapacityReservationStatus "Unused").',
    columns: ['CapacityReservationId', 'CapacityReservationStatus'],
    feature: 'capacity',
    violates: () => `"CapacityReservationStatus" = 'Unused' AND ${isNull('CapacityReservationId')}`,
  },
  {
    id: 'CapacityReservationStatus-C-004-C',
    keyword: 'MUST NOT',
    statement:
      'CapacityReservationStatus MUST NOT be null when CapacityReservationId is not null and ChargeCategory is "Usage".',
    columns: ['CapacityReservationStatus', 'CapacityReservationId', 'ChargeCategory'],
    feature: 'capacity',
    violates: () =>
      `${notNull('CapacityReservationId')} AND "ChargeCategory" = 'Usage' AND ${isNull('CapacityReservationStatus')}`,
  },
  {
    id: 'ConsumedQuantity-C-004-C',
    keyword: 'MUST',
    statement:
      'ConsumedQuantity MUST be null when ChargeCategory is not "Usage", or when ChargeCategory is "Usage" and CommitmentDiscountStatus is "Unused".',
    columns: ['ConsumedQuantity', 'ChargeCategory'],
    violates: () =>
      `${notNull('ConsumedQuantity')} AND ("ChargeCategory" IS DISTINCT FROM 'Usage' OR "CommitmentDiscountStatus" = 'Unused')`,
  },
  {
    id: 'ConsumedQuantity-C-006-C',
    keyword: 'MUST NOT',
    statement:
      'ConsumedQuantity MUST NOT be null when ChargeCategory is "Usage", CommitmentDiscountStatus is not "Unused" and ChargeClass is not "Correction".',
    columns: ['ConsumedQuantity', 'ChargeCategory', 'ChargeClass'],
    violates: () =>
      `"ChargeCategory" = 'Usage' AND "CommitmentDiscountStatus" IS DISTINCT FROM 'Unused' AND ${notCorrection} AND ${isNull('ConsumedQuantity')}`,
  },

  // Commitment discounts.
  {
    id: 'DiscountHandling-A-018-C',
    keyword: 'MUST',
    statement:
      'Rows of the unused portion of a commitment MUST have CommitmentDiscountStatus "Unused" and ChargeCategory "Usage".',
    columns: ['CommitmentDiscountStatus', 'ChargeCategory'],
    feature: 'commitment',
    violates: () => `"CommitmentDiscountStatus" = 'Unused' AND "ChargeCategory" IS DISTINCT FROM 'Usage'`,
  },
  {
    id: 'PricingCategory-C-009-C',
    keyword: 'MUST',
    statement:
      'PricingCategory MUST be "Committed" when the charge is subject to an existing commitment discount and is not the purchase of the commitment discount.',
    columns: ['PricingCategory', 'CommitmentDiscountId', 'CommitmentDiscountStatus', 'ChargeCategory'],
    feature: 'commitment',
    violates: () =>
      `${notNull('CommitmentDiscountId')} AND "CommitmentDiscountStatus" = 'Used' AND "ChargeCategory" = 'Usage' AND "PricingCategory" IS DISTINCT FROM 'Committed'`,
  },
  {
    id: 'CommitmentDiscountUnit-C-008-M',
    keyword: 'MUST',
    statement: 'CommitmentDiscountUnit MUST remain consistent over time for a given CommitmentDiscountId.',
    columns: ['CommitmentDiscountUnit', 'CommitmentDiscountId'],
    feature: 'commitment',
    violates: oneValuePer('CommitmentDiscountId', 'CommitmentDiscountUnit'),
  },

  // Prices and costs.
  nonNegative('ListUnitPrice-C-008-M', 'ListUnitPrice'),
  nonNegative('ContractedUnitPrice-C-009-C', 'ContractedUnitPrice'),
  nonNegative('PricingCurrencyListUnitPrice-C-008-M', 'PricingCurrencyListUnitPrice'),
  nonNegative('PricingCurrencyContractedUnitPrice-C-008-C', 'PricingCurrencyContractedUnitPrice'),
  {
    id: 'ListCost-C-009-C',
    keyword: 'MUST',
    statement:
      'The product of ListUnitPrice and PricingQuantity MUST match the ListCost when ListUnitPrice is not null, PricingQuantity is not null, and ChargeClass is not "Correction".',
    columns: ['ListUnitPrice', 'PricingQuantity', 'ListCost', 'ChargeClass'],
    violates: () => productMismatch('ListUnitPrice', 'PricingQuantity', 'ListCost'),
  },
  {
    id: 'ContractedCost-C-009-C',
    keyword: 'MUST',
    statement:
      'The product of ContractedUnitPrice and PricingQuantity MUST match the ContractedCost when ContractedUnitPrice is not null, PricingQuantity is not null, and ChargeClass is not "Correction".',
    columns: ['ContractedUnitPrice', 'PricingQuantity', 'ContractedCost', 'ChargeClass'],
    violates: () => productMismatch('ContractedUnitPrice', 'PricingQuantity', 'ContractedCost'),
  },

  // Distinct counts.
  {
    id: 'SkuPriceId-C-008-M',
    keyword: 'MUST',
    statement: 'SkuPriceId MUST have one and only one parent SkuId.',
    columns: ['SkuPriceId', 'SkuId'],
    violates: oneValuePer('SkuPriceId', 'SkuId'),
  },
  {
    id: 'ServiceName-C-005-C',
    keyword: 'MUST',
    statement:
      'ServiceName MUST have one and only one ServiceCategory that best aligns with its primary purpose.',
    columns: ['ServiceName', 'ServiceCategory'],
    violates: oneValuePer('ServiceName', 'ServiceCategory'),
  },
  {
    id: 'ServiceName-C-008-C',
    keyword: 'SHOULD',
    statement:
      'ServiceName SHOULD have one and only one ServiceSubcategory that best aligns with its primary purpose.',
    columns: ['ServiceName', 'ServiceSubcategory'],
    violates: oneValuePer('ServiceName', 'ServiceSubcategory'),
  },
  {
    id: 'SkuMeter-C-006-O',
    keyword: 'SHOULD',
    statement: 'SkuMeter SHOULD remain consistent over time for a given SkuId.',
    columns: ['SkuMeter', 'SkuId'],
    violates: oneValuePer('SkuId', 'SkuMeter'),
  },
  {
    id: 'ChargeDescription-C-003-O',
    keyword: 'SHOULD NOT',
    statement: 'ChargeDescription SHOULD NOT be null.',
    columns: ['ChargeDescription'],
    violates: () => isNull('ChargeDescription'),
  },
];

/** The number of requirements of FOCUS 1.2 in the requirements model, and of those it checks by machine. */
export const MODEL_REQUIREMENTS = { total: 621, machineCheckable: 420 };
