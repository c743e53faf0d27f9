import type { DuckDBConnection } from '@duckdb/node-api';
import type {
  ConformanceReport,
  FocusVersion,
  Keyword,
  KeywordScore,
  RequirementResult,
  ViolationSample,
} from '../../model/uploads';
import { query } from '../duckdb/database';
import type { DatasetColumn } from '../focus-columns';
import { contractReferences } from './focus-1-3';
import { type Feature, type Requirement, requirementsOf } from './requirements';

export { conformanceSummary } from './report';

/** Sample rows kept per failed requirement, and the length a sample value is cut to. */
const SAMPLES = 5;
const VALUE_CHARS = 100;

export interface CheckInput {
  /** The staged table of the upload: its converted rows, in file order (`rowid` is the data row). */
  table: string;
  /** The FOCUS columns the file (or its conversion) has. */
  present: ReadonlySet<string>;
  rows: number;
  /** Lines before the first data row (1 for a CSV header): line = row + headerLines. */
  headerLines: number;
  /** The version whose requirements apply (./requirements.ts, requirementsOf). */
  focusVersion: FocusVersion;
  requirements?: readonly Requirement[];
  /**
   * The ContractCommitmentIDs of the organisation's Contract Commitment dataset as stored now
   * (null: it has none), for the cross-dataset check of a 1.3 file's ContractApplied
   * (`contractReferences`); left out, that check is not listed (a contract upload's own check).
   */
  contractCommitmentIds?: readonly string[] | null;
}

/** Whether an upload's check includes ContractApplied's cross-dataset check: a 1.3 file with the column. */
export function appliesContracts(staged: Pick<CheckInput, 'focusVersion' | 'present'>): boolean {
  return staged.focusVersion === '1.3' && staged.present.has('ContractApplied');
}

/**
 * The conformance report of an upload's staged rows, as both warehouse adapters make it: a 1.3 file
 * that applies contracts is checked against the organisation's stored ContractCommitmentIDs
 * (`storedContracts`, read only then).
 */
export async function checkStaged(
  conn: DuckDBConnection,
  staged: Pick<CheckInput, 'table' | 'present' | 'rows' | 'headerLines' | 'focusVersion'>,
  storedContracts: () => Promise<readonly string[] | null>,
): Promise<ConformanceReport> {
  const { table, present, rows, headerLines, focusVersion } = staged;
  return checkConformance(conn, {
    table,
    present,
    rows,
    headerLines,
    focusVersion,
    ...(appliesContracts(staged) ? { contractCommitmentIds: await storedContracts() } : {}),
  });
}

function scoreOf(results: RequirementResult[], keywords: Keyword[]): KeywordScore {
  const applicable = results.filter((r) => keywords.includes(r.keyword) && r.status !== 'not_applicable');
  return { met: applicable.filter((r) => r.status === 'pass').length, applicable: applicable.length };
}

/**
 * The rows each check holds for: the rules that read only the row in one scan of the table (one
 * filtered count each); the rules on one column's values per column, over its distinct values
 * and their rows; those with another sub-query over the table (distinct counts) one statement each.
 */
async function countRows(
  conn: DuckDBConnection,
  table: string,
  checks: readonly { req: Requirement; where: string }[],
): Promise<number[]> {
  const counts: number[] = new Array(checks.length).fill(0);
  const rowOnly = checks.flatMap((c, i) => (c.req.perValue || c.where.includes(table) ? [] : [i]));
  if (rowOnly.length) {
    const [row] = await query(
      conn,
      `SELECT ${rowOnly.map((i) => `count(*) FILTER (WHERE ${checks[i]?.where})::BIGINT AS c${i}`).join(', ')} FROM ${table} AS t`,
    );
    for (const i of rowOnly) counts[i] = Number(row?.[`c${i}`] ?? 0);
  }
  const byColumn = new Map<string, number[]>();
  for (const [i, c] of checks.entries())
    if (c.req.perValue)
      byColumn.set(c.req.perValue.column, [...(byColumn.get(c.req.perValue.column) ?? []), i]);
  for (const [column, at] of byColumn) {
    const sums = at.map(
      (i) => `sum(n) FILTER (WHERE ${checks[i]?.req.perValue?.rule('v')})::BIGINT AS c${i}`,
    );
    const [row] = await query(
      conn,
      `SELECT ${sums.join(', ')} FROM (SELECT "${column}" AS v, count(*) AS n FROM ${table} WHERE "${column}" IS NOT NULL GROUP BY 1)`,
    );
    for (const i of at) counts[i] = Number(row?.[`c${i}`] ?? 0);
  }
  for (const [i, c] of checks.entries()) {
    if (c.req.perValue || !c.where.includes(table)) continue;
    const [row] = await query(conn, `SELECT count(*)::BIGINT AS n FROM ${table} AS t WHERE ${c.where}`);
    counts[i] = Number(row?.n ?? 0);
  }
  return counts;
}

