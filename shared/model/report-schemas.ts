import * as v from 'valibot';
import { REPORT_STATUSES, SCHEDULED_PERIODS } from '../enums';
import {
  COST_METRIC_IDS,
  DASHBOARD_CURRENCIES,
  DatePresetSchema,
  GroupBySchema,
  IdSchema,
  PageQuerySchema,
  VisibilitySchema,
} from './enum-schemas';
import {
  AliasSchema,
  DisplayOptionsSchema,
  duplicateQueryNames,
  QueryChartTypeSchema,
  QueryNameSchema,
  WhereClauseSchema,
} from './query-model';

/**
 * Report schemas. The spec shows the report fields as sent on update and only the TEXT widget;
 * the other widget shapes are ours (documented in docs/reports.md).
 */
export { REPORT_STATUSES, SCHEDULED_PERIODS } from '../enums';

const Title = v.optional(v.pipe(v.string(), v.maxLength(200)));
const Dimension = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/** TEXT: Markdown; the reference product's optional `title` (a heading above it) and `description` (kept, not shown). */
export const TextWidget = v.strictObject({
  type: v.literal('TEXT'),
  title: Title,
  description: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  contentMarkdown: v.pipe(v.string(), v.minLength(1), v.maxLength(10_000)),
});

/**
 * A cost query inside a DIGEST, TOP_FLOP or GRAPH_SNAPSHOT widget, as the reference product's report
 * model sends it: `{type: 'cost', name}` plus only the fields that override the report `context`
 * and the widget: `groupBy`, `metricId`, `currency`, a filter (`whereClause`, ANDed with the
 * context's `conditions`), and the chart's `alias` (its label) and `chartType`. Inheritance runs
 * context → widget → query (docs/reports.md, "Reference shapes").
 */
export const ReportCostQuery = v.strictObject({
  type: v.literal('cost', 'type must be cost: report widgets take cost queries'),
  name: QueryNameSchema,
  alias: v.optional(AliasSchema),
  chartType: v.optional(QueryChartTypeSchema),
  colorIndex: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))),
  groupBy: v.optional(GroupBySchema),
  metricId: v.optional(v.picklist(COST_METRIC_IDS)),
  currency: v.optional(v.picklist(DASHBOARD_CURRENCIES)),
  whereClause: v.optional(WhereClauseSchema),
});
export type ReportCostQueryValue = v.InferOutput<typeof ReportCostQuery>;

/** Exactly one cost query (a DIGEST's tree and a TOP_FLOP's ranking are of one series). */
const OneQuery = (widget: string) =>
  v.optional(
    v.pipe(v.array(ReportCostQuery), v.length(1, `a ${widget} widget takes exactly one cost query`)),
  );

/**
 * A budget query inside a GRAPH_SNAPSHOT (docs/queries.md, "Budget queries"): the budget's planned
 * amounts drawn next to the cost queries, in the chart's currency.
 */
export const ReportBudgetQuery = v.strictObject({
  type: v.literal('budget'),
  name: QueryNameSchema,
  alias: v.optional(AliasSchema),
  chartType: v.optional(QueryChartTypeSchema),
  colorIndex: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))),
  budgetId: IdSchema,
  line: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(500))),
});
export type ReportBudgetQueryValue = v.InferOutput<typeof ReportBudgetQuery>;

/** A GRAPH_SNAPSHOT draws 1 to 10 cost or budget queries, their names unique. */
const ChartQueries = v.optional(
  v.pipe(
    v.array(
      v.variant(
        'type',
        [ReportCostQuery, ReportBudgetQuery],
        'type must be cost or budget: a GRAPH_SNAPSHOT draws cost and budget queries',
      ),
    ),
    v.minLength(1, 'give at least one cost query, or leave queries out'),
    v.maxLength(10, 'a GRAPH_SNAPSHOT draws at most 10 queries'),
    v.check((qs) => duplicateQueryNames(qs).length === 0, 'query names must be unique within a widget'),
  ),
);

