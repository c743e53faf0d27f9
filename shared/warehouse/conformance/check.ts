import type { DuckDBConnection } from '@duckdb/node-api';
import { query } from '../duckdb/database';
import type { DatasetColumn } from '../focus-columns';
import type {
  ConformanceReport,
  FocusVersion,
  Keyword,
  KeywordScore,
  RequirementResult,
  ViolationSample,
} from './report';
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
}

function scoreOf(results: RequirementResult[], keywords: Keyword[]): KeywordScore {
  const applicable = results.filter((r) => keywords.includes(r.keyword) && r.status !== 'not_applicable');
  return { met: applicable.filter((r) => r.status === 'pass').length, applicable: applicable.length };
}

/**
 * Checks the converted rows of an upload against the FOCUS requirements (./requirements.ts): one
 * statement per applicable requirement counting the rows that break it, and for a failed one a
 * second statement fetching its first rows. Reads only the staged table; changes nothing.
 */
export async function checkConformance(
  conn: DuckDBConnection,
  input: CheckInput,
): Promise<ConformanceReport> {
  const { table, present, rows, headerLines } = input;
  const requirements = input.requirements ?? requirementsOf(input.focusVersion);
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
    if (req.feature && !features[req.feature]) {
      results.push({
        ...base,
        status: 'not_applicable',
        violations: 0,
        reason: `no row uses ${featureName[req.feature]}`,
      });
      continue;
    }
    if (req.uses) {
      const [used] = await query(
        conn,
        `SELECT count(*)::BIGINT AS n FROM ${table} AS t WHERE ${req.uses(table)}`,
      );
      results.push({ ...base, status: 'pass', violations: 0, uses: Number(used?.n ?? 0) });
      continue;
    }
    const where = (req.violates as (t: string) => string)(table);
    const [counted] = await query(conn, `SELECT count(*)::BIGINT AS n FROM ${table} AS t WHERE ${where}`);
    const violations = Number(counted?.n ?? 0);
    if (!violations) {
      results.push({ ...base, status: 'pass', violations: 0 });
      continue;
    }
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
    results.push({ ...base, status: 'fail', violations, samples });
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
