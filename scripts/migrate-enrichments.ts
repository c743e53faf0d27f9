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
import { runMigration } from './lib/migration';

const USAGE = [
  'usage: npx tsx scripts/migrate-enrichments.ts [--state-dir DIR]',
  '  Gives every enrichment document stored before schema version 2 the JSON copy GET reads; idempotent.',
  '  Table: DYNAMODB_ENDPOINT, else that of <state-dir>/session.json (default $LOCAL_STATE_DIR or .local),',
  '  else TABLE_NAME with the AWS default credentials. Prints {found, added, raced, failed}; exit 1 if any failed.',
].join('\n');

runMigration(
  'migrate-enrichments',
  USAGE,
  async () => (await import('../shared/domain/enrichments/migrate')).backfillEnrichmentJson(),
  (result) => result.failed > 0,
);
