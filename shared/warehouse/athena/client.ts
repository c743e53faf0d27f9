import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { awsClientLimits, config } from '../../config';

/**
 * Runs one Athena query in the configured workgroup and database and returns its rows, typed
 * from the result metadata (numeric types as numbers, everything else as text, NULL as null).
 */
export type AthenaRow = Record<string, string | number | null>;

export interface AthenaRunner {
  run(sql: string, params?: string[]): Promise<AthenaRow[]>;
}

const NUMERIC = new Set([
  'double',
  'float',
  'real',
  'bigint',
  'integer',
  'int',
  'smallint',
  'tinyint',
  'decimal',
]);

export class AthenaQueryError extends Error {
  override name = 'AthenaQueryError';
}

export interface AthenaOptions {
  client?: AthenaClient;
  workgroup?: string;
  database?: string;
  pollMs?: number;
  timeoutMs?: number;
}

let sharedClient: AthenaClient | undefined;

export function athenaRunner(opts: AthenaOptions = {}): AthenaRunner {
  const c = config();
  if (!opts.client && !sharedClient)
    sharedClient = new AthenaClient({ region: c.region, ...awsClientLimits() });
  const client = opts.client ?? (sharedClient as AthenaClient);
  const workgroup = opts.workgroup ?? c.athenaWorkgroup;
  const database = opts.database ?? c.glueDatabase;
  const pollMs = opts.pollMs ?? 250;
  const timeoutMs = opts.timeoutMs ?? 240_000;
  return {
    async run(sql, params = []) {
      const started = await client.send(
        new StartQueryExecutionCommand({
          QueryString: sql,
          ...(workgroup ? { WorkGroup: workgroup } : {}),
          ...(database ? { QueryExecutionContext: { Database: database } } : {}),
          ...(params.length ? { ExecutionParameters: params } : {}),
        }),
      );
      const id = started.QueryExecutionId;
      if (!id) throw new AthenaQueryError('Athena returned no query execution id');
      const deadline = Date.now() + timeoutMs;
      for (let wait = pollMs; ; wait = Math.min(wait * 2, 2000)) {
        const exec = await client.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
        const state = exec.QueryExecution?.Status?.State;
        if (state === 'SUCCEEDED') break;
        if (state === 'FAILED' || state === 'CANCELLED')
          throw new AthenaQueryError(
            `Athena query ${id} ${state}: ${exec.QueryExecution?.Status?.StateChangeReason ?? ''}`,
          );
        if (Date.now() > deadline) throw new AthenaQueryError(`Athena query ${id} did not finish in time`);
        await new Promise((r) => setTimeout(r, wait));
      }
      const rows: AthenaRow[] = [];
      let token: string | undefined;
      let columns: { name: string; numeric: boolean }[] | undefined;
      let first = true;
      do {
        const page = await client.send(
          new GetQueryResultsCommand({ QueryExecutionId: id, ...(token ? { NextToken: token } : {}) }),
        );
        columns ??= (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((ci) => ({
          name: ci.Name ?? '',
          numeric: NUMERIC.has((ci.Type ?? '').toLowerCase()),
        }));
        const data = page.ResultSet?.Rows ?? [];
        // The first row of a SELECT's first page repeats the column names.
        for (const [i, row] of data.entries()) {
          if (first && i === 0) continue;
          const out: AthenaRow = {};
          (row.Data ?? []).forEach((datum, j) => {
            const col = columns?.[j];
            if (!col) return;
            const raw = datum.VarCharValue;
            out[col.name] = raw === undefined ? null : col.numeric ? Number(raw) : raw;
          });
          rows.push(out);
        }
        first = false;
        token = page.NextToken;
      } while (token);
      return rows;
    },
  };
}