/**
 * Checks the converted rows of an upload against the FOCUS requirements (./requirements.ts): the
 * rows that break each applicable requirement (or, for a MAY, use it) counted (countRows), and for
 * a failed one a statement fetching its first rows. Reads only the staged table; changes nothing.
 */
export async function checkConformance(
  conn: DuckDBConnection,
  input: CheckInput,
): Promise<ConformanceReport> {
  const { table, present, rows, headerLines } = input;
  const requirements = [
    ...(input.requirements ?? requirementsOf(input.focusVersion)),
    ...(input.contractCommitmentIds !== undefined && input.focusVersion === '1.3'
      ? [contractReferences(input.contractCommitmentIds)]
      : []),
  ];
  // The optional features of the Cost and Usage dataset its rows use (other datasets have none).
  const [used] = requirements.some((r) => r.feature)
    ? await query(
        conn,
        `SELECT count("CommitmentDiscountId")::BIGINT AS commitment, count("CapacityReservationId")::BIGINT AS capacity FROM ${table}`,
      )
    : [];
  const features: Record<Feature, boolean> = {
    commitment: Number(used?.commitment ?? 0) > 0,
    capacity: Number(used?.capacity ?? 0) > 0,
  };
  const featureName: Record<Feature, string> = {
    commitment: 'commitment discounts',
    capacity: 'capacity reservations',
  };
  const results: RequirementResult[] = [];
  /** The applicable requirements checked on rows: their place in `results` and their predicate. */
  const counted: { at: number; req: Requirement; where: string }[] = [];
  for (const req of requirements) {
    const base = {
      id: req.id,
      keyword: req.keyword,
      statement: req.statement,
      ...(req.refuses ? { refuses: req.refuses } : {}),
    };
    if (req.presence) {
      const ok = req.columns.every((c) => present.has(c));
      results.push({ ...base, status: ok ? 'pass' : 'fail', violations: ok ? 0 : rows });
      continue;
    }
    const absent = req.columns.filter((c) => !present.has(c));
    if (absent.length) {
      results.push({
        ...base,
        status: 'not_applicable',
        violations: 0,
        reason: `the file has no ${absent.join(', ')} column`,
      });
      continue;
    }
    if (req.notCheckable) {
      results.push({ ...base, status: 'not_applicable', violations: 0, reason: req.notCheckable });
      continue;
    }
    if (req.feature && !features[req.feature]) {
      results.push({
        ...base,
        status: 'not_applicable',
        violations: 0,
        reason: `no row uses ${featureName[req.feature]}`,
      });
      continue;
    }
    const where = ((req.uses ?? req.violates) as (t: string) => string)(table);
    counted.push({ at: results.length, req, where });
    results.push({ ...base, status: 'pass', violations: 0 });
  }
  const counts = await countRows(conn, table, counted);
  for (const [i, { at, req, where }] of counted.entries()) {
    const n = counts[i] ?? 0;
    const result = results[at] as RequirementResult;
    if (req.uses) {
      result.uses = n;
      continue;
    }
    if (!n) continue;
    const cols = req.columns.map(
      (c: DatasetColumn) => `left(CAST("${c}" AS VARCHAR), ${VALUE_CHARS}) AS "${c}"`,
    );
    const sampled = await query(
      conn,
      `SELECT rowid AS __rowid, ${cols.join(', ')} FROM ${table} AS t WHERE ${where} ORDER BY rowid LIMIT ${SAMPLES}`,
    );
    const samples: ViolationSample[] = sampled.map((r) => {
      const row = Number(r.__rowid) + 1;
      return {
        row,
        line: row + headerLines,
        values: Object.fromEntries(
          req.columns.map((c) => [c, r[c] === null || r[c] === undefined ? null : String(r[c])]),
        ),
      };
    });
    Object.assign(result, { status: 'fail', violations: n, samples });
  }
  return {
    focusVersion: input.focusVersion,
    rows,
    score: {
      MUST: scoreOf(results, ['MUST', 'MUST NOT']),
      SHOULD: scoreOf(results, ['SHOULD', 'SHOULD NOT']),
    },
    requirements: results,
  };
}
