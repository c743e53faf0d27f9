import type { Principal } from '../../auth/principal';
import { type EnrichmentSummary, listEnrichmentSummaries } from '../../db/enrichments-repo';
import type { Page } from '../../db/page';
import { BadRequestError } from '../../errors';

/** `If-Match`: absent, `*` (must exist) or one version as an ETag (`"3"`, `W/"3"` or `3`). */
export type Precondition = { expectedVersion?: number; mustExist?: boolean };

export function parseIfMatch(ifMatch: string | undefined): Precondition {
  if (ifMatch === undefined || ifMatch.trim() === '') return {};
  const value = ifMatch.trim();
  if (value === '*') return { mustExist: true };
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(value);
  const version = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new BadRequestError('Invalid If-Match header: send the ETag of a GET, such as "3", or *');
  }
  return { expectedVersion: version };
}

/** The ETag of a document version. */
export const etagOf = (version: number) => `"${version}"`;

/** Document summaries (no entries), in name order, a page at a time. */
export async function listEnrichments(
  principal: Principal,
  options: { limit: number; cursor?: string },
): Promise<Page<EnrichmentSummary>> {
  return listEnrichmentSummaries(principal.orgId, options.limit, options.cursor);
}
