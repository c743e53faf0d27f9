import { BadRequestError } from '../../errors';
import {
  type AlertChannel,
  type AlertThreshold,
  type AlertVariant,
  type CostAlert,
  DEFAULT_DEDUP_WINDOW_DAYS,
  type MetricMode,
} from '../../model/alerts';
import type { ExplorerRequest } from '../../model/query-model';
import { type WebhookPolicy, webhookUrlProblem } from '../../net/address-policy';
import { conditionProblem } from './condition';
import type { CreateAlertInput } from './schemas';

/**
 * The rules of an alert body that span several fields. Each failure is a 400 `{error}` that names
 * the field and the problem. The variants (docs/alerts.md):
 * 1. CONDITION: `condition` (an expression over the query names) and `dedup`; `thresholds` empty.
 * 2. THRESHOLD: `thresholds` with `metricMode: ABSOLUTE_SPEND`, `thresholdType`, `evaluationPeriod`.
 * 3. PERIOD_CHANGE: `thresholds` with `metricMode: PERIOD_CHANGE` (change against the previous
 *    period, `changeBasis` ABSOLUTE_DELTA or PERCENTAGE), `thresholdType`, `evaluationPeriod`.
 */
export type AlertFields = Omit<
  CostAlert,
  'id' | 'organizationId' | 'createdById' | 'createdAt' | 'archivedAt' | 'snoozedUntil'
> & {
  variant: AlertVariant;
  minCost: number | null;
  tagIds: string[];
  thresholds: Omit<AlertThreshold, 'id' | 'costAlertId' | 'budgetAlertId'>[];
};

const bad = (message: string) => new BadRequestError(message);

/** The name of the condition query the alert's explorer request carries (documented). */
export const CONDITION_QUERY_NAME = 'alert_condition';

export function variantOf(input: Pick<CreateAlertInput, 'condition' | 'thresholds'>): AlertVariant {
  const hasCondition = typeof input.condition === 'string' && input.condition.trim() !== '';
  if (hasCondition && input.thresholds.length > 0)
    throw bad(
      'Give either condition (with dedup) or thresholds, not both: thresholds must be empty for a condition-based alert',
    );
  if (hasCondition) return 'CONDITION';
  if (input.thresholds.length === 0)
    throw bad(
      'condition or thresholds is required: a condition-based alert needs condition and dedup, a threshold alert at least one threshold',
    );
  const modes = new Set<MetricMode>(input.thresholds.map((t) => t.metricMode));
  if (modes.size > 1) throw bad('thresholds: every threshold of an alert must have the same metricMode');
  return modes.has('PERIOD_CHANGE') ? 'PERIOD_CHANGE' : 'THRESHOLD';
}

/** The notification target of a body (cost, budget and commitment alerts): 400 naming what is missing or refused. */
export function channelTarget(
  input: Pick<CreateAlertInput, 'notificationChannel' | 'emails' | 'slackChannelId' | 'teamsChannelId'>,
  policy: WebhookPolicy,
) {
  const channel: AlertChannel = input.notificationChannel;
  if (channel === 'EMAIL' && input.emails.length === 0)
    throw bad('emails: at least one e-mail address is required for notificationChannel EMAIL');
  if (channel === 'SLACK' && !input.slackChannelId)
    throw bad('slackChannelId is required for notificationChannel SLACK');
  if (channel === 'TEAMS') {
    if (!input.teamsChannelId)
      throw bad('teamsChannelId (a Teams Workflows webhook URL) is required for notificationChannel TEAMS');
    const problem = webhookUrlProblem(input.teamsChannelId, policy);
    if (problem) throw bad(`teamsChannelId ${problem}`);
  }
  return {
    emails: input.emails,
    slackChannelId: input.slackChannelId ?? null,
    teamsChannelId: input.teamsChannelId ?? null,
  };
}

