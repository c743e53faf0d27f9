/**
 * What an upload record keeps: the sources and months it replaced, with the rows and BilledCost
 * per currency before and after (computed by the warehouse, shared/warehouse/ingest/replacements.ts),
 * and the FOCUS conformance report of its rows (shared/warehouse/conformance/, docs/focus-conformance.md).
 */

/** A provider's billing account: what an upload replaces, month by month. */
export interface BillingSource {
  provider: string;
  account: string;
}

export interface SourceVersion {
  rows: number;
  /** BilledCost per BillingCurrency (`''` for rows without one). */
  cost: Record<string, number>;
}

export interface SourceChange extends BillingSource {
  month: string;
  before: SourceVersion;
  after: SourceVersion;
  /** The version before was kept, restorable (a marked drop: `isMarkedDrop`). */
  kept?: true;
}

export type Keyword = 'MUST' | 'MUST NOT' | 'SHOULD' | 'SHOULD NOT' | 'MAY';

/** The FOCUS versions whose requirements the check knows: 1.3 for a file with a column 1.3 introduced. */
export type FocusVersion = '1.2' | '1.3';

/** One sample row that breaks a requirement: its data row (1-based) and line in the file, and the values read. */
export interface ViolationSample {
  row: number;
  line: number;
  values: Record<string, string | null>;
}

export interface RequirementResult {
  id: string;
  keyword: Keyword;
  statement: string;
  status: 'pass' | 'fail' | 'not_applicable';
  /** Rows that break it (for a missing column: every row). Always 0 for a MAY requirement. */
  violations: number;
  /** A MAY requirement (a permission, which no row can break): the rows that make use of it. */
  uses?: number;
  /** Why it does not apply (a column absent, a feature the file does not use). */
  reason?: string;
  /** True when a failure would make figures wrong: the upload is refused instead (never a stored fail). */
  refuses?: true;
  /** Up to five of the rows that break it, in file order. */
  samples?: ViolationSample[];
}

export interface KeywordScore {
  /** Applicable requirements met, of `applicable`. */
  met: number;
  applicable: number;
}

export interface ConformanceReport {
  /** The FOCUS version the requirements come from. */
  focusVersion: FocusVersion;
  rows: number;
  /** MUST counts MUST and MUST NOT; SHOULD counts SHOULD and SHOULD NOT. */
  score: { MUST: KeywordScore; SHOULD: KeywordScore };
  requirements: RequirementResult[];
}
