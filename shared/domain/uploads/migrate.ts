import { getIngestion } from '../../db/dimensions-repo';
import { indexUploadPointer, scanUnindexedUploadPointers } from '../../db/uploads-repo';

export interface UploadIndexBackfill {
  /** Upload pointers found without a place in the uploads index. */
  found: number;
  /** Pointers given their place (the time their record's ingestion started). */
  indexed: number;
  /** Pointers indexed or removed meanwhile. */
  raced: number;
  /** Pointers whose upload record is missing: left as they are (the list could not show them). */
  orphaned: number;
}

/**
 * Gives every upload pointer written before the uploads index (GET /billing/uploads) its place in
 * it, ordered by its record's `startedAt` as a pointer written today is. Idempotent: pointers that
 * have a place are not read, and each write is conditional on the pointer having none. Scans the
 * whole table once (scripts/migrate-upload-index.ts).
 */
export async function backfillUploadIndex(): Promise<UploadIndexBackfill> {
  const result: UploadIndexBackfill = { found: 0, indexed: 0, raced: 0, orphaned: 0 };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await scanUnindexedUploadPointers(start);
    for (const pointer of page.items) {
      result.found++;
      const record = await getIngestion(pointer.orgId, pointer.objectKey, pointer.version);
      if (!record) result.orphaned++;
      else if (await indexUploadPointer(pointer.orgId, pointer.uploadId, record.startedAt)) result.indexed++;
      else result.raced++;
    }
    start = page.next;
  } while (start);
  return result;
}
