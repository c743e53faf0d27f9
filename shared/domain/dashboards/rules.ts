import { isAdmin, isTeamMember, type Principal } from '../../auth/principal';
import { BadRequestError, PayloadTooLargeError } from '../../errors';
import { DASHBOARD_LIMITS, type DashboardBody } from '../../model/dashboard-schemas';
import type { ScopeRef } from '../../model/dashboards';

/**
 * Who may do what with a dashboard (the same rules as reports):
 * - PRIVATE dashboards are visible to their creator and org admins only; to anyone else they do
 *   not exist (404). PUBLIC and TEMPLATE dashboards are visible to the whole organisation.
 * - Publishing, PATCH and archiving: admins; for a team dashboard, members of the team (the
 *   creator too, while a member; a PRIVATE one only its creator); for one without a team, its
 *   creator. Others who can see it get 403.
 */
export { canEdit, canView } from '../common/sharing';

export type ScopeDecision = 'ok' | 'forbidden' | 'unknown';

/**
 * A scope may be assigned when it exists and, for a member, when it is tied to no team or the
 * member is in one of its teams. A missing (or archived) scope is 400 for admins (a typo) and
 * 403 for members (who must not learn which scopes exist).
 */
export function scopeDecision(p: Principal, scope: ScopeRef | undefined): ScopeDecision {
  if (!scope) return 'unknown';
  if (isAdmin(p) || scope.teamIds.length === 0 || scope.teamIds.some((t) => isTeamMember(p, t))) return 'ok';
  return 'forbidden';
}

/** Every scope a body refers to, with the path it sits at (dashboard-level first). */
export function scopeReferences(
  body: Pick<DashboardBody, 'scopeId'> & Partial<Pick<DashboardBody, 'widgets'>>,
): { scopeId: string; path: string }[] {
  const refs: { scopeId: string; path: string }[] = [];
  if (body.scopeId) refs.push({ scopeId: body.scopeId, path: 'scopeId' });
  (body.widgets ?? []).forEach((w, i) => {
    const scopeId = w.source.request.scopeId;
    if (scopeId) refs.push({ scopeId, path: `widgets.${i}.source.request.scopeId` });
  });
  return refs;
}

/** 413 before any validation work when the widget count is past the cap. */
export function assertWidgetCount(raw: unknown): void {
  const widgets = (raw as { widgets?: unknown } | null)?.widgets;
  if (Array.isArray(widgets) && widgets.length > DASHBOARD_LIMITS.maxWidgets) {
    throw new PayloadTooLargeError(
      `A dashboard holds at most ${DASHBOARD_LIMITS.maxWidgets} widgets (got ${widgets.length})`,
    );
  }
}

/** 413 when the normalised (defaults filled in) JSON of a version, or its `conditions`, is past the cap. */
export function assertJsonSize(jsonBytes: number, conditions: unknown): void {
  if (jsonBytes > DASHBOARD_LIMITS.maxJsonBytes) {
    throw new PayloadTooLargeError(
      `A dashboard's JSON is at most ${DASHBOARD_LIMITS.maxJsonBytes} bytes with defaults filled in (got ${jsonBytes})`,
    );
  }
  if (conditions !== null && conditions !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(conditions));
    if (bytes > DASHBOARD_LIMITS.maxConditionsBytes) {
      throw new PayloadTooLargeError(
        `conditions is at most ${DASHBOARD_LIMITS.maxConditionsBytes} bytes of JSON (got ${bytes})`,
      );
    }
  }
}

/** `If-Match: "3"`, `W/"3"` or `3` give 3; `*` or no header give undefined (no constraint). */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*' || value === '') return undefined;
  const n = Number(value.replace(/^W\//, '').replaceAll('"', ''));
  if (!Number.isInteger(n) || n < 1) {
    throw new BadRequestError('If-Match must be the dashboard version, e.g. "3"');
  }
  return n;
}

/** The version a write is based on: from the body or `If-Match`; both must agree when both are sent. */
export function expectedVersion(
  bodyVersion: number | undefined,
  ifMatch: string | undefined,
): number | undefined {
  const header = parseIfMatch(ifMatch);
  if (bodyVersion !== undefined && header !== undefined && bodyVersion !== header) {
    throw new BadRequestError(`version ${bodyVersion} in the body and If-Match ${header} disagree`);
  }
  return bodyVersion ?? header;
}

/** `startDate` must not be after `endDate` once a PATCH is merged onto the stored dates. */
export function datesOrdered(startDate: string | null, endDate: string | null): boolean {
  return !startDate || !endDate || Date.parse(startDate) <= Date.parse(endDate);
}

/** The version to delete when publishing `next` would keep more than `max` versions. */
export function versionToPrune(next: number, max: number = DASHBOARD_LIMITS.maxVersions): number | undefined {
  const oldest = next - max;
  return oldest >= 1 ? oldest : undefined;
}
