import type { Principal } from '../../auth/principal';
import { deleteEnrichment, getEnrichment } from '../../db/enrichments-repo';
import { ConflictError, NotFoundError } from '../../errors';
import { requestEnrichmentRefresh } from './refresh';
import { parseIfMatch } from './service';

// Apart from service.ts (which GET and list import) because a delete requests a refresh: only the
// DELETE Lambda bundles the outbox, the SQS client and the id generator.

/**
 * Hard-deletes a document; NOT_FOUND when there is none, 409 when `If-Match` is stale. Once
 * deleted, a full warehouse refresh is requested so its columns leave the dimensions.
 */
export async function removeEnrichment(
  principal: Principal,
  name: string,
  ifMatch: string | undefined,
): Promise<void> {
  const { expectedVersion } = parseIfMatch(ifMatch);
  let deleted: boolean;
  try {
    deleted = await deleteEnrichment(principal.orgId, name, expectedVersion);
  } catch (error) {
    if (error instanceof ConflictError && !(await getEnrichment(principal.orgId, name))) {
      throw new NotFoundError('NOT_FOUND');
    }
    throw error;
  }
  if (!deleted) throw new NotFoundError('NOT_FOUND');
  await requestEnrichmentRefresh(principal.orgId, name);
}
