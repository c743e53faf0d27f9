import type { Principal } from '../../auth/principal';
import { getRefreshStatus, listPublishedLabels, readCache } from '../../db/dimensions-repo';
import { UnprocessableError } from '../../errors';
import type {
  CachedCandidate,
  Candidate,
  DimensionEntry,
  PublishedLabel,
  RefreshStatus,
} from '../../model/dimensions';
import { withIngested } from './candidates';

/**
 * Reads of the dimensions area. Both lists come from the caches the refresh writes; nothing is
 * computed from the billing data per request. Before the first refresh they are empty.
 */
export async function refreshStatusOf(orgId: string): Promise<RefreshStatus> {
  return (await getRefreshStatus(orgId)) ?? { orgId, state: 'never' };
}

/**
 * Response headers that tell a client how fresh the cached lists are, and the currency of their
 * money figures (the reporting currency of the refresh that wrote them).
 */
export function freshnessHeaders(status: RefreshStatus): Record<string, string> {
  return {
    'x-dimensions-refresh-status': status.state,
    ...(status.lastSucceededAt ? { 'x-dimensions-refreshed-at': status.lastSucceededAt } : {}),
    ...(status.currency ? { 'x-dimensions-currency': status.currency } : {}),
  };
}

export async function listDimensions(
  principal: Principal,
): Promise<{ dimensions: DimensionEntry[]; status: RefreshStatus }> {
  const [cache, status] = await Promise.all([
    readCache<DimensionEntry[]>(principal.orgId, 'dimensions'),
    refreshStatusOf(principal.orgId),
  ]);
  return { dimensions: cache?.payload ?? [], status };
}

export async function listCandidates(
  principal: Principal,
): Promise<{ candidates: Candidate[]; status: RefreshStatus }> {
  const [cache, labels, status] = await Promise.all([
    readCache<CachedCandidate[]>(principal.orgId, 'candidates'),
    listPublishedLabels(principal.orgId),
    refreshStatusOf(principal.orgId),
  ]);
  // The latest refresh could not convert the window (a missing rate): the cached figures no longer
  // describe the data, and adding the currencies 1:1 instead is never an answer.
  if (status.state === 'failed' && status.currencyError) throw new UnprocessableError(status.currencyError);
  return { candidates: withIngested(cache?.payload ?? [], labels), status };
}

/** The status as served by GET /dimensions/status (the org id is the caller's; not repeated). */
export function publicStatus(status: RefreshStatus): Omit<RefreshStatus, 'orgId'> {
  const { orgId: _orgId, ...rest } = status;
  return rest;
}

export async function listLabels(principal: Principal): Promise<PublishedLabel[]> {
  return listPublishedLabels(principal.orgId);
}
