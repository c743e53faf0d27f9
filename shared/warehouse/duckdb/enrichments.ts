import type { DuckDBConnection } from '@duckdb/node-api';
import type { EnrichmentFeature } from '../../model/view-features';
import { compileCondition } from '../conditions';
import { FOCUS_COLUMN_TYPES, type FocusColumn, focusColumnOf } from '../focus-columns';
import { quoteIdent } from '../sql/quote';
import { BILLING_TABLE, query } from './database';

/**
 * Enrichments for the full refresh, applied in the order given (priority ascending, then name):
 * each document becomes a temporary lookup table joined on its key column, and, when it has
 * `conditions`, a temporary table of the distinct input tuples that satisfy them (see
 * ../conditions.ts). The caller's CTAS selects `innerColumns` through `joins` and combines the
 * per-document values with `valueOf` in its outer layer.
 */
export const MAX_CONDITION_TUPLES = 100_000;
const INSERT_BATCH = 500;

export interface PreparedEnrichments {
  joins: string[];
  innerColumns: string[];
  innerNames: string[];
  /** Applied documents (those that could be prepared), in application order. */
  applied: { doc: EnrichmentFeature; index: number }[];
  /** The value document `index` gives column `target` on a row (NULL where its key or conditions do not match). */
  valueOf(index: number, target: string): string;
  warnings: string[];
  cleanup(): Promise<void>;
}

async function insertRows(
  conn: DuckDBConnection,
  table: string,
  rows: (string | null)[][],
  width: number,
): Promise<void> {
  for (let at = 0; at < rows.length; at += INSERT_BATCH) {
    const batch = rows.slice(at, at + INSERT_BATCH);
    const params: (string | null)[] = [];
    const tuples = batch.map((row) => {
      const marks = row.map((cell) => {
        params.push(cell);
        return `$${params.length}`;
      });
      return `(${marks.slice(0, width).join(', ')})`;
    });
    await conn.run(`INSERT INTO ${table} VALUES ${tuples.join(', ')}`, params);
  }
}

/** The SQL of a condition input column, as read from billing row alias `b` (Tags as JSON text). */
function inputExpr(field: FocusColumn, alias: string): string {
  const col = `${alias}.${quoteIdent(field)}`;
  if (FOCUS_COLUMN_TYPES[field] === 'tags') return `to_json(${col})::VARCHAR`;
  if (FOCUS_COLUMN_TYPES[field] === 'timestamp') return `strftime(${col}, '%Y-%m-%d %H:%M:%S')`;
  return col;
}

export async function prepareEnrichments(
  conn: DuckDBConnection,
  orgId: string,
  docs: readonly EnrichmentFeature[],
): Promise<PreparedEnrichments> {
  const tag = Math.random().toString(36).slice(2, 10);
  const temps: string[] = [];
  const joins: string[] = [];
  const innerColumns: string[] = [];
  const innerNames: string[] = [];
  const warnings: string[] = [];
  const applied: PreparedEnrichments['applied'] = [];
  const hasCondition = new Set<number>();

  for (const [index, doc] of docs.entries()) {
    const keyColumn = focusColumnOf(doc.keyField);
    if (!keyColumn || FOCUS_COLUMN_TYPES[keyColumn] !== 'string') {
      warnings.push(`enrichment ${doc.name} skipped: keyField ${doc.keyField} is not a text FOCUS column`);
      continue;
    }
    const enr = `enr_${tag}_${index}`;
    const targets = doc.targetColumns.map((c) => c.name);
    // This document's fragments, added to the statement only once all of it is prepared.
    const docJoins: string[] = [];
    const docColumns: string[] = [];
    const docNames: string[] = [];
    try {
      await conn.run(
        `CREATE TEMP TABLE ${enr} (k VARCHAR, ${targets.map((_, j) => `t${j} VARCHAR`).join(', ')})`,
      );
      temps.push(enr);
      const seen = new Set<string>();
      const rows: (string | null)[][] = [];
      for (const e of doc.entries) {
        if (seen.has(e.key)) continue;
        seen.add(e.key);
        rows.push([e.key, ...targets.map((t) => e.then[t] ?? null)]);
      }
      await insertRows(conn, enr, rows, targets.length + 1);
      const key = `b.${quoteIdent(keyColumn)}`;
      docJoins.push(`LEFT JOIN ${enr} ON ${enr}.k = ${key}`);
      targets.forEach((_, j) => {
        docColumns.push(`${enr}.t${j} AS __e${index}_${j}`);
        docNames.push(`__e${index}_${j}`);
      });

      if (doc.conditions) {
        const condition = compileCondition(doc.conditions);
        if (!condition.fields.length) {
          // A constant condition: true applies everywhere, false nowhere.
          docColumns.push(`${condition.test([]) ? 'TRUE' : 'FALSE'} AS __c${index}`);
        } else {
          const cond = `cond_${tag}_${index}`;
          const pass = `pass_${tag}_${index}`;
          const cols = condition.fields.map((f, i) => `${inputExpr(f, 'b')} AS c${i}`);
          await query(
            conn,
            `CREATE TEMP TABLE ${cond} AS SELECT row_number() OVER () AS rid, * FROM (
               SELECT DISTINCT ${cols.join(', ')} FROM ${BILLING_TABLE} b JOIN ${enr} ON ${enr}.k = ${key}
                WHERE b.org_id = $1 LIMIT ${MAX_CONDITION_TUPLES + 1})`,
            [orgId],
          );
          temps.push(cond);
          const tuples = await query(conn, `SELECT * FROM ${cond}`);
          if (tuples.length > MAX_CONDITION_TUPLES)
            throw new Error(`its conditions read more than ${MAX_CONDITION_TUPLES} distinct inputs`);
          const passing = tuples
            .filter((t) => condition.test(condition.fields.map((_, i) => t[`c${i}`])))
            .map((t) => [String(t.rid)]);
          await conn.run(`CREATE TEMP TABLE ${pass}_ids (rid BIGINT)`);
          temps.push(`${pass}_ids`);
          await insertRows(conn, `${pass}_ids`, passing, 1);
          await conn.run(
            `CREATE TEMP TABLE ${pass} AS SELECT c.* FROM ${cond} c SEMI JOIN ${pass}_ids USING (rid)`,
          );
          temps.push(pass);
          docJoins.push(
            `LEFT JOIN ${pass} ON ${condition.fields
              .map((f, i) => `${pass}.c${i} IS NOT DISTINCT FROM ${inputExpr(f, 'b')}`)
              .join(' AND ')}`,
          );
          docColumns.push(`(${pass}.rid IS NOT NULL) AS __c${index}`);
        }
        docNames.push(`__c${index}`);
        hasCondition.add(index);
      }
      joins.push(...docJoins);
      innerColumns.push(...docColumns);
      innerNames.push(...docNames);
      applied.push({ doc, index });
    } catch (error) {
      hasCondition.delete(index);
      warnings.push(`enrichment ${doc.name} skipped: ${(error as Error).message}`);
    }
  }

  return {
    joins,
    innerColumns,
    innerNames,
    applied,
    warnings,
    valueOf(index, target) {
      const doc = docs[index];
      const j = doc?.targetColumns.findIndex((c) => c.name === target) ?? -1;
      if (j < 0) return 'NULL';
      return hasCondition.has(index) ? `CASE WHEN __c${index} THEN __e${index}_${j} END` : `__e${index}_${j}`;
    },
    async cleanup() {
      for (const t of temps.reverse()) await conn.run(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    },
  };
}
