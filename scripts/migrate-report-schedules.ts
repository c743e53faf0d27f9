/**
 * `npx tsx scripts/migrate-report-schedules.ts [--state-dir DIR]`: gives every active, scheduled,
 * unarchived report stored before scheduled delivery landed (no `nextRunAt`, so never on the due
 * index and never swept) its next run, and puts it on the due index. Run once after deploying
 * scheduled delivery; running it again does nothing (docs/report-delivery.md).
 *
 * The table: DYNAMODB_ENDPOINT, else `endpoints.dynamodb` of `<state-dir>/session.json`
 * (`--state-dir`, $LOCAL_STATE_DIR or .local); without either, TABLE_NAME with the AWS default chain.
 */
import { resolve } from 'node:path';
import { wantsHelp } from './lib/cli';
import { noStackMessage, pointAtTable, readStackSession } from './lib/stack-table';

const NAME = 'migrate-report-schedules';
const USAGE = [
  `usage: npx tsx scripts/${NAME}.ts [--state-dir DIR]`,
  '  Gives every deliverable report stored without a next run its next run (and a place on the due index); idempotent.',
  '  Table: DYNAMODB_ENDPOINT, else that of <state-dir>/session.json (default $LOCAL_STATE_DIR or .local),',
  '  else TABLE_NAME with the AWS default credentials. Prints {found, scheduled, raced}.',
].join('\n');

function stateDirOf(argv: string[]): string {
  let dir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = String(argv[i]);
    if (a.startsWith('--state-dir=')) dir = a.slice('--state-dir='.length);
    else if (a === '--state-dir' && argv[i + 1]) dir = argv[++i];
    else {
      process.stderr.write(`${NAME}: unknown argument ${a}\n${USAGE}\n`);
      process.exit(2);
    }
  }
  return resolve(dir || process.env.LOCAL_STATE_DIR || '.local');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const stateDir = stateDirOf(argv);
  const session = readStackSession(stateDir);
  if (!session && !process.env.DYNAMODB_ENDPOINT && !process.env.TABLE_NAME) {
    process.stderr.write(`${NAME}: ${noStackMessage(stateDir)}\n`);
    process.exit(1);
  }
  // The shared DynamoDB client reads the configuration on first use: set it before importing.
  pointAtTable(session);

  const { backfillNextRuns } = await import('../shared/domain/reports/delivery');
  process.stdout.write(`${JSON.stringify(await backfillNextRuns(new Date()))}\n`);
}

main().catch((error) => {
  process.stderr.write(`${NAME}: ${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
