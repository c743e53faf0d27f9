/**
 * `npx tsx scripts/migrate-report-schedules.ts [--state-dir DIR]`: gives every active, scheduled,
 * unarchived report stored before scheduled delivery landed (no `nextRunAt`, so never on the due
 * index and never swept) its next run, and puts it on the due index. Run once after deploying
 * scheduled delivery; running it again does nothing (docs/report-delivery.md).
 *
 * The table: DYNAMODB_ENDPOINT, else `endpoints.dynamodb` of `<state-dir>/session.json`
 * (`--state-dir`, $LOCAL_STATE_DIR or .local); without either, TABLE_NAME with the AWS default chain.
 */
import { runMigration } from './lib/migration';

const NAME = 'migrate-report-schedules';
const USAGE = [
  `usage: npx tsx scripts/${NAME}.ts [--state-dir DIR]`,
  '  Gives every deliverable report stored without a next run its next run (and a place on the due index); idempotent.',
  '  Table: DYNAMODB_ENDPOINT, else that of <state-dir>/session.json (default $LOCAL_STATE_DIR or .local),',
  '  else TABLE_NAME with the AWS default credentials. Prints {found, scheduled, raced}.',
].join('\n');

runMigration(NAME, USAGE, async () =>
  (await import('../shared/domain/reports/delivery')).backfillNextRuns(new Date()),
);
