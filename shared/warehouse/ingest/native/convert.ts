import type { FocusColumn, ProviderCostColumn } from '../../focus-columns';
import { quoteIdent, quoteLiteral } from '../../sql/quote';

/**
 * What every native-format converter shares (../native.ts lists the formats, one file each here):
 * the header lookup, the converter's column record and the SQL text helpers.
 *
 * Provider-native billing exports are converted to FOCUS columns in DuckDB SQL, the way the FinOps
 * Foundation's FOCUS converters map them (our own SQL, not their code). Each format is recognised
 * from its header; its converter is a SELECT over the raw file (every cell text, empty cells NULL)
 * that yields FOCUS-named text columns, which the FOCUS reader (../normalise.ts) then types and
 * checks exactly as it does a FOCUS export. BilledCost is always the provider's own cost column,
 * passed through as written, so totals per day and per service are the provider's.
 */

/**
 * A file's header: columns looked up by name ignoring case, BOM and surrounding spaces. `names`
 * are the reader's column names; `labels` (same length, when known) the file's own spellings:
 * DuckDB renames a column whose name differs from an earlier one only in case (`user:Name`,
 * `user:name` → `user:name_1`), and AWS tag keys are case-sensitive, so tag keys come from labels.
 */
export class Header {
  private readonly byKey = new Map<string, string>();
  private readonly labelOf = new Map<string, string>();

  constructor(
    readonly names: readonly string[],
    labels?: readonly string[],
  ) {
    const usable = labels && labels.length === names.length ? labels : names;
    names.forEach((name, i) => {
      this.labelOf.set(name, usable[i]!);
      const key = Header.key(usable[i]!);
      if (!this.byKey.has(key)) this.byKey.set(key, name);
    });
  }

  private static key(name: string): string {
    return name
      .replace(/^\ufeff/, '')
      .trim()
      .toLowerCase();
  }

