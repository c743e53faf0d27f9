import type { WhereClause } from './where-clause';

/** One budget line: the amounts of one value of `groupBy` (or of the whole budget when `value` is null). */
export interface BudgetLine {
  value: string | null;
  owner: string | null;
  /** `YYYY-MM` → amount in the budget's currency. */
  amounts: Record<string, number>;
}

/** What a body sets (every field; defaults filled in). */
export interface BudgetFields {
  name: string;
  description: string;
  currency: string;
  metricId: string;
  scopeId: string | null;
  whereClause: WhereClause | null;
  groupBy: string | null;
  startMonth: string;
  lines: BudgetLine[];
}

/** The body fields of a budget or version (what a PUT sends back to save a new version). */
export function budgetFieldsOf(b: BudgetFields): BudgetFields {
  return {
    name: b.name,
    description: b.description,
    currency: b.currency,
    metricId: b.metricId,
    scopeId: b.scopeId,
    whereClause: b.whereClause,
    groupBy: b.groupBy,
    startMonth: b.startMonth,
    lines: b.lines,
  };
}

/** The budget as stored and answered: the current version's fields plus the record's own. */
export interface Budget extends BudgetFields {
  id: string;
  organizationId: string;
  versionId: string;
  versionNumber: number;
  createdById: string;
  createdAt: string;
  updatedById: string;
  updatedAt: string;
  archivedAt: string | null;
}

/** One saved version, as it was saved. */
export interface BudgetVersion extends BudgetFields {
  budgetId: string;
  versionId: string;
  versionNumber: number;
  createdById: string;
  createdAt: string;
}
