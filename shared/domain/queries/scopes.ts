import * as v from 'valibot';
import { getScope } from '../../db/scopes-repo';
import { BadRequestError } from '../../errors';
import { type WhereClause, WhereClauseSchema } from '../../model/where-clause';

/**
 * A free-form filter object (a dashboard's `conditions`, a scope's `filters`) as a where clause:
 * null or `{}` add nothing; a `{combinator, rules}` object is validated like a cost query's where
 * clause; anything else is a 400 naming `what`.
 */
export function filtersAsWhere(
  filters: Record<string, unknown> | null | undefined,
  what: string,
): WhereClause | null {
  if (!filters || !Object.keys(filters).length) return null;
  const parsed = v.safeParse(WhereClauseSchema, filters);
  if (!parsed.success)
    throw new BadRequestError(
      `${what} are not a where clause ({combinator, rules}): ${parsed.issues[0]?.message ?? 'invalid'}`,
    );
  return parsed.output;
}

/**
 * The where clause of the scopes a request runs in (the request's `scopeId`, a dashboard's or an
 * alert's), all ANDed: every cost and usage query of the request is restricted by it, whatever its
 * `extendDashboardConditions`. A scope id that names no scope of the organisation (another
 * organisation's included: scopes are read under the caller's organisation only) is a 400
 * `scopeId: unknown scope <id>`, the same answer alerts give at save time; nothing is read from
 * the warehouse then. Null when no scope applies or the scopes filter nothing.
 */
export async function scopesWhere(
  orgId: string,
  scopeIds: readonly (string | null | undefined)[],
): Promise<WhereClause | null> {
  const ids = [...new Set(scopeIds.filter((id): id is string => typeof id === 'string' && id !== ''))];
  if (!ids.length) return null;
  const scopes = await Promise.all(ids.map((id) => getScope(orgId, id)));
  const clauses: WhereClause[] = [];
  ids.forEach((id, i) => {
    const scope = scopes[i];
    if (!scope) throw new BadRequestError(`scopeId: unknown scope ${id}`);
    const where = filtersAsWhere(scope.filters, `The filters of scope ${id}`);
    if (where?.rules.length) clauses.push(where);
  });
  if (!clauses.length) return null;
  return clauses.length === 1 ? clauses[0]! : { combinator: 'and', rules: clauses };
}
