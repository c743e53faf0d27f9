import type { FocusVersion, Keyword } from '../../model/uploads';
import type { DatasetColumn } from '../focus-columns';
import { quoteLiteral } from '../sql/quote';
import { NON_NATIONAL_CURRENCIES } from './values';

/** The shape of a requirement and the builders of its usual kinds (requirements.ts lists them all). */
export type Feature = 'commitment' | 'capacity';

export interface Requirement {
  id: string;
  keyword: Keyword;
  /** The specification's sentence, on one line. */
  statement: string;
  /** The FOCUS columns the check reads: not applicable when the file lacks one of them. */
  columns: DatasetColumn[];
  /** Presence requirements: checked on the file's header, not on rows. */
  presence?: true;
  /** The optional feature it belongs to: not applicable when no row uses it. */
  feature?: Feature;
  /** A row that breaks it (SQL over the staged table `t`, which `table` names for sub-queries). */
  violates?: (table: string) => string;
  /** A MAY requirement: a row that makes use of the permission (counted, never a failure). */
  uses?: (table: string) => string;
  /**
   * A rule on the value of one column alone: counted over the column's distinct values (with
   * their rows), all such rules of a column in one statement; `violates`/`uses` find the samples.
   */
  perValue?: { column: DatasetColumn; rule: (v: string) => string };
  /** The one FOCUS version it belongs to (1.2: replaced in 1.3; 1.3: introduced in 1.3); else both. */
  only?: FocusVersion;
  /** A failure would make figures wrong: the upload is refused before the check (never a stored fail). */
  refuses?: true;
  /**
   * Why no row check can decide it (docs/focus-conformance.md): listed in the report as not
   * applicable with this reason, never counted, never dropped silently.
   */
  notCheckable?: string;
}

export const q = (c: DatasetColumn) => `"${c}"`;
export const list = (values: readonly string[]) => values.map(quoteLiteral).join(', ');
export const isNull = (c: DatasetColumn) => `${q(c)} IS NULL`;
export const notNull = (c: DatasetColumn) => `${q(c)} IS NOT NULL`;
export const notCorrection = `"ChargeClass" IS DISTINCT FROM 'Correction'`;
export const usageOrPurchase = `"ChargeCategory" IN ('Usage', 'Purchase')`;

/**
 * The tolerance of `A × B = C` (docs/focus-conformance.md): exports round each figure on its own
 * (costs to cents or to a few decimals, unit prices to more), so a product matches a cost when it
 * differs by at most one hundredth of a currency unit or 0.01 % of the cost, whichever is larger.
 */
export const PRODUCT_TOLERANCE = { absolute: 0.01, relative: 0.0001 };

/** `a` × `b` differs from `c` beyond the tolerance (or `c` is null) where both factors are given. */
export function productOff(a: DatasetColumn, b: DatasetColumn, c: DatasetColumn): string {
  const { absolute, relative } = PRODUCT_TOLERANCE;
  return `${notNull(a)} AND ${notNull(b)} AND (${isNull(c)} OR abs(${q(a)} * ${q(b)} - ${q(c)}) > greatest(${absolute}, ${relative} * abs(${q(c)})))`;
}

function productMismatch(a: DatasetColumn, b: DatasetColumn, c: DatasetColumn): string {
  return `${notCorrection} AND ${productOff(a, b, c)}`;
}

/**
 * `price` × PricingQuantity MUST match `cost` within the tolerance: a requirement of the cost
 * column (which names the price's "not null" in its condition) and one of the price column.
 */
export function productMatches(
  id: string,
  price: 'ListUnitPrice' | 'ContractedUnitPrice',
  cost: 'ListCost' | 'ContractedCost',
  of: 'cost' | 'price',
): Requirement {
  const when =
    of === 'cost'
      ? `${price} is not null, PricingQuantity is not null, and ChargeClass is not "Correction"`
      : 'PricingQuantity is not null and ChargeClass is not "Correction"';
  return {
    id,
    keyword: 'MUST',
    statement: `The product of ${price} and PricingQuantity MUST match the ${cost} when ${when}.`,
    columns: [price, 'PricingQuantity', cost, 'ChargeClass'],
    violates: () => productMismatch(price, 'PricingQuantity', cost),
  };
}

/** A requirement FOCUS 1.3 replaced (the deprecated ProviderName and PublisherName): checked on 1.2 files only. */
export const until13 = (r: Requirement): Requirement => ({ ...r, only: '1.2' });

