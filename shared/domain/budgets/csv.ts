import { BadRequestError } from '../../errors';
import type { Budget, BudgetLine } from '../../model/budgets';
import { monthIndex, monthOf } from './rules';
import { MONTH_PATTERN } from './schemas';

/**
 * The lines × months grid as CSV (RFC 4180): a header `value,owner,<YYYY-MM>…` (every month from
 * `startMonth` to the last month holding an amount), one row per line; an empty cell is a month
 * without an amount, an empty `value` the total line (budgets without `groupBy`).
 */
export function budgetCsv(budget: Pick<Budget, 'startMonth' | 'lines'>): string {
  const first = monthIndex(budget.startMonth);
  const last = Math.max(first, ...budget.lines.flatMap((l) => Object.keys(l.amounts).map(monthIndex)));
  const months = Array.from({ length: last - first + 1 }, (_, i) => monthOf(first + i));
  const rows = [
    ['value', 'owner', ...months],
    ...budget.lines.map((l) => [
      defuse(l.value ?? ''),
      defuse(l.owner ?? ''),
      ...months.map((m) => (l.amounts[m] === undefined ? '' : String(l.amounts[m]))),
    ]),
  ];
  return `${rows.map((r) => r.map(quote).join(',')).join('\r\n')}\r\n`;
}

/**
 * CSV injection: a text cell a spreadsheet would read as a formula (it starts with `=`, `+`, `-`,
 * `@`, a tab or a CR) is written with a leading `'`, which spreadsheets show as text; the import
 * takes that `'` off again, so an export imports back unchanged.
 */
const FORMULA_LEAD = /^[=+\-@\t\r]/;
export function defuse(cell: string): string {
  return FORMULA_LEAD.test(cell) ? `'${cell}` : cell;
}
/** The import's inverse of `defuse`. */
export function undefuse(cell: string): string {
  return cell.startsWith("'") && FORMULA_LEAD.test(cell.slice(1)) ? cell.slice(1) : cell;
}

function quote(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** `A`, `B`, … `Z`, `AA`: the spreadsheet name of a 0-based column. */
export function columnName(index: number): string {
  let n = index + 1;
  let name = '';
  while (n > 0) {
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}

/** RFC 4180 records: quoted fields may hold commas, quotes (doubled) and line breaks. */
export function parseCsvRecords(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new BadRequestError('Invalid CSV: a quoted cell is not closed');
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  return records.filter((r) => !(r.length === 1 && r[0] === ''));
}

const NUMBER = /^\d+(\.\d+)?$/;
/** At most this many bad cells are named in one answer. */
const MAX_NAMED = 20;

/**
 * The lines of an imported grid (`budgetCsv`'s layout; column order of the months is free). Every
 * bad cell is named with its row (1 = the header) and column (`C`), all in one 400:
 * `Invalid CSV: row 3, column D (2026-03): "abc" is not a number; …`.
 */
export function parseBudgetCsv(text: string): BudgetLine[] {
  const records = parseCsvRecords(text);
  const bad: string[] = [];
  const at = (row: number, col: number, what: string, message: string) =>
    bad.push(`row ${row + 1}, column ${columnName(col)}${what ? ` (${what})` : ''}: ${message}`);
  const header = records[0];
  if (!header) throw new BadRequestError('Invalid CSV: no header row (value,owner,YYYY-MM,…)');
  if (header[0]?.trim() !== 'value') at(0, 0, '', 'must be "value"');
  if (header[1]?.trim() !== 'owner') at(0, 1, '', 'must be "owner"');
  const months = header.slice(2).map((h) => h.trim());
  const seen = new Set<string>();
  months.forEach((m, i) => {
    if (!MONTH_PATTERN.test(m)) at(0, i + 2, '', `${JSON.stringify(m)} is not a month YYYY-MM`);
    else if (seen.has(m)) at(0, i + 2, '', `${m} appears twice`);
    seen.add(m);
  });
  const lines: BudgetLine[] = [];
  records.slice(1).forEach((record, r) => {
    const row = r + 1;
    if (record.length > header.length) at(row, header.length, '', 'is past the last column of the header');
    const amounts: Record<string, number> = {};
    months.forEach((m, i) => {
      const cell = (record[i + 2] ?? '').trim();
      if (cell === '') return;
      if (!NUMBER.test(cell))
        at(
          row,
          i + 2,
          m,
          `${JSON.stringify(cell.slice(0, 40))} is not a number (0 or more, "." for decimals)`,
        );
      else amounts[m] = Number(cell);
    });
    const value = undefuse((record[0] ?? '').trim());
    const owner = undefuse((record[1] ?? '').trim());
    lines.push({ value: value === '' ? null : value, owner: owner === '' ? null : owner, amounts });
  });
  if (bad.length) {
    const more = bad.length > MAX_NAMED ? `; and ${bad.length - MAX_NAMED} more` : '';
    throw new BadRequestError(`Invalid CSV: ${bad.slice(0, MAX_NAMED).join('; ')}${more}`);
  }
  if (!lines.length) throw new BadRequestError('Invalid CSV: no line under the header');
  return lines;
}