/** The root levels of a DIGEST tree: its query's `groupBy` dimensions when it names several, else one. */
function rootLevels(w: { queries?: ReportCostQueryValue[] | undefined }): number {
  const g = w.queries?.[0]?.groupBy;
  return Array.isArray(g) ? Math.max(1, g.length) : 1;
}

/** Defaults of a DIGEST's thresholds (docs/report-delivery.md). */
export const DIGEST_DEFAULTS = {
  minAbsoluteDiff: 100,
  minRelativeDiff: 5,
  topLargestAbsoluteChange: 20,
  display: 'tree',
} as const;
export const DIGEST_DISPLAYS = ['tree', 'table', 'summary'] as const;

/**
 * DIGEST, the reference product's change tree: root level = the report's `context.groupBy` (or the
 * widget's `groupBy` override), deeper levels = `additionalGroupBy`. Movers are the nodes whose
 * change is at least `minAbsoluteDiff` (currency) and `minRelativeDiff` (percent); the
 * `topLargestAbsoluteChange` (5, 10, 15 or 20) largest are shown. A table allows at most 2
 * group-bys (spec); a tree or summary 4.
 */
export const DigestWidget = v.pipe(
  v.strictObject({
    type: v.literal('DIGEST'),
    title: Title,
    groupBy: v.optional(v.nullable(Dimension)),
    queries: OneQuery('DIGEST'),
    datePreset: v.optional(v.nullable(DatePresetSchema)),
    /** Accepted as the reference sends it; a DIGEST always compares whole periods. */
    aggBy: v.optional(v.picklist(['Day', 'Week', 'Month', 'Period'])),
    additionalGroupBy: v.optional(v.pipe(v.array(Dimension), v.maxLength(3)), []),
    minAbsoluteDiff: v.optional(v.pipe(v.number(), v.minValue(0)), DIGEST_DEFAULTS.minAbsoluteDiff),
    minRelativeDiff: v.optional(v.pipe(v.number(), v.minValue(0)), DIGEST_DEFAULTS.minRelativeDiff),
    topLargestAbsoluteChange: v.optional(
      v.picklist([5, 10, 15, 20], 'must be 5, 10, 15 or 20'),
      DIGEST_DEFAULTS.topLargestAbsoluteChange,
    ),
    display: v.optional(v.picklist(DIGEST_DISPLAYS), DIGEST_DEFAULTS.display),
  }),
  v.check(
    (w) => w.display !== 'table' || rootLevels(w) + w.additionalGroupBy.length <= 2,
    'A table DIGEST widget allows at most 2 group-by dimensions',
  ),
  v.check(
    (w) => rootLevels(w) + w.additionalGroupBy.length <= 4,
    'A DIGEST widget allows at most 4 group-by dimensions',
  ),
);

/** TOP_FLOP: the `topN` largest increases and `flopN` largest decreases period over period. */
export const TopFlopWidget = v.strictObject({
  type: v.literal('TOP_FLOP'),
  title: Title,
  groupBy: v.optional(v.nullable(Dimension)),
  queries: OneQuery('TOP_FLOP'),
  datePreset: v.optional(v.nullable(DatePresetSchema)),
  aggBy: v.optional(v.picklist(['Period'], 'a TOP_FLOP ranks whole periods: aggBy must be Period')),
  topN: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(20)), 5),
  flopN: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(20)), 5),
});

/**
 * GRAPH_SNAPSHOT: a chart image of a dashboard widget (drawn with that widget's chart type and
 * display options), or of the report's own context (optionally grouped by `groupBy`, over its own
 * `datePreset` and `aggBy`, drawn as `chartType` with `displayOptions`).
 */
export const GraphSnapshotWidget = v.pipe(
  v.strictObject({
    type: v.literal('GRAPH_SNAPSHOT'),
    title: Title,
    dashboardId: v.optional(IdSchema),
    widgetKey: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    groupBy: v.optional(Dimension),
    queries: ChartQueries,
    datePreset: v.optional(v.nullable(DatePresetSchema)),
    aggBy: v.optional(v.picklist(['Day', 'Week', 'Month'])),
    chartType: v.optional(QueryChartTypeSchema, 'BAR'),
    displayOptions: v.optional(DisplayOptionsSchema),
  }),
  v.check(
    (w) => (w.dashboardId === undefined) === (w.widgetKey === undefined),
    'dashboardId and widgetKey go together: give both to snapshot a dashboard widget, or neither',
  ),
  v.check(
    (w) => w.dashboardId === undefined || w.queries === undefined,
    'a GRAPH_SNAPSHOT draws either a dashboard widget (dashboardId + widgetKey) or its own queries, not both',
  ),
);

