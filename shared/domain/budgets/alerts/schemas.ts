import * as v from 'valibot';
import { ALERT_CHANNELS, SEVERITY_LEVELS } from '../../../model/alerts';
import { BUDGET_BASES, BUDGET_METRIC_MODES } from '../../../model/budget-alerts';
import { IdSchema, PageQuerySchema } from '../../../model/enum-schemas';
import {
  ALERT_LIMITS,
  ChannelSchema,
  EmailsSchema,
  SlackChannelIdSchema,
  TeamsUrlSchema,
} from '../../alerts/schemas';

/**
 * Bodies and records of the budget-alert routes. The notification target takes the cost alerts'
 * schemas (and, in ./rules.ts, their rules and SSRF guard); objects are strict, so server-owned
 * fields in a body are a 400.
 */
export const BudgetThresholdInput = v.strictObject({
  value: v.pipe(v.number(), v.finite('must be a finite number'), v.minValue(0, 'must not be negative')),
  severityLevel: v.optional(v.picklist(SEVERITY_LEVELS, 'must be one of INFO, WARNING, CRITICAL'), 'INFO'),
  metricMode: v.optional(
    v.picklist(BUDGET_METRIC_MODES, 'must be one of ABSOLUTE_SPEND, PERCENTAGE_OF_BUDGET'),
    'PERCENTAGE_OF_BUDGET',
  ),
  basis: v.optional(v.picklist(BUDGET_BASES, 'must be one of ACTUAL, FORECASTED'), 'ACTUAL'),
});

export const BudgetAlertBody = v.strictObject({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(ALERT_LIMITS.nameMaxLength, `must be at most ${ALERT_LIMITS.nameMaxLength} characters`),
  ),
  budgetId: IdSchema,
  /** A line's value; omitted or null: the budget total; `*`: each line separately. */
  line: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(200))), null),
  thresholds: v.pipe(
    v.array(BudgetThresholdInput),
    v.minLength(1, 'must hold at least one threshold'),
    v.maxLength(ALERT_LIMITS.thresholdsMax, `must hold at most ${ALERT_LIMITS.thresholdsMax} thresholds`),
  ),
  notificationChannel: ChannelSchema,
  emails: v.optional(EmailsSchema, []),
  slackChannelId: v.optional(v.nullable(SlackChannelIdSchema)),
  teamsChannelId: v.optional(v.nullable(TeamsUrlSchema)),
});
export type BudgetAlertInput = v.InferOutput<typeof BudgetAlertBody>;

export const BudgetAlertIdParams = v.object({ id: IdSchema });
export const ListBudgetAlertsQuery = v.object({
  ...PageQuerySchema.entries,
  includeArchived: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false'),
  budgetId: v.optional(IdSchema),
});

// Response schemas (OpenAPI only).
export const BudgetAlertRecordSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  createdById: v.string(),
  createdAt: v.string(),
  updatedAt: v.string(),
  archivedAt: v.nullable(v.string()),
  snoozedUntil: v.nullable(v.string()),
  name: v.string(),
  budgetId: v.string(),
  line: v.nullable(v.string()),
  thresholds: v.array(
    v.object({
      id: v.string(),
      budgetAlertId: v.string(),
      costAlertId: v.null(),
      value: v.number(),
      severityLevel: v.picklist(SEVERITY_LEVELS),
      metricMode: v.picklist(BUDGET_METRIC_MODES),
      basis: v.picklist(BUDGET_BASES),
    }),
  ),
  notificationChannel: v.picklist(ALERT_CHANNELS),
  emails: v.array(v.string()),
  slackChannelId: v.nullable(v.string()),
  teamsChannelId: v.nullable(v.string()),
});
export const BudgetAlertPageSchema = v.object({
  items: v.array(BudgetAlertRecordSchema),
  nextCursor: v.nullable(v.string()),
});
export const BudgetAlertHistoryPageSchema = v.object({
  items: v.array(v.looseObject({ evaluatedAt: v.string(), month: v.string() })),
  nextCursor: v.nullable(v.string()),
});
