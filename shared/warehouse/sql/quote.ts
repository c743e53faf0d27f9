/**
 * The only places SQL text is built from values. Values normally travel as bound parameters; the
 * few statements that cannot take parameters (view definitions, Athena DDL) inline literals
 * through `quoteLiteral`, and every identifier goes through `quoteIdent`.
 */
export class UnsafeSqlValueError extends Error {
  override name = 'UnsafeSqlValueError';
}

/** A double-quoted identifier; embedded quotes are doubled, control characters refused. */
export function quoteIdent(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (!name || /[\u0000-\u001f]/.test(name) || name.length > 255) {
    throw new UnsafeSqlValueError(`invalid identifier ${JSON.stringify(name)}`);
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A single-quoted SQL string literal: quotes doubled, NUL refused. Standard SQL (DuckDB, Trino)
 * has no backslash escapes in plain string literals, so doubling the quote is the whole escape.
 */
export function quoteLiteral(value: string): string {
  if (value.includes('\u0000')) throw new UnsafeSqlValueError('string values may not contain NUL');
  if (value.length > 100_000) throw new UnsafeSqlValueError('string value too long');
  return `'${value.replaceAll("'", "''")}'`;
}

/** Identifiers we generate ourselves (`d_…`, `v_…`): a strict pattern, checked anyway. */
export function safeName(name: string): string {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new UnsafeSqlValueError(`unsafe generated name ${name}`);
  return name;
}