/** DASHBOARD_PDF: a PDF of a dashboard's widgets, attached to the delivery. */
export const DashboardPdfWidget = v.strictObject({
  type: v.literal('DASHBOARD_PDF'),
  title: Title,
  dashboardId: IdSchema,
});

/**
 * COMMITMENTS (docs/commitments.md, "Report widget"): the period's commitment utilisation, coverage,
 * unused cost, savings and effective savings rate (the commitment metrics of the query model),
 * utilisation and coverage per `aggBy` bucket drawn as a chart, and the commitments ending within
 * `withinDays` days of the run.
 */
export const CommitmentsWidget = v.strictObject({
  type: v.literal('COMMITMENTS'),
  title: Title,
  datePreset: v.optional(DatePresetSchema),
  aggBy: v.optional(v.picklist(['Day', 'Week', 'Month']), 'Week'),
  withinDays: v.optional(v.picklist([30, 60, 90], 'must be 30, 60 or 90'), 90),
});

export const ReportWidget = v.variant('type', [
  TextWidget,
  DigestWidget,
  TopFlopWidget,
  GraphSnapshotWidget,
  DashboardPdfWidget,
  CommitmentsWidget,
]);

export const ReportContext = v.strictObject({
  metricId: v.optional(v.picklist(COST_METRIC_IDS), 'cost'),
  groupBy: v.optional(GroupBySchema, null),
  datePreset: v.optional(v.nullable(DatePresetSchema), 'LAST_MONTH'),
  currency: v.optional(v.nullable(v.picklist(DASHBOARD_CURRENCIES)), 'USD'),
  /** The report-wide filter: ANDed with each cost query's own `whereClause`. */
  conditions: v.optional(v.nullable(WhereClauseSchema)),
});

/**
 * `context` in a PATCH: each field optional and without a default, so that a partial context
 * changes only the fields it names (the service merges it into the stored context).
 */
export const PatchReportContext = v.strictObject({
  metricId: v.optional(v.picklist(COST_METRIC_IDS)),
  groupBy: v.optional(GroupBySchema),
  datePreset: v.optional(v.nullable(DatePresetSchema)),
  currency: v.optional(v.nullable(v.picklist(DASHBOARD_CURRENCIES))),
  conditions: v.optional(v.nullable(WhereClauseSchema)),
});

const SlackChannelId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{1,80}$/, 'must be a Slack channel id such as C0123ABCD'),
);
const EmailAddress = v.pipe(v.string(), v.maxLength(254), v.email('must be a valid email address'));

export const Destination = v.variant('destinationType', [
  v.strictObject({
    destinationType: v.literal('SLACK'),
    destinationValues: v.pipe(v.array(SlackChannelId), v.minLength(1), v.maxLength(50)),
  }),
  v.strictObject({
    destinationType: v.literal('EMAIL'),
    destinationValues: v.pipe(v.array(EmailAddress), v.minLength(1), v.maxLength(50)),
  }),
]);

const Name = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const Description = v.pipe(v.string(), v.maxLength(2000));
const Weekday = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(6)));

const reportFields = {
  name: Name,
  description: Description,
  type: VisibilitySchema,
  context: ReportContext,
  scheduledPeriod: v.nullable(v.picklist(SCHEDULED_PERIODS)),
  scheduledWeekday: Weekday,
  status: v.picklist(REPORT_STATUSES),
  widgets: v.pipe(v.array(ReportWidget), v.maxLength(50)),
  destinations: v.pipe(v.array(Destination), v.maxLength(10)),
  teamId: v.nullable(IdSchema),
};

