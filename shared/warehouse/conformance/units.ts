import type { DatasetColumn } from '../focus-columns';
import { quoteLiteral } from '../sql/quote';
import { notNull, q, type Requirement } from './rules';

/**
 * The UnitFormat attribute (FOCUS 1.2 and 1.3, "Unit Format") as requirements of one column that
 * uses it. The columns only SHOULD conform to UnitFormat (`ConsumedUnit-C-003-O`,
 * `PricingUnit-C-003-O`, `CommitmentDiscountUnit-C-003-M`, `ContractCommitmentUnit`), so each of
 * the attribute's rules is reported as SHOULD for the column, its own keyword named in the
 * statement (docs/focus-conformance.md). Each rule is evaluated once per distinct value.
 */

/** The attribute's data size abbreviations (bits and bytes, decimal and binary, up to 10^18). */
export const DATA_SIZE_UNITS = [
  'b',
  'B',
  ...['K', 'M', 'G', 'T', 'P', 'E'].flatMap((p) => [`${p}b`, `${p}B`, `${p}ib`, `${p}iB`]),
] as const;
/** The attribute's recommended count-based units (singular; the plural adds `s`). */
export const COUNT_UNITS = [
  'Count',
  'Unit',
  'Request',
  'Token',
  'Connection',
  'Certificate',
  'Domain',
  'Core',
] as const;
/** The attribute's time-based units (singular; the plural adds `s`). */
export const TIME_UNITS = ['Year', 'Month', 'Day', 'Hour', 'Minute', 'Second'] as const;

const DATA = `(?:[KMGTPE]i?[bB]|[bB])`;
const WORD = `[A-Z][A-Za-z]*`;
const UNIT = `(?:${DATA}|${WORD})`;
const TIME = `(?:${TIME_UNITS.join('|')})`;
/**
 * The five forms: `<plural-units>`, `<singular-unit>-<plural-time-units>`,
 * `<plural-units>/<singular-time-unit>`, and with a whole quantity or interval
 * `<quantity> <plural-units>`, `<plural-units>/<interval> <plural-time-units>`.
 */
export const UNIT_FORMS = `(?:\\d+ )?${UNIT}(?:-${TIME}s|/${TIME}|/\\d+ ${TIME}s)?`;

const listed = [...DATA_SIZE_UNITS, ...[...COUNT_UNITS, ...TIME_UNITS].flatMap((u) => [u, `${u}s`])];
const literals = (values: readonly string[]) => `[${values.map(quoteLiteral).join(', ')}]`;
/** The words of a unit value (letters only). */
const words = (v: string) => `regexp_extract_all(${v}, '[A-Za-z]+')`;
const anyWord = (v: string, pred: (w: string) => string) =>
  `list_bool_or(list_transform(${words(v)}, w -> ${pred('w')}))`;

/** Predicates on one unit value `v` (not null), true when it breaks the rule. */
export const UNIT_RULES = {
  form: (v: string) => `NOT regexp_full_match(${v}, '${UNIT_FORMS}')`,
  quantity: (v: string) => `regexp_matches(${v}, '^\\d+ |/\\d+ ')`,
  wholeNumber: (v: string) => `regexp_matches(${v}, '(^|/)\\s*\\d*[.,]\\d+\\s')`,
  // A listed term in another capitalization ("hours", "HOURS", "gb"): the spelling of the
  // attribute's table is the only one allowed (data sizes: bit and byte differ by case).
  capitalization: (v: string) =>
    anyWord(
      v,
      (w) =>
        `list_contains(${literals([...new Set(listed.map((u) => u.toLowerCase()))])}, lower(${w})) AND NOT list_contains(${literals(listed)}, ${w})`,
    ),
  // Spelled-out data sizes ("gigabyte"), plural abbreviations ("GBs"), sizes beyond exa ("ZB"),
  // and "per" instead of "/" in a rate.
  recommended: (v: string) =>
    anyWord(
      v,
      (w) =>
        `regexp_full_match(${w}, '(?i)(kilo|mega|giga|tera|peta|exa|zetta|yotta|kibi|mebi|gibi|tebi|pebi|exbi|zebi|yobi)?(bit|byte)s?')` +
        ` OR regexp_full_match(${w}, '[KMGTPEZY]i?[bB]s|[ZY]i?[bB]') OR lower(${w}) = 'per'`,
    ),
};

/** Rows whose `column` value breaks `rule`, the rule evaluated once per distinct value. */
function byValue(column: DatasetColumn, rule: (v: string) => string) {
  return (table: string) =>
    `${q(column)} IN (SELECT v FROM (SELECT DISTINCT ${q(column)} AS v FROM ${table} WHERE ${notNull(column)}) WHERE ${rule('v')})`;
}

/** The fields of a requirement on `column`'s values alone (counted per distinct value by the checker). */
function onValues(column: DatasetColumn, rule: (v: string) => string, may = false) {
  return { perValue: { column, rule }, [may ? 'uses' : 'violates']: byValue(column, rule) };
}

/** The UnitFormat requirements of a column (ids: the attribute's, then `:` and the column). */
export function unitFormat(column: DatasetColumn): Requirement[] {
  const of = (id: string) => `${id}:${column}`;
  const base = { columns: [column] };
  return [
    {
      ...base,
      id: of('UnitFormat-A-001-M'),
      keyword: 'SHOULD',
      statement: `${column} SHOULD be expressed as a single unit of measure in one of the UnitFormat forms ("GB", "GB-Hours", "GB/Hour", "1000 Tokens", "Units/3 Months").`,
      ...onValues(column, UNIT_RULES.form),
    },
    {
      ...base,
      id: of('UnitFormat-A-002-O'),
      keyword: 'MAY',
      statement: `${column} MAY be expressed with a unit quantity or time interval ("1000 Tokens", "Units/3 Months").`,
      ...onValues(column, UNIT_RULES.quantity, true),
    },
    {
      ...base,
      id: of('UnitFormat-A-002-M'),
      keyword: 'SHOULD',
      statement: `A unit quantity or time interval in ${column} MUST be expressed as a whole number (UnitFormat; ${column} SHOULD conform to it).`,
      ...onValues(column, UNIT_RULES.wholeNumber),
    },
    {
      ...base,
      id: of('UnitFormat-A-003-M'),
      keyword: 'SHOULD',
      statement: `The terms of ${column} that UnitFormat lists MUST use its capitalization ("Hours", "GB", not "hours", "gb") (UnitFormat; ${column} SHOULD conform to it).`,
      ...onValues(column, UNIT_RULES.capitalization),
    },
    {
      ...base,
      id: of('UnitFormat-A-004-C'),
      keyword: 'SHOULD',
      statement: `${column} SHOULD be composed of the recommended units: data sizes abbreviated up to exa ("GB", not "gigabytes", "GBs" or "ZB"), "/" rather than "per".`,
      ...onValues(column, UNIT_RULES.recommended),
    },
  ];
}