/** Checks a create/update body and gives the alert's fields (everything but identity and state). */
export function alertFields(input: CreateAlertInput, policy: WebhookPolicy): AlertFields {
  const variant = variantOf(input);
  const names = input.queries.map((q) => q.name);
  const queryName = input.queryName ?? firstSeriesQuery(input) ?? names[0]!;
  if (!names.includes(queryName))
    throw bad(`queryName: '${queryName}' is not the name of one of queries (${names.join(', ')})`);
  const target = channelTarget(input, policy);

  let condition: string | null = null;
  let dedupKind: CostAlert['dedupKind'] = null;
  let dedupCalendarUnit: CostAlert['dedupCalendarUnit'] = null;
  let dedupWindowDays: number | null = null;
  if (variant === 'CONDITION') {
    condition = input.condition ?? '';
    const problem = conditionProblem(condition, input.queries);
    if (problem) throw bad(`condition: ${problem}`);
    if (!input.dedup)
      throw bad(
        'dedup is required for a condition-based alert: {kind: CALENDAR|ROLLING, calendarUnit: WEEK|MONTH}',
      );
  } else {
    if (!input.thresholdType) throw bad('thresholdType (ABOVE or UNDER) is required for a threshold alert');
    if (!input.evaluationPeriod)
      throw bad('evaluationPeriod (DAILY, WEEKLY or MONTHLY) is required for a threshold alert');
    const target = input.queries.find((q) => q.name === queryName);
    if (target?.type === 'condition')
      throw bad(
        `queryName: thresholds apply to a cost, metric or formula query, not the condition query '${queryName}'`,
      );
  }
  if (input.dedup) {
    dedupKind = input.dedup.kind;
    if (dedupKind === 'CALENDAR') {
      if (!input.dedup.calendarUnit)
        throw bad('dedup.calendarUnit (WEEK or MONTH) is required for CALENDAR dedup');
      dedupCalendarUnit = input.dedup.calendarUnit;
      if (input.dedupWindowDays != null) throw bad('dedupWindowDays applies to ROLLING dedup only');
    } else {
      dedupWindowDays = input.dedupWindowDays ?? DEFAULT_DEDUP_WINDOW_DAYS;
    }
  } else if (input.dedupWindowDays != null) {
    throw bad('dedupWindowDays needs dedup {kind: ROLLING}');
  }

  return {
    variant,
    urlState: input.urlState,
    name: input.name,
    description: input.description,
    scopeId: input.scopeId,
    queryName,
    currency: input.currency,
    queries: input.queries,
    evaluationPeriod: input.evaluationPeriod ?? 'DAILY',
    thresholdType: input.thresholdType ?? 'ABOVE',
    condition,
    conditionAdvancedExplorerQuery: explorerRequestOf(input.queries, condition, input.scopeId),
    dedupKind,
    dedupCalendarUnit,
    dedupWindowDays,
    notificationChannel: input.notificationChannel,
    ...target,
    minCost: input.minCost ?? null,
    tagIds: input.tagIds,
    thresholds: input.thresholds.map((t) => ({
      value: t.value,
      severityLevel: t.severityLevel,
      metricMode: t.metricMode,
      changeBasis: t.metricMode === 'ABSOLUTE_SPEND' ? 'ABSOLUTE_DELTA' : t.changeBasis,
    })),
  };
}

function firstSeriesQuery(input: CreateAlertInput): string | undefined {
  return input.queries.find((q) => q.type !== 'condition')?.name;
}

/**
 * The explorer request an alert is evaluated with: its queries by day over the last 90 days, plus
 * (condition alerts) the condition as a condition query named `alert_condition`.
 */
export function explorerRequestOf(
  queries: CreateAlertInput['queries'],
  condition: string | null,
  scopeId: string | null,
): ExplorerRequest {
  const conditionQuery =
    condition === null
      ? []
      : [
          {
            type: 'condition' as const,
            name: uniqueName(CONDITION_QUERY_NAME, queries),
            visible: true,
            colorIndex: 0,
            chartType: 'LINE' as const,
            expression: condition,
          },
        ];
  return {
    period: { datePreset: 'TRAILING_90_DAYS', aggBy: 'Day' },
    queries: [...queries, ...conditionQuery],
    ...(scopeId ? { scopeId } : {}),
  };
}

function uniqueName(base: string, queries: readonly { name: string }[]): string {
  let name = base;
  for (let i = 2; queries.some((q) => q.name === name); i++) name = `${base}_${i}`;
  return name;
}