export const CreateReportBody = v.strictObject({
  name: reportFields.name,
  description: v.optional(reportFields.description, ''),
  type: v.optional(reportFields.type, 'PRIVATE'),
  context: v.optional(reportFields.context, {}),
  scheduledPeriod: v.optional(reportFields.scheduledPeriod, null),
  scheduledWeekday: v.optional(reportFields.scheduledWeekday, null),
  status: v.optional(reportFields.status, 'ACTIVE'),
  widgets: v.optional(reportFields.widgets, []),
  destinations: v.optional(reportFields.destinations, []),
  teamId: v.optional(reportFields.teamId, null),
});

export const PatchReportBody = v.strictObject({
  name: v.optional(reportFields.name),
  description: v.optional(reportFields.description),
  type: v.optional(reportFields.type),
  context: v.optional(PatchReportContext),
  scheduledPeriod: v.optional(reportFields.scheduledPeriod),
  scheduledWeekday: v.optional(reportFields.scheduledWeekday),
  status: v.optional(reportFields.status),
  widgets: v.optional(reportFields.widgets),
  destinations: v.optional(reportFields.destinations),
  teamId: v.optional(reportFields.teamId),
});

/** The copy's name: at least 1 character once trimmed, as a name on create or PATCH. */
export const DuplicateReportBody = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'name must be at least 1 character'), v.maxLength(200)),
});

export const ReportIdParams = v.object({ id: IdSchema });

export const ListReportsQuery = v.object({
  ...PageQuerySchema.entries,
  includeArchived: v.optional(v.picklist(['true', 'false']), 'false'),
  teamId: v.optional(IdSchema),
  type: v.optional(VisibilitySchema),
});

export type CreateReportInput = v.InferOutput<typeof CreateReportBody>;
export type PatchReportInput = v.InferOutput<typeof PatchReportBody>;
export type ReportWidgetValue = v.InferOutput<typeof ReportWidget>;
export type ReportDestination = v.InferOutput<typeof Destination>;
export type ReportContextValue = v.InferOutput<typeof ReportContext>;

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/**
 * A report as the API answers it (`Report` in `model.ts`). Documents responses in the OpenAPI
 * document; handlers never parse their own answers with it.
 */
export const ReportRecord = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  description: v.string(),
  type: VisibilitySchema,
  teamId: v.nullable(v.string()),
  context: ReportContext,
  scheduledPeriod: v.nullable(v.picklist(SCHEDULED_PERIODS)),
  scheduledWeekday: Weekday,
  status: v.picklist(REPORT_STATUSES),
  widgets: v.array(ReportWidget),
  destinations: v.array(Destination),
  createdById: v.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  archivedAt: v.nullable(Timestamp),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  nextRunAt: v.nullable(Timestamp),
});

/** A page of `GET /reports`: pass `nextCursor` back as `cursor` while it is not null. */
export const ReportPage = v.object({
  items: v.array(ReportRecord),
  nextCursor: v.nullable(v.string()),
});

export const DuplicateReportResponse = v.object({ reportId: v.string() });

/** `POST /reports/preview-widget`: a context (defaults as on create) and one widget. */
export const PreviewWidgetBody = v.strictObject({
  context: v.optional(ReportContext, {}),
  widget: ReportWidget,
});

export const SendReportResponse = v.object({
  reportId: v.string(),
  runAt: Timestamp,
  destinations: v.number(),
});

export const ListDeliveriesQuery = v.object({ ...PageQuerySchema.entries });

export const DeliveryRecord = v.object({
  reportId: v.string(),
  runAt: Timestamp,
  trigger: v.picklist(['SCHEDULE', 'MANUAL']),
  destinationType: v.picklist(['EMAIL', 'SLACK']),
  destination: v.string(),
  status: v.picklist(['PENDING', 'SENT', 'FAILED']),
  attempts: v.number(),
  error: v.nullable(v.string()),
  sentAt: v.nullable(Timestamp),
  updatedAt: Timestamp,
});

export const DeliveryPage = v.object({ items: v.array(DeliveryRecord), nextCursor: v.nullable(v.string()) });
