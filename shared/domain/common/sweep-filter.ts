/**
 * The organisations a schedule's event names in `detail.orgIds`, as a filter for its sweep. Only the
 * local tick sends one (`POST /_local/tick`, so that tests running side by side on one stack sweep
 * only their own organisations); EventBridge sends `{}`, and every organisation is swept.
 */
export function orgFilterOf(detail: unknown): ((orgId: string) => boolean) | undefined {
  const orgIds = (detail as { orgIds?: unknown } | undefined)?.orgIds;
  if (!Array.isArray(orgIds)) return undefined;
  const only = new Set(orgIds.filter((o): o is string => typeof o === 'string'));
  return (orgId) => only.has(orgId);
}
