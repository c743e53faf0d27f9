import type { DuckDBConnection } from '@duckdb/node-api';
import { duckTimestamp, query } from '../duckdb/database';
import {
  BILLING_COLUMNS,
  FOCUS_COLUMN_TYPES,
  type FocusColumn,
  focusColumnOf,
  PROVIDER_ALIASES,
  PROVIDER_COST_COLUMNS,
  type ProviderCostColumn,
  REQUIRED_COLUMNS,
} from '../focus-columns';
import { quoteIdent, quoteLiteral } from '../sql/quote';
import { IngestRejected } from './errors';
import { ACCEPTED_FORMATS, type BillingFormat, nativeFormatOf, resemblance } from './native';
import { Header, type NativeFormat, TAG_ENTRIES, US_DATE_FORMATS } from './native/convert';
import { GCP_FIELDS, gcpJsonLines } from './native/gcp';
import { csvHeaderNames, type FileFormat, firstJsonRecord, jsonFieldNames, sniffFormat } from './sniff';

/**
 * Reads one FOCUS export (CSV, gzipped CSV or Parquet) into a temporary DuckDB table in the
 * billing schema, handling what real exports do: `NULL` or empty cells, timestamps with or
 * without `T` and zone (zoneless means UTC), `Tags` as a JSON object (or the braces-less form
 * some Azure exports write), provider `x_` columns, long decimals and provider name spellings.
 * A file that cannot be read faithfully is refused with a MalformedFileError naming the row and
 * column; nothing is written anywhere in that case.
 */
export class MalformedFileError extends Error {
  override name = 'MalformedFileError';
  /** The format the file was detected as, when the error came after detection. */
  format?: BillingFormat;
  constructor(
    message: string,
    readonly row?: number,
    readonly column?: string,
  ) {
    super(message);
  }
}

export type { FileFormat } from './sniff';

/** FOCUS enumerations whose casing varies between exports (`Usage-based` vs `Usage-Based`). */
const CANONICAL_VALUES: Partial<Record<FocusColumn, readonly string[]>> = {
  ChargeCategory: ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'],
  ChargeClass: ['Correction'],
  ChargeFrequency: ['One-Time', 'Recurring', 'Usage-Based'],
  PricingCategory: ['Standard', 'Dynamic', 'Committed', 'Other'],
  CommitmentDiscountCategory: ['Spend', 'Usage'],
  CommitmentDiscountStatus: ['Used', 'Unused'],
};

const TIMESTAMP_FIX = String.raw`'^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(Z|[+-]\d{2}:?\d{2})?$'`;

/**
 * Text of a raw cell, with `NULL`/`null` and empty strings read as NULL. Values are not trimmed
 * (exports do not pad them, and trimming every cell of every row costs a quarter of the
 * ingestion time); numbers and timestamps tolerate surrounding spaces. Tag keys are kept exactly as
 * exported (no trimming, no case folding): `" team"` and `team` are two keys.
 */
function text(col: string): string {
  return `CASE WHEN ${col} IN ('', 'NULL', 'null') THEN NULL ELSE ${col} END`;
}

/** True for a cell that holds something (not blank, not a NULL token): evaluated only on failed parses. */
function filled(c: string): string {
  return `trim(${c}) NOT IN ('', 'NULL', 'null')`;
}

/**
 * Timestamps: ISO with or without `T`, zone or fractional seconds; minutes-only (`05:00Z`, as OCI
 * writes); `M/D/YYYY` (Azure EA), also with a time as spreadsheets save it. The session time zone
 * is UTC, so zoneless values mean UTC.
 */
export function timestamp(c: string): string {
  return `coalesce(TRY_CAST(${c} AS TIMESTAMPTZ), TRY_CAST(regexp_replace(${c}, ${TIMESTAMP_FIX}, '\\1 \\2:00\\3') AS TIMESTAMPTZ), TRY_CAST(TRY_STRPTIME(${c}, ${US_DATE_FORMATS}) AS TIMESTAMPTZ))::TIMESTAMP`;
}

