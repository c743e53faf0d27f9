import { isAdmin, type Principal } from '../../auth/principal';
import { BadRequestError } from '../../errors';
import type { Scope } from '../../model/scopes';

/**
 * Who may assign a scope (to a dashboard, an alert, a widget) or see it: admins and `org_`
 * principals always; otherwise members of one of its teams, or everyone when it lists no team.
 * The principal's teams come from `loadPrincipal`'s one query per request, so this costs no read.
 */
export function canUseScope(principal: Principal, scope: Pick<Scope, 'teamIds'>): boolean {
  if (isAdmin(principal)) return true;
  if (scope.teamIds.length === 0) return true;
  return scope.teamIds.some((t) => principal.teamIds.includes(t));
}

/** `If-Match: "3"`, `W/"3"` or `3` give 3; `*` or no header give undefined (no constraint). */
export function parseScopeIfMatch(header: string | undefined): number | undefined {
  const value = header?.trim();
  if (value === undefined || value === '' || value === '*') return undefined;
  const n = Number(value.replace(/^W\//, '').replaceAll('"', ''));
  if (!Number.isInteger(n) || n < 1)
    throw new BadRequestError('If-Match must be the scope version, e.g. "3"');
  return n;
}