  /** The header's spelling of the first candidate it has. */
  name(...candidates: string[]): string | undefined {
    for (const c of candidates) {
      const found = this.byKey.get(Header.key(c));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  has(...candidates: string[]): boolean {
    return this.name(...candidates) !== undefined;
  }

  /** The first candidate column as a quoted identifier, or a typed NULL when the file has none. */
  col(...candidates: string[]): string {
    const found = this.name(...candidates);
    return found === undefined ? 'NULL::VARCHAR' : quoteIdent(found);
  }

  /**
   * Columns whose name starts with `prefix` (ignoring case), with the rest of the name exactly as
   * the file spells it (a tag key keeps its spaces and case: `tags/ns. team` → `ns. team`).
   */
  withPrefix(prefix: string): { name: string; rest: string }[] {
    const p = prefix.toLowerCase();
    return this.names
      .map((name) => ({ name, label: this.labelOf.get(name) ?? name }))
      .filter(({ label }) => Header.key(label).startsWith(p) && Header.key(label).length > p.length)
      .map(({ name, label }) => ({
        name,
        rest: label
          .replace(/^\ufeff/, '')
          .trimStart()
          .slice(prefix.length),
      }));
  }
}

/** What a converter yields: FOCUS (and provider `x_`) column → SQL text expression. */
export type Columns = Partial<Record<FocusColumn | ProviderCostColumn | typeof TAG_ENTRIES, string>> &
  Record<`x_${string}`, string>;

/**
 * The column a converter may give instead of `Tags`: the tags as a list of `{key, value}` structs,
 * which the reader takes as they are (no JSON text to write and parse again).
 */
export const TAG_ENTRIES = '__tag_entries';

export type NativeFormatId = 'aws-cur-1' | 'aws-cur-2' | 'azure' | 'gcp' | 'oci';

export interface NativeFormat {
  id: NativeFormatId;
  /** How messages and docs name it. */
  label: string;
  /**
   * The columns that recognise it, each a list of accepted spellings: a header holding one of each
   * is this format. A header holding most of them (not all) resembles it (`resemblance`).
   */
  signature: readonly (readonly string[])[];
  /** The converting SELECT over `from` (a table expression of the raw file) and its columns. */
  convert(h: Header, from: string): Converted;
}

export const num = (c: string) => `TRY_CAST(${c} AS DOUBLE)`;
export const text = (expr: string) => `CAST(${expr} AS VARCHAR)`;
export const lit = quoteLiteral;
export const inList = (values: readonly string[]) => values.map(lit).join(', ');

export interface Converted {
  sql: string;
  /** The names of its columns: FOCUS columns and provider `x_` columns. */
  columns: string[];
}

export function select(columns: Columns, from: string): Converted {
  const list = Object.entries(columns).map(([name, expr]) => `${expr} AS ${quoteIdent(name)}`);
  return { sql: `SELECT ${list.join(',\n  ')} FROM ${from}`, columns: Object.keys(columns) };
}

/** Tag entries from one column per tag key (`resourceTags/user:team`, `tags/ns.key`): none when there are none. */
export function tagColumns(pairs: { key: string; col: string }[]): Columns {
  if (!pairs.length) return {};
  const list = pairs.map((p) => `{'key': ${lit(p.key)}, 'value': ${p.col}}`).join(', ');
  return { [TAG_ENTRIES]: `list_filter([${list}], e -> e.value IS NOT NULL)` };
}

/**
 * US-style dates as Azure writes them (`9/2/2023`), and as a spreadsheet saves them again
 * (`9/2/2023 12:00:00 AM`, `09/02/2023 00:00:00`): DuckDB `strptime` formats, tried in turn.
 */
export const US_DATE_FORMATS = `['%m/%d/%Y', '%m/%d/%Y %I:%M:%S %p', '%m/%d/%Y %H:%M:%S', '%m/%d/%Y %H:%M']`;

/** An ISO-like date-time text (`2023-11-01T00:00:00Z`, `2025-01-01 08:00:00+00:00`) as an instant. */
export const isoInstant = (c: string) => `TRY_CAST(${c} AS TIMESTAMPTZ)`;

/**
 * ChargeClass of a line: "Correction" when its charge period starts in a month before its billing
 * period's (a charge of a previously invoiced period billed again, corrected, in a later one), else
 * null. Both are instants (SQL expressions); every native format bills by the calendar month.
 */
export const correctionWhenEarlier = (chargeStart: string, billingStart: string) =>
  `CASE WHEN date_trunc('month', ${chargeStart}) < date_trunc('month', ${billingStart}) THEN 'Correction' END`;

/** The day a month ends (exclusive), as text, from the text of its first day (`2023-11-01` → `2023-12-01`). */
export const monthAfter = (start: string) =>
  text(`CAST(TRY_CAST(${start} AS DATE) + INTERVAL 1 MONTH AS DATE)`);

/** First day of the month of an ISO-like date-time text (`2023-11-13T05:00Z` → `2023-11-01`). */
export const monthStart = (c: string) =>
  `CASE WHEN regexp_matches(${c}, '^\\d{4}-\\d{2}') THEN left(${c}, 7) || '-01' END`;
/**
 * What an export says of a commitment's terms, as `x_Commitment…` columns on the lines that name
 * the commitment (kept in `x_columns`, so they are replaced with the upload that carries them):
 * term, start, end, purchase (payment) option, hourly commitment, region, instance family. Only
 * the columns the file has; a commitment's terms are those of its latest line.
 */
export const COMMITMENT_TERMS = [
  'x_CommitmentTerm',
  'x_CommitmentStart',
  'x_CommitmentEnd',
  'x_CommitmentPurchaseOption',
  'x_CommitmentHourly',
  'x_CommitmentRegion',
  'x_CommitmentInstanceFamily',
] as const;
export type CommitmentTerm = (typeof COMMITMENT_TERMS)[number];

export function termColumns(when: string, pick: Record<CommitmentTerm, string | undefined>): Columns {
  const out: Columns = {};
  for (const name of COMMITMENT_TERMS) {
    const expr = pick[name];
    if (expr !== undefined) out[name] = `CASE WHEN ${when} THEN ${text(expr)} END`;
  }
  return out;
}
