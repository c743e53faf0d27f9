import * as v from 'valibot';
import { ALERT_CURRENCIES } from '../../enums';
import {
  ALERT_CHANNELS,
  CALENDAR_UNITS,
  CHANGE_BASES,
  DEDUP_KINDS,
  EVALUATION_PERIODS,
  METRIC_MODES,
  SEVERITY_LEVELS,
  THRESHOLD_TYPES,
} from '../../model/alerts';
import { IdSchema, PageQuerySchema } from '../../model/enum-schemas';
import { QueriesSchema } from '../../model/query-model';

/**
 * Request schemas of the alert routes. The shape checks live here (each failure is a 400 naming
 * the field); the rules that need several fields at once (which variant, the channel's target, the
 * condition against the queries, the Teams URL) are in `./rules.ts`.
 */
export const ALERT_LIMITS = {
  nameMaxLength: 200,
  descriptionMaxLength: 2000,
  urlStateMaxLength: 8000,
  emailsMax: 50,
  thresholdsMax: 10,
  tagIdsMax: 50,
  dedupWindowDaysMax: 365,
  teamsUrlMaxLength: 2048,
  conditionMaxLength: 4000,
} as const;

export const SLACK_CHANNEL_PATTERN = /^[A-Za-z0-9_-]{1,80}$/;

const NoControlChars = (what: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse them
  v.regex(/^[^\u0000-\u001f\u007f]*$/, `${what} must not contain control characters (CR, LF, tab…)`);

export const EmailSchema = v.pipe(
  v.string(),
  v.maxLength(254, 'must be at most 254 characters'),
  NoControlChars('an e-mail address'),
  v.email('must be a valid e-mail address'),
);

export const EmailsSchema = v.pipe(
  v.array(EmailSchema),
  v.maxLength(ALERT_LIMITS.emailsMax, `must hold at most ${ALERT_LIMITS.emailsMax} addresses`),
);

export const ChannelSchema = v.picklist(ALERT_CHANNELS, 'must be one of EMAIL, SLACK, TEAMS');

export const SlackChannelIdSchema = v.pipe(
  v.string(),
  v.regex(SLACK_CHANNEL_PATTERN, 'must be a Slack channel id (letters, digits, _ or -, at most 80)'),
);

export const TeamsUrlSchema = v.pipe(
  v.string(),
  v.maxLength(ALERT_LIMITS.teamsUrlMaxLength, `must be at most ${ALERT_LIMITS.teamsUrlMaxLength} characters`),
);

export const ThresholdInputSchema = v.strictObject({
  value: v.pipe(v.number(), v.finite('must be a finite number')),
  severityLevel: v.optional(v.picklist(SEVERITY_LEVELS, 'must be one of INFO, WARNING, CRITICAL'), 'INFO'),
  metricMode: v.optional(
    v.picklist(METRIC_MODES, 'must be one of ABSOLUTE_SPEND, PERIOD_CHANGE'),
    'ABSOLUTE_SPEND',
  ),
  changeBasis: v.optional(
    v.picklist(CHANGE_BASES, 'must be one of ABSOLUTE_DELTA, PERCENTAGE'),
    'ABSOLUTE_DELTA',
  ),
});

export const DedupSchema = v.strictObject({
  kind: v.picklist(DEDUP_KINDS, 'must be CALENDAR or ROLLING'),
  calendarUnit: v.optional(v.nullable(v.picklist(CALENDAR_UNITS, 'must be WEEK or MONTH'))),
});

const alertEntries = {
  name: v.pipe(
    v.string(),
    v.transform((s) => s.trim()),
    v.minLength(1, 'must not be empty'),
    v.maxLength(ALERT_LIMITS.nameMaxLength, `must be at most ${ALERT_LIMITS.nameMaxLength} characters`),
    NoControlChars('name'),
  ),
  description: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(
        ALERT_LIMITS.descriptionMaxLength,
        `must be at most ${ALERT_LIMITS.descriptionMaxLength} characters`,
      ),
    ),
    '',
  ),
  urlState: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(
        ALERT_LIMITS.urlStateMaxLength,
        `must be at most ${ALERT_LIMITS.urlStateMaxLength} characters`,
      ),
      v.regex(/^[^\s#]*$/, 'must be a query string (no spaces or #)'),
      v.transform((s) => s.replace(/^\?/, '')),
    ),
    '',
  ),
  scopeId: v.optional(v.nullable(IdSchema), null),
  queryName: v.optional(v.string()),
  currency: v.picklist(ALERT_CURRENCIES, 'must be one of USD, EUR, GBP, CNY (KRW is not allowed on alerts)'),
  queries: v.pipe(QueriesSchema, v.minLength(1, 'must hold at least one query')),
  condition: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.maxLength(
          ALERT_LIMITS.conditionMaxLength,
          `must be at most ${ALERT_LIMITS.conditionMaxLength} characters`,
        ),
      ),
    ),
  ),
  dedup: v.optional(v.nullable(DedupSchema)),
  dedupWindowDays: v.optional(
    v.nullable(
      v.pipe(
        v.number(),
        v.integer('must be a whole number of days'),
        v.minValue(1, 'must be at least 1'),
        v.maxValue(ALERT_LIMITS.dedupWindowDaysMax, `must be at most ${ALERT_LIMITS.dedupWindowDaysMax}`),
      ),
    ),
  ),
  thresholds: v.optional(
    v.pipe(
      v.array(ThresholdInputSchema),
      v.maxLength(ALERT_LIMITS.thresholdsMax, `must hold at most ${ALERT_LIMITS.thresholdsMax} thresholds`),
    ),
    [],
  ),
  evaluationPeriod: v.optional(v.picklist(EVALUATION_PERIODS, 'must be one of DAILY, WEEKLY, MONTHLY')),
  thresholdType: v.optional(v.picklist(THRESHOLD_TYPES, 'must be ABOVE or UNDER')),
  minCost: v.optional(v.nullable(v.pipe(v.number(), v.finite(), v.minValue(0, 'must be at least 0')))),
  notificationChannel: ChannelSchema,
  emails: v.optional(EmailsSchema, []),
  slackChannelId: v.optional(v.nullable(SlackChannelIdSchema)),
  teamsChannelId: v.optional(v.nullable(TeamsUrlSchema)),
  tagIds: v.optional(
    v.pipe(
      v.array(IdSchema),
      v.maxLength(ALERT_LIMITS.tagIdsMax, `must hold at most ${ALERT_LIMITS.tagIdsMax} tags`),
    ),
    [],
  ),
};

