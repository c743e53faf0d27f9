/** RFC 4180 text of generated exports, for the suites that write the files they ingest. */
export type Cell = string | number | null | undefined;

/** One cell: empty for null or undefined, quoted when it holds a comma, a quote or a line break. */
export function csvCell(v: Cell): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The header and rows as lines ended by `eol` (the last one too), then `trailer`. */
export function csvTable(
  header: readonly string[],
  rows: readonly Cell[][],
  eol = '\n',
  trailer = '',
): string {
  return `${[header, ...rows].map((r) => r.map(csvCell).join(',')).join(eol)}${eol}${trailer}`;
}
