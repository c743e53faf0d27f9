import { resolve } from 'node:path';
import { printedHelp } from './cli';
import { noStackMessage, pointAtTable, readStackSession } from './stack-table';

/**
 * The frame of a one-off migration script (`scripts/migrate-*.ts`): `--help`, `--state-dir DIR`
 * (anything else is a usage error, exit 2), the table of the running stack or of the environment
 * (exit 1 with one sentence when there is none), then `run`, whose result is printed as one JSON
 * line; exit 1 when it reports failures or throws. `run` imports the repository code itself, after
 * the table is chosen (the shared DynamoDB client reads the configuration on first use).
 */
export function runMigration<T>(
  name: string,
  usage: string,
  run: () => Promise<T>,
  failed: (result: T) => boolean = () => false,
): void {
  const main = async (): Promise<void> => {
    const argv = process.argv.slice(2);
    if (printedHelp(argv, usage)) return;
    const stateDir = stateDirOf(argv, name, usage);
    const session = readStackSession(stateDir);
    if (!session && !process.env.DYNAMODB_ENDPOINT && !process.env.TABLE_NAME) {
      process.stderr.write(`${name}: ${noStackMessage(stateDir)}\n`);
      process.exit(1);
    }
    pointAtTable(session);
    const result = await run();
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (failed(result)) process.exitCode = 1;
  };
  main().catch((error) => {
    process.stderr.write(`${name}: ${String(error?.stack ?? error)}\n`);
    process.exit(1);
  });
}

/** `--state-dir DIR` or `--state-dir=DIR`; anything else is a usage error (exit 2). */
function stateDirOf(argv: string[], name: string, usage: string): string {
  let dir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = String(argv[i]);
    if (a.startsWith('--state-dir=')) dir = a.slice('--state-dir='.length);
    else if (a === '--state-dir' && argv[i + 1]) dir = argv[++i];
    else {
      process.stderr.write(`${name}: unknown argument ${a}\n${usage}\n`);
      process.exit(2);
    }
  }
  return resolve(dir || process.env.LOCAL_STATE_DIR || '.local');
}
