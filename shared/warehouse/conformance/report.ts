/**
 * The conformance report an upload record keeps (types only: the uploads routes read it without
 * loading the warehouse). See ./requirements.ts for the requirements and docs/focus-conformance.md.
 */
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

/** The one-line summary `npm run ingest` prints and logs carry. */
export function conformanceSummary(report: ConformanceReport): string {
  const failed = report.requirements.filter((r) => r.status === 'fail');
  const must = failed.filter((r) => r.keyword.startsWith('MUST')).map((r) => r.id);
  const { MUST, SHOULD } = report.score;
  return (
    `FOCUS ${report.focusVersion} conformance: MUST ${MUST.met}/${MUST.applicable} met, SHOULD ${SHOULD.met}/${SHOULD.applicable} met` +
    (must.length
      ? ` (failed MUST: ${must.slice(0, 5).join(', ')}${must.length > 5 ? `, +${must.length - 5} more` : ''})`
      : '')
  );
}
