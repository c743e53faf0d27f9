import * as v from 'valibot';
import { COST_METRIC_IDS, DASHBOARD_CURRENCIES, IdSchema, PageQuerySchema } from '../../model/enum-schemas';
import { WhereClauseSchema } from '../../model/where-clause';

/**
 * Budget bodies and records (issue 28, docs/budgets.md). Objects are strict: server-owned fields
 * (`id`, `versionId`, `createdById`, `archivedAt`, …) in a body are a 400, never stored. The
 * cross-field rules (months in range, one line per value) are checked in ./rules.ts.
 */
export const BUDGET_LIMITS = {
  maxMonths: 36,
  maxLines: 200,
  /** Largest amount of one line and month, in the budget's currency. */
  maxAmount: 1e12,
} as const;

export const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
const Month = v.pipe(v.string(), v.regex(MONTH_PATTERN, 'must be a month YYYY-MM'));
const Amount = v.pipe(
  v.number('must be a number'),
  v.finite('must be a finite number'),
  v.minValue(0, 'must not be negative'),
  v.maxValue(BUDGET_LIMITS.maxAmount, `must be at most ${BUDGET_LIMITS.maxAmount}`),
);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A user id (the IdP's) or an e-mail address. */
const Owner = v.nullable(
  v.pipe(
    v.string(),
    v.maxLength(254),
    v.check(
      (s) => EMAIL.test(s) || /^[A-Za-z0-9_.:|-]{1,128}$/.test(s),
      'must be a user id or an e-mail address',
    ),
  ),
);

export const BudgetLineSchema = v.strictObject({
  value: v.nullable(v.pipe(v.string(), v.maxLength(200))),
  owner: v.optional(Owner, null),
  amounts: v.record(Month, Amount),
});

export const BUDGET_BODY_ENTRIES = {
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)),
  description: v.optional(v.pipe(v.string(), v.maxLength(2000)), ''),
  currency: v.optional(v.picklist(DASHBOARD_CURRENCIES), 'USD'),
  metricId: v.optional(v.picklist(COST_METRIC_IDS), 'cost'),
  scopeId: v.optional(v.nullable(IdSchema), null),
  whereClause: v.optional(v.nullable(WhereClauseSchema), null),
  /** One dimension (the budget's lines) or null for a single total line. */
  groupBy: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(200))), null),
  startMonth: Month,
  lines: v.pipe(
    v.array(BudgetLineSchema),
    v.minLength(1, 'must have at least one line'),
    v.maxLength(BUDGET_LIMITS.maxLines, `must have at most ${BUDGET_LIMITS.maxLines} lines`),
  ),
};

/** POST /budgets and PUT /budgets/{id} (a PUT replaces every field and saves a new version). */
export const BudgetBody = v.strictObject(BUDGET_BODY_ENTRIES);
export type BudgetBodyInput = v.InferOutput<typeof BudgetBody>;

export const BudgetIdParams = v.object({ id: IdSchema });
export const ListBudgetsQuery = v.object({
  ...PageQuerySchema.entries,
  archived: v.optional(v.picklist(['true', 'false']), 'false'),
});
export const ListBudgetVersionsQuery = v.object({ ...PageQuerySchema.entries });

