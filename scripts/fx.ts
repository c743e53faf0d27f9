/**
 * `npm run fx -- <command>`: the euro reference rates of the running local stack (or of any table
 * the environment points at), written with the service's own code (docs/currency.md).
 *
 *   load <file>     an ECB file: eurofxref-hist.csv, eurofxref.csv, eurofxref-daily.xml, -hist(-90d).xml
 *   fetch [url]     downloads and loads (default FX_RATES_URL, else the ECB daily XML; https only)
 *   status          the first and last stored publication days
 *
 * The DynamoDB endpoint is DYNAMODB_ENDPOINT, else `endpoints.dynamodb` of `<state-dir>/session.json`
 * (`--state-dir`, $LOCAL_STATE_DIR or .local); without either, the AWS default credential chain is
 * used with TABLE_NAME (a deployed table).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isConnectionRefused, printedHelp } from './lib/cli';
import { noStackMessage, pointAtTable, readStackSession } from './lib/stack-table';

const USAGE = [
  'usage: npm run fx -- load <file> [--state-dir DIR]   load an ECB rate file (CSV or XML)',
  '       npm run fx -- fetch [url] [--state-dir DIR]   download and load (default: the ECB daily XML)',
  '       npm run fx -- status [--state-dir DIR]        stored publication days',
].join('\n');

export class FxUsageError extends Error {
  override name = 'FxUsageError';
}

export type FxCommand =
  | { command: 'load'; file: string; stateDir: string }
  | { command: 'fetch'; url?: string; stateDir: string }
  | { command: 'status'; stateDir: string };

export function parseFxArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): FxCommand {
  const positional: string[] = [];
  let stateDir = env.LOCAL_STATE_DIR ?? '.local';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--state-dir' || a.startsWith('--state-dir=')) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!value) throw new FxUsageError('--state-dir needs a value');
      stateDir = value;
    } else if (a.startsWith('--')) throw new FxUsageError(`Unknown argument ${a}`);
    else positional.push(a);
  }
  const [command, arg, extra] = positional;
  if (extra !== undefined) throw new FxUsageError(`Unexpected argument ${extra}`);
  const dir = resolve(stateDir);
  if (command === 'load') {
    if (!arg) throw new FxUsageError('load needs a file');
    return { command, file: arg, stateDir: dir };
  }
  if (command === 'fetch') return { command, stateDir: dir, ...(arg ? { url: arg } : {}) };
  if (command === 'status' && arg === undefined) return { command, stateDir: dir };
  throw new FxUsageError(command ? `Unknown command ${command}` : 'A command is required');
}

function pointAtStack(stateDir: string): void {
  const session = readStackSession(stateDir);
  if (!session && !process.env.DYNAMODB_ENDPOINT && !process.env.TABLE_NAME)
    throw new Error(noStackMessage(stateDir));
  pointAtTable(session);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (printedHelp(argv, USAGE)) return;
  const args = parseFxArgs(argv);
  let text: string | undefined;
  if (args.command === 'load') {
    if (!existsSync(args.file) || !statSync(args.file).isFile()) throw new Error(`no file ${args.file}`);
    text = readFileSync(args.file, 'utf8');
  }
  pointAtStack(args.stateDir);
  const fx = await import('../shared/domain/fx/service');
  if (args.command === 'status') {
    const range = await fx.storedRateRange();
    process.stdout.write(`${JSON.stringify(range)}\n`);
    return;
  }
  const summary =
    args.command === 'load'
      ? await fx.loadRates(text!)
      : await (await import('../shared/domain/fx/fetch')).fetchAndLoadRates(
          args.url ?? process.env.FX_RATES_URL ?? fx.DEFAULT_FX_URL,
        );
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.stderr.write(
    `loaded ${summary.days} day(s) ${summary.from} … ${summary.to}, ${summary.currencies.length} currencies, from ${summary.source}\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const e = error as { name?: string; message?: string; status?: number } | null;
    if (isConnectionRefused(error))
      process.stderr.write(
        `npm run fx: cannot reach DynamoDB at ${process.env.DYNAMODB_ENDPOINT ?? 'its endpoint'}: is the stack running (npm start)?\n`,
      );
    else if (e?.name === 'FxUsageError') process.stderr.write(`${e.message}\n${USAGE}\n`);
    else process.stderr.write(`npm run fx: ${e?.message ?? String(error)}\n`);
    process.exit(1);
  });
}
