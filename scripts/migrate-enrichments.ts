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
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

interface LocalSession {
  endpoints?: { dynamodb?: string };
  tableName?: string;
}

function stateDirOf(argv: string[]): string {
  const i = argv.indexOf('--state-dir');
  const inline = argv.find((a) => a.startsWith('--state-dir='))?.slice('--state-dir='.length);
  return resolve(inline ?? (i >= 0 ? argv[i + 1] : undefined) ?? process.env.LOCAL_STATE_DIR ?? '.local');
}

async function main(): Promise<void> {
  const file = join(stateDirOf(process.argv.slice(2)), 'session.json');
  const session = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalSession) : undefined;
  // Point the shared DynamoDB client at the stack before anything reads the configuration.
  if (!process.env.DYNAMODB_ENDPOINT && session?.endpoints?.dynamodb) {
    process.env.DYNAMODB_ENDPOINT = session.endpoints.dynamodb;
  }
  if (process.env.DYNAMODB_ENDPOINT) {
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    process.env.AWS_REGION ??= 'us-east-1';
  }
  if (!process.env.TABLE_NAME && session?.tableName) process.env.TABLE_NAME = session.tableName;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

  const { backfillEnrichmentJson } = await import('../shared/domain/enrichments/migrate');
  const result = await backfillEnrichmentJson();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.failed > 0) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`migrate-enrichments: ${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
