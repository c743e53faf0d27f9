/** What the command-line tools in scripts/ share: usage errors, `--help`, and telling a stopped stack. */

/** A malformed command line: the tool prints the message and its usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--help` or `-h` anywhere: print the usage and exit 0. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--help' || a === '-h');
}

/** With `--help` or `-h` in `argv`: prints `usage` to stdout and answers true (the tool then stops, exit 0). */
export function printedHelp(argv: readonly string[], usage: string): boolean {
  if (!wantsHelp(argv)) return false;
  process.stdout.write(`${usage}\n`);
  return true;
}

/** True when the error (or one it wraps) is a refused or reset connection: no stack is running. */
export function isConnectionRefused(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET') return true;
  if (Array.isArray(e.errors) && e.errors.some(isConnectionRefused)) return true;
  return e.cause !== undefined && e.cause !== error && isConnectionRefused(e.cause);
}
