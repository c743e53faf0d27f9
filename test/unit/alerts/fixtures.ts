/** Alert bodies for the alert tests: one valid body per variant, to be varied field by field. */
export const costQuery = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'cost',
  name,
  colorIndex: 0,
  chartType: 'LINE',
  metricId: 'effective_cost',
  ...extra,
});

export function conditionBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'EC2 spike',
    description: 'EC2 daily cost above its 28-day median',
    urlState: 'groupBy=ServiceName&datePreset=TRAILING_30_DAYS',
    currency: 'USD',
    queries: [
      costQuery('ec2', {
        whereClause: {
          combinator: 'and',
          rules: [{ field: 'ServiceName', operator: 'in', value: ['Amazon EC2'] }],
        },
      }),
    ],
    condition: 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5 and ec2 > 100',
    dedup: { kind: 'CALENDAR', calendarUnit: 'WEEK' },
    thresholds: [],
    notificationChannel: 'EMAIL',
    emails: ['finops@example.com'],
    ...extra,
  };
}

/** A threshold alert on the one `spend` cost query: the variants below differ only in these fields. */
function spendThresholdBody(
  fields: { name: string; currency: string; threshold: Record<string, unknown>; evaluationPeriod: string },
  channel: Record<string, unknown>,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  return {
    name: fields.name,
    currency: fields.currency,
    queries: [costQuery('spend')],
    thresholds: [fields.threshold],
    thresholdType: 'ABOVE',
    evaluationPeriod: fields.evaluationPeriod,
    ...channel,
    ...extra,
  };
}

export function thresholdBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return spendThresholdBody(
    {
      name: 'Daily spend above 1000',
      currency: 'EUR',
      threshold: {
        value: 1000,
        severityLevel: 'INFO',
        metricMode: 'ABSOLUTE_SPEND',
        changeBasis: 'ABSOLUTE_DELTA',
      },
      evaluationPeriod: 'DAILY',
    },
    { notificationChannel: 'SLACK', slackChannelId: 'C0123456' },
    extra,
  );
}

export function periodChangeBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return spendThresholdBody(
    {
      name: 'Week over week +20%',
      currency: 'GBP',
      threshold: {
        value: 20,
        severityLevel: 'WARNING',
        metricMode: 'PERIOD_CHANGE',
        changeBasis: 'PERCENTAGE',
      },
      evaluationPeriod: 'WEEKLY',
    },
    {
      notificationChannel: 'TEAMS',
      teamsChannelId:
        'https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x',
    },
    extra,
  );
}