/** A MAY requirement: a permission no row can break; the check counts the rows that use it. */
export function may(id: string, statement: string, columns: DatasetColumn[], uses: string): Requirement {
  return { id, keyword: 'MAY', statement, columns, uses: () => uses };
}

// Builders of the usual shapes.
export function presence(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be present in a FOCUS dataset.`,
    columns: [column],
    presence: true,
  };
}

export function notNullable(id: string, column: DatasetColumn, refuses?: true): Requirement {
  return {
    id,
    keyword: 'MUST NOT',
    statement: `${column} MUST NOT be null.`,
    columns: [column],
    violates: () => isNull(column),
    ...(refuses ? { refuses } : {}),
  };
}

export function allowed(
  id: string,
  column: DatasetColumn,
  values: readonly string[],
  feature?: Feature,
): Requirement {
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
export function nullForTax(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be null when ChargeCategory is "Tax".`,
    columns: [column, 'ChargeCategory'],
    violates: () => `"ChargeCategory" = 'Tax' AND ${notNull(column)}`,
  };
}

/** `column` MUST NOT be null when ChargeCategory is "Usage" or "Purchase" and ChargeClass is not "Correction". */
export function setForUsage(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'MUST NOT',
    statement: `${column} MUST NOT be null when ChargeCategory is "Usage" or "Purchase" and ChargeClass is not "Correction".`,
    columns: [column, 'ChargeCategory', 'ChargeClass'],
    violates: () => `${usageOrPurchase} AND ${notCorrection} AND ${isNull(column)}`,
  };
}

/** `column` MUST be null when `other` is null. */
export function nullWhenNull(id: string, column: DatasetColumn, other: DatasetColumn): Requirement {
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
export function setWhenSet(
  id: string,
  column: DatasetColumn,
  other: DatasetColumn,
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

export function nonNegative(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be a non-negative decimal value.`,
    columns: [column],
    violates: () => `${q(column)} < 0`,
  };
}

/**
 * `column` MUST be a valid decimal value: the reader stores a number it cannot read as null (or
 * refuses the file), but `NaN` and `Infinity` read as numbers and are none.
 */
export function validDecimal(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be a valid decimal value.`,
    columns: [column],
    violates: () => `${notNull(column)} AND NOT isfinite(${q(column)})`,
  };
}

/**
 * StringHandling of a not-nullable string column: it SHOULD NOT contain empty strings or strings of
 * whitespace only (the reader reads an empty cell as null, so a cell of spaces is what remains).
 * The requirements model marks these MUST; the attribute's text says SHOULD NOT.
 */
export function noBlankString(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'SHOULD NOT',
    statement: `${column} SHOULD NOT contain empty strings or strings consisting solely of whitespace (StringHandling).`,
    columns: [column],
    violates: () => `${notNull(column)} AND regexp_full_match(${q(column)}, '\\s*')`,
  };
}

/** `column` MUST conform to CurrencyFormat: an ISO 4217 three-letter code. */
export function currencyFormat(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST conform to CurrencyFormat requirements (an ISO 4217 three-letter code).`,
    columns: [column],
    violates: () => `NOT regexp_full_match(${q(column)}, '[A-Z]{3}')`,
  };
}

/**
 * `column` MUST be expressed in national currency: not one of ISO 4217's codes that name no
 * national currency (precious metals, IMF and bond-market units, the testing code and "no
 * currency"). A cryptocurrency has no ISO code and fails the CurrencyFormat requirement already.
 */
export function nationalCurrency(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST be expressed in national currency (e.g., USD, EUR).`,
    columns: [column],
    violates: () => `${q(column)} IN (${list(NON_NATIONAL_CURRENCIES)})`,
  };
}

/** A RECOMMENDED column: SHOULD be present (checked on the header). */
export function recommended(id: string, column: DatasetColumn): Requirement {
  return {
    id,
    keyword: 'SHOULD',
    statement: `${column} is RECOMMENDED to be present in a FOCUS dataset.`,
    columns: [column],
    presence: true,
  };
}

/** Rows whose `key` has more than one distinct non-null `value` in the file. */
export function oneValuePer(key: DatasetColumn, value: DatasetColumn) {
  return (table: string) =>
    `${q(key)} IN (SELECT ${q(key)} FROM ${table} WHERE ${notNull(key)} GROUP BY 1 HAVING count(DISTINCT ${q(value)}) > 1)`;
}
