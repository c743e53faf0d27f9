import { log } from '../../log';
import { requestRefresh } from '../billing/refresh-request';

/**
 * Asks for a full warehouse refresh after a document was created, replaced or deleted, so the
 * change reaches the enriched table and the dimension list without waiting for another publish or
 * ingestion. Called after the document's own write has committed (see docs/enrichments.md,
 * "Refresh after a change"): the request is recorded in the outbox, then sent; a failed send stays
 * in the outbox for the sweep. If even the outbox write fails, the document change stands (the
 * client is told it succeeded) and the failure is logged; the next full refresh applies it.
 * Only PUT and DELETE import this module, so GET and list bundle no SQS client.
 */
export async function requestEnrichmentRefresh(orgId: string, name: string): Promise<void> {
  try {
    await requestRefresh(orgId, 'full', 'enrichment');
  } catch (error) {
    log.error('enrichment changed but no refresh could be requested; the next full refresh applies it', {
      orgId,
      name,
      error,
    });
  }
}
