import { isAdmin, type Principal } from '../../auth/principal';
import type { Scope } from './model';

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