/** The create body: every variant's fields; `rules.ts` decides the variant and its required fields. */
export const CreateAlertBody = v.strictObject(alertEntries);
export type CreateAlertInput = v.InferOutput<typeof CreateAlertBody>;

/**
 * The update body: the create body again, whole (PUT semantics: the alert is replaced by the body,
 * keeping id, organisation, creator, creation time, archive and snooze state).
 */
export const UpdateAlertBody = CreateAlertBody;

export const AlertIdParams = v.object({ id: IdSchema });

export const ListAlertsQuery = v.object({
  ...PageQuerySchema.entries,
  includeArchived: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false'),
});

export const SnoozeBody = v.strictObject({
  until: v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time such as 2026-12-01T00:00:00Z')),
});

export const SendTestBody = v.strictObject({
  notificationChannel: ChannelSchema,
  emails: v.optional(EmailsSchema, []),
  slackChannelId: v.optional(v.nullable(SlackChannelIdSchema)),
  teamsChannelId: v.optional(v.nullable(TeamsUrlSchema)),
});
export type SendTestInput = v.InferOutput<typeof SendTestBody>;

// Response schemas (OpenAPI only).
/** The spec's "Cost alert" record, field for field (`COST_ALERT_FIELDS`): no other field is answered. */
const RecordSchema = v.strictObject({
  id: v.string(),
  organizationId: v.string(),
  createdById: v.string(),
  scopeId: v.nullable(v.string()),
  createdAt: v.string(),
  archivedAt: v.nullable(v.string()),
  snoozedUntil: v.nullable(v.string()),
  urlState: v.string(),
  name: v.string(),
  description: v.string(),
  queryName: v.string(),
  currency: v.picklist(ALERT_CURRENCIES),
  queries: QueriesSchema,
  evaluationPeriod: v.picklist(EVALUATION_PERIODS),
  thresholdType: v.picklist(THRESHOLD_TYPES),
  condition: v.nullable(v.string()),
  conditionAdvancedExplorerQuery: v.looseObject({}),
  dedupKind: v.nullable(v.picklist(DEDUP_KINDS)),
  dedupCalendarUnit: v.nullable(v.picklist(CALENDAR_UNITS)),
  dedupWindowDays: v.nullable(v.number()),
  notificationChannel: v.picklist(ALERT_CHANNELS),
  emails: v.array(v.string()),
  slackChannelId: v.nullable(v.string()),
  teamsChannelId: v.nullable(v.string()),
});
export const AlertRecordSchema = RecordSchema;
export const AlertPageSchema = v.object({ items: v.array(RecordSchema), nextCursor: v.nullable(v.string()) });
export const WidgetDataSchema = v.strictObject({
  ...RecordSchema.entries,
  thresholds: v.array(
    v.object({
      id: v.string(),
      costAlertId: v.string(),
      budgetAlertId: v.nullable(v.string()),
      value: v.number(),
      severityLevel: v.string(),
      metricMode: v.string(),
      changeBasis: v.string(),
    }),
  ),
  /** The last 30 complete days with the rule drawn over them (docs/alerts.md); null without data. */
  series: v.nullable(
    v.object({
      dataThrough: v.string(),
      aggBy: v.literal('Day'),
      dates: v.array(v.string()),
      queries: v.array(v.object({ name: v.string(), values: v.array(v.nullable(v.number())) })),
      condition: v.optional(v.array(v.number())),
      baselines: v.optional(v.array(v.object({ key: v.string(), values: v.array(v.nullable(v.number())) }))),
      thresholds: v.optional(
        v.array(
          v.object({
            value: v.number(),
            severityLevel: v.string(),
            metricMode: v.string(),
            changeBasis: v.string(),
          }),
        ),
      ),
      triggered: v.array(v.boolean()),
      fired: v.array(v.boolean()),
    }),
  ),
});
const Days = v.object({ start: v.string(), end: v.string() });
const Percent = v.nullable(v.number());
/** `RootCauses` (root-causes.ts) as the history answers it. */
const RootCausesSchema = v.object({
  dimension: v.string(),
  query: v.string(),
  period: Days,
  baseline: v.object({ ...Days.entries, label: v.string() }),
  before: v.number(),
  after: v.number(),
  change: v.number(),
  top: v.array(
    v.object({
      label: v.string(),
      before: v.number(),
      after: v.number(),
      change: v.number(),
      changePercent: Percent,
      share: Percent,
    }),
  ),
  explained: Percent,
});
/** One evaluation (`AlertEvaluation`, model.ts). */
const EvaluationSchema = v.object({
  alertId: v.string(),
  evaluatedAt: v.string(),
  evaluatedDay: v.string(),
  values: v.record(v.string(), v.nullable(v.number())),
  triggered: v.boolean(),
  suppressedBy: v.nullable(v.picklist(['DEDUP', 'SNOOZE', 'MIN_COST'])),
  notificationId: v.nullable(v.string()),
  rootCauses: v.nullable(RootCausesSchema),
});
export const HistoryPageSchema = v.object({
  items: v.array(EvaluationSchema),
  nextCursor: v.nullable(v.string()),
});
export const SendTestResponse = v.object({ message: v.string() });

/** `POST /alerts-v2/costAlerts/backtest` (docs/alerts.md). */
export const BacktestResponse = v.object({
  dataThrough: v.nullable(v.string()),
  from: v.nullable(v.string()),
  days: v.number(),
  fired: v.array(v.object({ day: v.string(), values: v.record(v.string(), v.nullable(v.number())) })),
  notifications: v.array(v.string()),
  notificationCount: v.number(),
});
