import { randomUUID } from 'node:crypto';
import { defineEntity } from './entity';
import { keys } from './keys';

/**
 * The version of an organisation's billing rows where the warehouse keeps them as objects
 * (Athena over S3): a random id, replaced whenever its rows change, read by a request to know
 * whether it is looking at the same data as before (docs/warehouse.md, `dataVersion`). The
 * embedded warehouse keeps its own in the database, in the transaction of the change.
 */
interface DataVersion {
  orgId: string;
  version: string;
  changedAt: string;
}

const versions = defineEntity<DataVersion, DataVersion>({
  name: 'data-version',
  schemaVersion: 1,
  key: (v) => keys.dataVersion(v.orgId),
});

/** The org's current version, if any was ever given. */
export async function readDataVersion(orgId: string): Promise<string | undefined> {
  return (await versions.get(keys.dataVersion(orgId)))?.version;
}

/** Gives the org's rows a new version. */
export async function newDataVersion(orgId: string, now: Date = new Date()): Promise<void> {
  await versions.put({ orgId, version: randomUUID(), changedAt: now.toISOString() });
}