function caseMap(expr: string, pairs: [string, string][]): string {
  if (!pairs.length) return expr;
  const whens = pairs.map(([from, to]) => `WHEN ${quoteLiteral(from)} THEN ${quoteLiteral(to)}`).join(' ');
  return `CASE lower(${expr}) ${whens} ELSE ${expr} END`;
}

interface Mapping {
  /** FOCUS column → quoted raw column. */
  focus: Map<FocusColumn, string>;
  /** Typed provider cost column → quoted raw column. */
  providerCosts: Map<ProviderCostColumn, string>;
  /** Other `x_` columns: header → quoted raw column. */
  extras: [string, string][];
  /** A converter's tags as a list of `{key, value}` (see TAG_ENTRIES), instead of a Tags text column. */
  tagEntries?: string;
  /** FOCUS columns the file does not have, read from another of its columns (DEPRECATED_FROM). */
  derived: Set<FocusColumn>;
}

/**
 * FOCUS 1.3 deprecates ProviderName and PublisherName for ServiceProviderName (the entity that
 * makes the services available: the seller in a marketplace, as PublisherName was). A 1.3 file
 * that leaves the deprecated columns out has them read from ServiceProviderName, so old and new
 * files answer the same `provider` and `publisher` dimensions.
 */
const DEPRECATED_FROM: [FocusColumn, FocusColumn][] = [
  ['ProviderName', 'ServiceProviderName'],
  ['PublisherName', 'ServiceProviderName'],
];

function mapHeader(headers: string[]): Mapping {
  const focus = new Map<FocusColumn, string>();
  const providerCosts = new Map<ProviderCostColumn, string>();
  const extras: [string, string][] = [];
  let tagEntries: string | undefined;
  const costByKey = new Map<string, ProviderCostColumn>(
    Object.entries(PROVIDER_COST_COLUMNS).map(([col, key]) => [key, col as ProviderCostColumn]),
  );
  for (const header of headers) {
    const name = header.trim();
    const quoted = quoteIdent(header);
    if (name === TAG_ENTRIES) {
      tagEntries = quoted;
      continue;
    }
    const col = focusColumnOf(name);
    if (col) {
      if (!focus.has(col)) focus.set(col, quoted);
      continue;
    }
    if (/^x_/i.test(name)) {
      const cost = costByKey.get(name.slice(2).replaceAll('_', '').toLowerCase());
      if (cost && !providerCosts.has(cost)) providerCosts.set(cost, quoted);
      else extras.push([name, quoted]);
    }
    // Any other non-FOCUS column (such as the sample's `Id`) is not part of the schema and is dropped.
  }
  const derived = new Set<FocusColumn>();
  for (const [column, from] of DEPRECATED_FROM) {
    const raw = focus.get(from);
    if (raw && !focus.has(column)) {
      focus.set(column, raw);
      derived.add(column);
    }
  }
  return { focus, providerCosts, extras, derived, ...(tagEntries ? { tagEntries } : {}) };
}

/** Tags from `__te` (keys as exported): empty keys and values dropped, the first of an exactly repeated key kept. */
const TAGS_FROM_ENTRIES = `coalesce(map_from_entries(list_filter(__te, (e, i) -> e.key <> '' AND e.value IS NOT NULL AND e.value <> '' AND list_position(list_transform(__te, k -> k.key), e.key) = i)), MAP {}::MAP(VARCHAR, VARCHAR))`;

interface Layered {
  /** The SELECT that stages the file: typed billing columns plus `__bad` (first unreadable column). */
  sql: (from: string) => string;
  /** Over a raw copy of the file: `__rowid` and `col`, the first unreadable column of the row. */
  badOverRaw: (table: string) => string;
}

/**
 * Builds the staging SELECT in layers so each cell is cleaned and parsed once: (1) the raw cells
 * as cleaned text `c<i>`; (2) typed values `t<i>` and the Tags JSON; (3) the billing columns and
 * the `__bad` marker, which compares each typed value with its text.
 */