// Answers, for the OpenAPI document only.
const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const recordEntries = {
  id: v.string(),
  organizationId: v.string(),
  ...BUDGET_BODY_ENTRIES,
  description: v.string(),
  currency: v.picklist(DASHBOARD_CURRENCIES),
  metricId: v.picklist(COST_METRIC_IDS),
  scopeId: v.nullable(v.string()),
  whereClause: v.nullable(WhereClauseSchema),
  groupBy: v.nullable(v.string()),
  /** The current version: `versionNumber` is the `If-Match` token of a PUT or DELETE. */
  versionId: v.string(),
  versionNumber: v.pipe(v.number(), v.integer(), v.minValue(1)),
  createdById: v.string(),
  createdAt: Timestamp,
  updatedById: v.string(),
  updatedAt: Timestamp,
  archivedAt: v.nullable(Timestamp),
};
export const BudgetRecordSchema = v.object(recordEntries);
export const BudgetPage = v.object({
  items: v.array(BudgetRecordSchema),
  nextCursor: v.nullable(v.string()),
});
/** A saved version: the budget as it was saved then (archivedAt is the record's, not the version's). */
export const BudgetVersionSchema = v.object({
  budgetId: v.string(),
  ...BUDGET_BODY_ENTRIES,
  versionId: v.string(),
  versionNumber: v.pipe(v.number(), v.integer(), v.minValue(1)),
  createdById: v.string(),
  createdAt: Timestamp,
});
export const BudgetVersionPage = v.object({
  items: v.array(BudgetVersionSchema),
  nextCursor: v.nullable(v.string()),
});

/** `month`: the month to report (`YYYY-MM`); default the current month in the organisation's time zone. */
export const BudgetStatusQuery = v.object({ month: v.optional(Month) });

const Figures = {
  budget: v.number(),
  actual: v.number(),
  forecast: v.nullable(v.object({ value: v.number(), lower80: v.number(), upper80: v.number() })),
  delta: v.nullable(v.number()),
};
export const BudgetStatusSchema = v.object({
  budgetId: v.string(),
  versionId: v.string(),
  month: v.string(),
  currency: v.string(),
  dataThrough: v.nullable(v.string()),
  conversion: v.nullable(
    v.object({
      from: v.array(v.string()),
      to: v.string(),
      source: v.nullable(v.string()),
      rates: v.nullable(v.object({ from: v.string(), to: v.string() })),
    }),
  ),
  lines: v.array(v.object({ value: v.nullable(v.string()), owner: v.nullable(v.string()), ...Figures })),
  total: v.object(Figures),
  /** The total's burn: the month's days, the cumulative actual (to dataThrough), budget and forecast band. */
  burn: v.nullable(
    v.object({
      days: v.array(v.string()),
      actual: v.array(v.nullable(v.number())),
      budget: v.array(v.number()),
      forecast: v.array(v.nullable(v.number())),
      lower: v.array(v.nullable(v.number())),
      upper: v.array(v.nullable(v.number())),
    }),
  ),
});

/** POST /budgets/{id}/import as JSON (text/csv sends the file itself): the CSV text. */
export const ImportBudgetBody = v.strictObject({
  csv: v.pipe(v.string(), v.description('The lines × months grid: value,owner,YYYY-MM,…')),
});

/** POST /budgets/suggest: what a budget would cover (its scope, filter, metric, currency and lines). */
export const SuggestBudgetBody = v.strictObject({
  currency: BUDGET_BODY_ENTRIES.currency,
  metricId: BUDGET_BODY_ENTRIES.metricId,
  scopeId: BUDGET_BODY_ENTRIES.scopeId,
  whereClause: BUDGET_BODY_ENTRIES.whereClause,
  groupBy: BUDGET_BODY_ENTRIES.groupBy,
  /** The first month to suggest; default the month after the current one (organisation's zone). */
  startMonth: v.optional(Month),
  /** How many months from `startMonth`: 1 to 12, default 3. */
  months: v.optional(
    v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1), v.maxValue(12)),
    3,
  ),
});
export type SuggestBudgetInput = v.InferOutput<typeof SuggestBudgetBody>;

const Suggested = v.object({ value: v.number(), lower80: v.number(), upper80: v.number() });
export const SuggestBudgetSchema = v.object({
  currency: v.string(),
  groupBy: v.nullable(v.string()),
  dataThrough: v.nullable(v.string()),
  months: v.array(v.string()),
  conversion: BudgetStatusSchema.entries.conversion,
  lines: v.array(v.object({ value: v.nullable(v.string()), amounts: v.record(v.string(), Suggested) })),
  total: v.record(v.string(), Suggested),
});
