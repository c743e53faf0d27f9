/**
 * `npx tsx scripts/migrate-upload-index.ts [--state-dir DIR]`: gives every upload pointer written
 * before the uploads index (GSI1 of the pointer, which GET /billing/uploads reads) its place in
 * it, by the time its ingestion started. Run once after deploying that change; until then older
 * uploads are missing from the list (GET /billing/uploads/{id} reads them). Running it again does
 * nothing (docs/warehouse.md, "Ingestion").
 *
 * The table: DYNAMODB_ENDPOINT, else `endpoints.dynamodb` of `<state-dir>/session.json`
 * (`--state-dir`, $LOCAL_STATE_DIR or .local); without either, TABLE_NAME with the AWS default chain.
 */
import { runMigration } from './lib/migration';

const NAME = 'migrate-upload-index';
const USAGE = [
  `usage: npx tsx scripts/${NAME}.ts [--state-dir DIR]`,
  '  Gives every upload pointer written before the uploads index its place in it (GET /billing/uploads); idempotent.',
  '  Table: DYNAMODB_ENDPOINT, else that of <state-dir>/session.json (default $LOCAL_STATE_DIR or .local),',
  '  else TABLE_NAME with the AWS default credentials. Prints {found, indexed, raced, orphaned}.',
].join('\n');

runMigration(NAME, USAGE, async () =>
  (await import('../shared/domain/uploads/migrate')).backfillUploadIndex(),
);