function layered(m: Mapping, converted = false): Layered {
  const raws: string[] = [];
  const cleanOf = new Map<string, string>();
  const clean = (raw: string) => {
    let c = cleanOf.get(raw);
    if (!c) {
      c = `c${raws.length}`;
      raws.push(raw);
      cleanOf.set(raw, c);
    }
    return c;
  };
  const typed: string[] = [];
  const finals: string[] = [];
  const bads: { column: string; expr: string }[] = [];
  let tagsClean: string | undefined;
  for (const { name, type } of BILLING_COLUMNS) {
    const out = quoteIdent(name);
    if (name === 'org_id') finals.push(`$1::VARCHAR AS ${out}`);
    else if (name === 'billing_month') finals.push(`strftime(coalesce(t_bps, t_cps), '%Y-%m') AS ${out}`);
    else if (name === 'source_file') finals.push(`$2::VARCHAR AS ${out}`);
    else if (name === 'ingested_at') finals.push(`CAST($4 AS TIMESTAMP) AS ${out}`);
    else if (name === 'x_columns') {
      const list = m.extras.map(([h, q]) => `{'key': ${quoteLiteral(h)}, 'value': ${clean(q)}}`).join(', ');
      finals.push(
        m.extras.length
          ? `map_from_entries(list_filter([${list}], e -> e.value IS NOT NULL)) AS ${out}`
          : `MAP {}::MAP(VARCHAR, VARCHAR) AS ${out}`,
      );
    } else {
      const raw =
        name in PROVIDER_COST_COLUMNS
          ? m.providerCosts.get(name as ProviderCostColumn)
          : m.focus.get(name as FocusColumn);
      const t = type;
      if (t === 'tags' && !raw && m.tagEntries) {
        finals.push(`${TAGS_FROM_ENTRIES} AS ${out}`);
        continue;
      }
      if (!raw) {
        const nulls = { string: 'VARCHAR', number: 'DOUBLE', timestamp: 'TIMESTAMP', json: 'VARCHAR' };
        finals.push(t === 'tags' ? `MAP {}::MAP(VARCHAR, VARCHAR) AS ${out}` : `NULL::${nulls[t]} AS ${out}`);
        continue;
      }
      const c = clean(raw);
      if (t === 'number' || t === 'timestamp') {
        const tv = `t${typed.length}`;
        typed.push(`${t === 'number' ? `TRY_CAST(${c} AS DOUBLE)` : timestamp(c)} AS ${tv}`);
        finals.push(`${tv} AS ${out}`);
        const required = name === 'BilledCost' || name === 'ChargePeriodStart';
        bads.push({
          column: name,
          expr: required ? `${tv} IS NULL` : `(${tv} IS NULL AND ${c} IS NOT NULL AND ${filled(c)})`,
        });
        if (name === 'BillingPeriodStart') typed.push(`${tv} AS t_bps`);
        if (name === 'ChargePeriodStart') typed.push(`${tv} AS t_cps`);
      } else if (t === 'tags') {
        tagsClean = c;
        finals.push(`${TAGS_FROM_ENTRIES} AS ${out}`);
        bads.push({
          column: name,
          expr: `(__tj IS NOT NULL AND (__tjson IS NULL OR json_type(__tjson) <> 'OBJECT'))`,
        });
      } else if (name === 'ProviderName') {
        finals.push(`${caseMap(c, Object.entries(PROVIDER_ALIASES))} AS ${out}`);
      } else {
        const canon = CANONICAL_VALUES[name as FocusColumn];
        finals.push(
          `${
            canon
              ? caseMap(
                  c,
                  canon.map((v) => [v.toLowerCase(), v]),
                )
              : c
          } AS ${out}`,
        );
      }
    }
  }
  if (!typed.some((t) => t.endsWith(' AS t_bps'))) typed.push('NULL::TIMESTAMP AS t_bps');
  if (!typed.some((t) => t.endsWith(' AS t_cps'))) typed.push('NULL::TIMESTAMP AS t_cps');
  // Tags: braces added when the export left them out; parsed once; keys exactly as exported.
  const tj = tagsClean
    ? `CASE WHEN ${tagsClean} IS NULL THEN NULL WHEN starts_with(${tagsClean}, '{') THEN ${tagsClean} ELSE '{' || ${tagsClean} || '}' END`
    : 'NULL::VARCHAR';
  const badCase = bads.length
    ? `CASE ${bads.map((b) => `WHEN ${b.expr} THEN ${quoteLiteral(b.column)}`).join(' ')} ELSE NULL END`
    : 'NULL::VARCHAR';
  const entries = m.tagEntries && !tagsClean ? `, ${m.tagEntries} AS __tagent` : '';
  const layer1 = (from: string, keep: string) =>
    `SELECT ${keep}${raws.length ? raws.map((r, i) => `${converted ? r : text(r)} AS c${i}`).join(', ') : '1 AS c_none'}${entries} FROM ${from}`;
  const te = entries ? '__tagent' : 'map_entries(TRY_CAST(__tjson AS MAP(VARCHAR, VARCHAR)))';
  const layer2 = (from: string, keep: string) =>
    `SELECT *, ${typed.length ? `${typed.join(', ')}, ` : ''}TRY_CAST(__tj AS JSON) AS __tjson FROM (SELECT *, ${tj} AS __tj FROM (${layer1(from, keep)}))`;
  const layer3 = (from: string, keep = '') => `SELECT *, ${te} AS __te FROM (${layer2(from, keep)})`;
  return {
    sql: (from) => `SELECT ${finals.join(',\n  ')},\n  ${badCase} AS __bad FROM (${layer3(from)})`,
    badOverRaw: (table) =>
      `SELECT __rowid, ${badCase} AS col FROM (${layer3(`(SELECT rowid AS __rowid, * FROM ${table})`, '__rowid, ')})`,
  };
}

