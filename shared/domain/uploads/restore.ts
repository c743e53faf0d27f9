import { completeRestore, getUpload } from '../../db/uploads-repo';
import { log } from '../../log';
import { getWarehouse } from '../../warehouse/warehouse';
import { deliver } from '../billing/outbox';
import { refreshOutboxEntry } from '../billing/refresh-request';
import type { RestoreRequest } from './uploads';

/**
 * The billing-ingest worker's side of a restore: puts back the versions the upload replaced
 * (the warehouse keeps what they replace in turn, under the restore's id), records it and asks
 * for a full refresh. Idempotent under redelivery: a restore already recorded is skipped, and the
 * warehouse's restore finds nothing left to put back when repeated.
 */
export async function processRestore(req: RestoreRequest, now: () => Date = () => new Date()): Promise<void> {
  const upload = await getUpload(req.orgId, req.uploadId);
  if (!upload || upload.restoreId !== req.restoreId || upload.restoredAt) {
    log.info('billing restore skipped', { uploadId: req.uploadId, restoreId: req.restoreId });
    return;
  }
  const warehouse = await getWarehouse();
  const restored = await warehouse.restoreReplaced(
    req.orgId,
    req.uploadId,
    req.restoreId,
    upload.replaced ?? [],
  );
  const refresh = refreshOutboxEntry(req.orgId, 'full', 'restore', now());
  if (await completeRestore(upload, req.restoreId, { restoredAt: now().toISOString(), restored }, refresh))
    await deliver(refresh);
  log.info('billing upload restored', { uploadId: req.uploadId, sources: restored.length });
}
