/**
 * `npx tsx scripts/migrate-enrichments.ts [--state-dir DIR]`: gives every enrichment document
 * stored before schema version 2 (YAML only) the JSON copy that GET /enrichments/{name} reads.
 * Run once after deploying that change; running it again does nothing. Until it has run, GET of
 * such a document answers 500 (the refresh still reads it, from its YAML).
 *
 * The DynamoDB endpoint is DYNAMODB_ENDPOINT, else `endpoints.dynamodb` of `<state-dir>/session.json`
 * (`--state-dir`, $LOCAL_STATE_DIR or .local); without either the AWS default chain is used with
 * TABLE_NAME.
 */
import { resolve } from 'node:path';
import { wantsHelp } from './lib/cli';
import { noStackMessage, pointAtTable, readStackSession } from './lib/stack-table';

/** `--state-dir DIR` or `--state-dir=DIR`; anything else is a usage error (exit 2). */
function stateDirOf(argv: string[]): string {
  let dir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = String(argv[i]);
    if (a.startsWith('--state-dir=')) dir = a.slice('--state-dir='.length);
    else if (a === '--state-dir' && argv[i + 1]) dir = argv[++i];
    else {
      process.stderr.write(`migrate-enrichments: unknown argument ${a}\n${USAGE}\n`);
      process.exit(2);
    }
  }
  return resolve(dir || process.env.LOCAL_STATE_DIR || '.local');
}

const USAGE = [
  'usage: npx tsx scripts/migrate-enrichments.ts [--state-dir DIR]',
  '  Gives every enrichment document stored before schema version 2 the JSON copy GET reads; idempotent.',
  '  Table: DYNAMODB_ENDPOINT, else that of <state-dir>/session.json (default $LOCAL_STATE_DIR or .local),',
  '  else TABLE_NAME with the AWS default credentials. Prints {found, added, raced, failed}; exit 1 if any failed.',
].join('\n');

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const stateDir = stateDirOf(argv);
  const session = readStackSession(stateDir);
  if (!session && !process.env.DYNAMODB_ENDPOINT && !process.env.TABLE_NAME) {
    process.stderr.write(`migrate-enrichments: ${noStackMessage(stateDir)}\n`);
    process.exit(1);
  }
  // Point the shared DynamoDB client at the stack before anything reads the configuration.
  pointAtTable(session);

  const { backfillEnrichmentJson } = await import('../shared/domain/enrichments/migrate');
  const result = await backfillEnrichmentJson();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.failed > 0) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`migrate-enrichments: ${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