function source(format: FileFormat, p: string): string {
  if (format === 'parquet') return `read_parquet(${p})`;
  const compression = format.endsWith('.gz') ? 'gzip' : 'none';
  if (format.startsWith('jsonl')) return gcpJsonLines(p, compression === 'gzip' ? 'gzip' : 'uncompressed');
  return `read_csv(${p}, all_varchar = true, header = true, nullstr = ['NULL', ''], compression = '${compression}', max_line_size = 10000000)`;
}

/** A Parquet file's columns as text, the way a CSV would give them (Tags maps and structs as JSON). */
async function parquetAsText(conn: DuckDBConnection, path: string, p: string): Promise<string> {
  const described = await query(conn, 'DESCRIBE SELECT * FROM read_parquet($1)', [path]);
  const cols = described.map((d) => {
    const name = String(d.column_name);
    const type = String(d.column_type);
    const q = quoteIdent(name);
    if (/^(MAP|STRUCT)/.test(type) || type.endsWith('[]')) return `to_json(${q})::VARCHAR AS ${q}`;
    if (type.startsWith('TIMESTAMP')) return `strftime(${q}::TIMESTAMP, '%Y-%m-%d %H:%M:%S') AS ${q}`;
    return `NULLIF(${q}::VARCHAR, '') AS ${q}`;
  });
  return `(SELECT ${cols.join(', ')} FROM read_parquet(${p}))`;
}

/** The file as a table expression of text cells (Parquet values as CSV would give them), reading the path from parameter `p`. */
export function textReader(
  conn: DuckDBConnection,
  path: string,
  format: FileFormat,
): (p: string) => Promise<string> {
  return (p) => (format === 'parquet' ? parquetAsText(conn, path, p) : Promise.resolve(source(format, p)));
}

/** An engine error as one line for a person: its first line, without the local file path. */
export function describeError(error: unknown, path?: string): string {
  const message = (error as Error)?.message ?? String(error);
  let line = (message.split('\n').find((l) => l.trim()) ?? '').replace(/^([A-Za-z ]+Error: )+/, '').trim();
  if (path) line = line.replaceAll(path, 'the file');
  line = line.replace(/(?<![\w.])(["'])?\/[^\s"']*\/[^\s"']+\1?/g, 'the file');
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

let rawCounter = 0;

/** A file opened for ingestion: its header checked, its staging SELECT built. */
export interface OpenedFile {
  path: string;
  format: FileFormat;
  /** The provider-native format converted to FOCUS, when the file is not FOCUS itself. */
  native?: NativeFormat;
  /** The file as a table expression reading the path from parameter `p`. */
  from(p: string): Promise<string>;
  built: Layered;
  mapping: Mapping;
}

/** The refusal of a header that resembles a native format but lacks some of its signature columns. */
function lacksFormatColumns(like: { format: NativeFormat; missing: string[] }): IngestRejected {
  const many = like.missing.length > 1;
  return new IngestRejected(
    `The file resembles the ${like.format.label} format but lacks its column${many ? 's' : ''} ${like.missing.join(', ')}, ` +
      `which that format always has: export it again with ${many ? 'these columns' : 'this column'} (or upload a FOCUS export); ${ACCEPTED_FORMATS}.`,
    { code: 'MISSING_FORMAT_COLUMN', column: like.missing[0] as string },
  );
}

/**
 * Opens `path` for ingestion: detects the format from its bytes and its header (FOCUS, or a
 * provider-native export converted to FOCUS by ./native.ts) and checks the required columns.
 * Throws IngestRejected for an empty, binary or unrecognised file, and MalformedFileError for a
 * FOCUS file that lacks a required column or cannot be read.
 */
export async function openBillingFile(conn: DuckDBConnection, path: string): Promise<OpenedFile> {
  const format = sniffFormat(path);
  const raw = textReader(conn, path, format);
  let headers: string[];
  if (format === 'jsonl' || format === 'jsonl.gz') {
    const fields = new Header(jsonFieldNames(firstJsonRecord(path, format)));
    const like = resemblance(fields);
    if (nativeFormatOf(fields)?.id !== 'gcp' && like?.format.id === 'gcp') throw lacksFormatColumns(like);
    if (nativeFormatOf(fields)?.id !== 'gcp')
      throw new IngestRejected(
        `The file is JSON lines but not a Google Cloud BigQuery billing export; ${ACCEPTED_FORMATS}.`,
      );
    headers = [...GCP_FIELDS];
  } else {
    try {
      const described = await query(conn, `DESCRIBE SELECT * FROM ${await raw('$1')}`, [path]);
      headers = described.map((d) => String(d.column_name));
    } catch (error) {
      throw new MalformedFileError(
        `The file is not a readable ${format} file: ${describeError(error, path)}`,
      );
    }
  }
  let mapping = mapHeader(headers);
  const missing = REQUIRED_COLUMNS.filter((c) => !mapping.focus.has(c));
  if (!missing.length) return { path, format, from: raw, built: layered(mapping), mapping };
  const header = new Header(
    headers,
    format === 'csv' || format === 'csv.gz' ? csvHeaderNames(path, format) : undefined,
  );
  const native = nativeFormatOf(header);
  if (!native) {
    if (mapping.focus.size >= 3)
      throw new MalformedFileError(
        `Missing required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (the header has ${headers.length} columns and reads as FOCUS; ${ACCEPTED_FORMATS})`,
        undefined,
        missing[0],
      );
    const like = resemblance(header);
    if (like) throw lacksFormatColumns(like);
    throw new IngestRejected(
      `The file is not a billing export this service reads (its header matches none of the known formats); ${ACCEPTED_FORMATS}.`,
    );
  }
  const converted = native.convert(header, '__raw');
  mapping = mapHeader(converted.columns);
  const from = async (p: string) => `(${native.convert(header, await raw(p)).sql})`;
  return { path, format, native, from, built: layered(mapping, true), mapping };
}

let lastMarker = 0;

/**
 * A timestamp unique to one ingestion in this process, stored as `ingested_at` on its rows, so
 * the rows it wrote can be told from older rows of the same months.
 */
export function ingestionMarker(now = Date.now()): string {
  lastMarker = Math.max(now, lastMarker + 1);
  return duckTimestamp(new Date(lastMarker));
}

const MALFORMED = '__malformed_row__';

/**
 * One INSERT … SELECT of the whole file into `table` (params: org, source name, path, marker).
 * A row with an unreadable value makes the statement fail (DuckDB `error()`), so the caller's
 * transaction rolls back and `explainFailure` then names the row and column.
 */
export async function insertSql(file: OpenedFile, table: string): Promise<string> {
  return `INSERT INTO ${table} SELECT * EXCLUDE (__bad) FROM (${file.built.sql(await file.from('$3'))}) WHERE CASE WHEN __bad IS NOT NULL THEN error('${MALFORMED}') ELSE TRUE END`;
}

/**
 * Turns a failed insert into the MalformedFileError it stands for: the first unreadable cell
 * (slow path, in file order) or the reader's own complaint. Errors that have nothing to do with
 * the file (I/O of the database, conflicts) are returned unchanged.
 */
export async function explainFailure(
  conn: DuckDBConnection,
  file: OpenedFile,
  error: unknown,
): Promise<unknown> {
  const message = (error as Error)?.message ?? '';
  if (message.includes(MALFORMED))
    return locateFirstBadRow(conn, await file.from('$1'), file.built, file.mapping, file.path);
  if (/CSV|Parquet|Conversion|Invalid Input|sniff|read_csv|unterminated|quote/i.test(message))
    return new MalformedFileError(`The file could not be read: ${describeError(error, file.path)}`);
  return error;
}

/**
 * The slow path, only for a file already known to be malformed: copy it in file order (DuckDB
 * keeps insertion order, so `rowid` is the data row number) and report the first bad cell.
 */
export async function locateFirstBadRow(
  conn: DuckDBConnection,
  from: string,
  built: Layered,
  m: Mapping,
  path: string,
): Promise<MalformedFileError> {
  const raw = `raw_${++rawCounter}`;
  await query(conn, `CREATE OR REPLACE TEMP TABLE ${raw} AS SELECT * FROM ${from}`, [path]);
  try {
    const [found] = await query(
      conn,
      `SELECT (__rowid + 1)::INT AS row, col FROM (${built.badOverRaw(raw)}) WHERE col IS NOT NULL ORDER BY __rowid LIMIT 1`,
    );
    if (!found) return new MalformedFileError('The file holds a value that cannot be read');
    const row = Number(found.row);
    const column = String(found.col);
    const rawCol =
      m.focus.get(column as FocusColumn) ?? m.providerCosts.get(column as ProviderCostColumn) ?? undefined;
    let value: unknown = null;
    if (rawCol) {
      const [cell] = await query(conn, `SELECT ${rawCol}::VARCHAR AS v FROM ${raw} WHERE rowid = $1`, [
        row - 1,
      ]);
      value = cell?.v ?? null;
    }
    const type = column in FOCUS_COLUMN_TYPES ? FOCUS_COLUMN_TYPES[column as FocusColumn] : 'number';
    const what =
      value === null || String(value).trim() === '' || String(value).trim().toUpperCase() === 'NULL'
        ? 'is empty, but every row needs a value'
        : `${JSON.stringify(String(value).slice(0, 80))} is not ${
            type === 'number' ? 'a number' : type === 'timestamp' ? 'a date-time' : 'a JSON object'
          }`;
    return new MalformedFileError(`Row ${row} (line ${row + 1}), column ${column}: ${what}`, row, column);
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${raw}`);
  }
}
