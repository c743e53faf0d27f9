import * as v from 'valibot';
import {
  COST_METRIC_IDS,
  DASHBOARD_CURRENCIES,
  DatePresetSchema,
  GroupBySchema,
  IdSchema,
} from './enum-schemas';
import { WHERE_LIMITS, WhereClauseSchema } from './where-clause';

/**
 * The query model of the spec ("Query kinds", "Period object", widget `source`), shared by
 * dashboards and cost alerts. Every object is strict: an unknown or misspelt field is a 400 naming
 * its path rather than data silently stored. Defaults the spec names are applied here, so what is
 * stored (and read back) is the output of these schemas.
 *
 * Bounds the spec does not give (string lengths, list sizes, nesting depth) are ours; each one is
 * named in a constant below and listed in docs/dashboards.md.
 */

export const AGGREGATORS = ['SUM', 'AVG', 'MAX', 'MIN'] as const;
export const QUERY_CHART_TYPES = ['BAR', 'LINE', 'AREA', 'WATERFALL', 'TABLE'] as const;
export const COLOR_PALETTES = ['DEFAULT', 'PIYG', 'RDYLBU', 'CLASSIC'] as const;
export const SHIFT_UNITS = ['DAY', 'WEEK', 'MONTH'] as const;
export const WINDOW_PRESETS = ['MONTH', 'WEEK'] as const;
export const AGG_BY = ['Hour', 'Day', 'Week', 'Month', 'Period'] as const;
/** `period.forecastMethod`: `auto` (the forecasting model's choice) or a named method; `weekday-mean` is the legacy baseline. */
export const FORECAST_METHODS = [
  'auto',
  'ets',
  'theta',
  'ets-theta',
  'seasonal-naive',
  'weekday-mean',
] as const;
export const COMPARISON_CHART_TYPES = ['WATERFALL', 'TABLE', 'KPI_BREAKDOWN'] as const;
export { WHERE_COMBINATORS } from './where-clause';

/** Our bounds where the spec gives none. */
export const QUERY_LIMITS = {
  nameMaxLength: 64,
  aliasMinLength: 1,
  aliasMaxLength: 50,
  expressionMaxLength: 4000,
  queriesPerRequest: 50,
  ...WHERE_LIMITS,
  shiftAmountMax: 1000,
  relativeDaysMax: 3660,
  forecastDaysMax: 1095,
} as const;

export const QUERY_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const Text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));
const NonEmptyText = (max: number) =>
  v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
  );

/** RFC 3339 date-time (`2024-05-01T00:00:00Z`, offset or `Z` required), or null. */
export const DateTimeOrNull = v.nullable(
  v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time such as 2024-05-01T00:00:00Z')),
);

/**
 * What `POST /queries/explorer` takes for a period's dates: a date-time as above, or a plain
 * calendar date (`2026-08-01`), read as that day's UTC midnight (`2026-08-01T00:00:00Z`). The engine
 * takes both by their calendar date (docs/queries.md), so the answer is the same either way.
 */
export const DateOrDateTimeOrNull = v.nullable(
  v.union(
    [
      v.pipe(v.string(), v.isoTimestamp()),
      v.pipe(
        v.string(),
        v.isoDate(),
        v.check((day) => new Date(`${day}T00:00:00Z`).toISOString().startsWith(day)),
        v.transform((day) => `${day}T00:00:00Z`),
      ),
    ],
    'must be a date such as 2024-05-01 or an ISO 8601 date-time such as 2024-05-01T00:00:00Z',
  ),
);

export const AggregatorSchema = v.picklist(AGGREGATORS);
export const QueryChartTypeSchema = v.picklist(QUERY_CHART_TYPES);
export const ColorPaletteSchema = v.picklist(COLOR_PALETTES);
export const ShiftUnitSchema = v.picklist(SHIFT_UNITS);

export const QueryNameSchema = v.pipe(
  v.string(),
  v.regex(
    QUERY_NAME_PATTERN,
    'must match ^[A-Za-z_][A-Za-z0-9_]*$ (a letter or _, then letters, digits or _)',
  ),
  v.maxLength(QUERY_LIMITS.nameMaxLength, `must be at most ${QUERY_LIMITS.nameMaxLength} characters`),
);

export const AliasSchema = v.pipe(
  v.string(),
  v.minLength(QUERY_LIMITS.aliasMinLength, 'must be 1 to 50 characters'),
  v.maxLength(QUERY_LIMITS.aliasMaxLength, 'must be 1 to 50 characters'),
);

const FiniteNumber = v.pipe(v.number(), v.finite('must be a finite number'));

/**
 * `rollingAggregation`: `aggregator` and `window` are required. The spec lists `preset` and
 * `relativeDays` on `window` without saying which is required; we require at least one of them.
 */
export const RollingAggregationSchema = v.strictObject({
  aggregator: AggregatorSchema,
  window: v.pipe(
    v.strictObject({
      preset: v.optional(v.picklist(WINDOW_PRESETS)),
      relativeDays: v.optional(
        v.pipe(
          v.number(),
          v.integer('must be an integer'),
          v.minValue(1, 'must be at least 1'),
          v.maxValue(QUERY_LIMITS.relativeDaysMax, `must be at most ${QUERY_LIMITS.relativeDaysMax}`),
        ),
      ),
    }),
    v.check(
      (w) => w.preset !== undefined || w.relativeDays !== undefined,
      'window needs a preset (MONTH or WEEK) or relativeDays',
    ),
  ),
});

const ShiftAmountSchema = v.pipe(
  v.number(),
  v.integer('must be an integer'),
  v.minValue(-QUERY_LIMITS.shiftAmountMax, `must be at least -${QUERY_LIMITS.shiftAmountMax}`),
  v.maxValue(QUERY_LIMITS.shiftAmountMax, `must be at most ${QUERY_LIMITS.shiftAmountMax}`),
);

/** A shift is an amount and a unit; one without the other is meaningless, so both or neither. */
function shiftTogether<T extends { shiftAmount?: number | undefined; shiftUnit?: string | undefined }>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const q = dataset.value;
    if ((q.shiftAmount === undefined) === (q.shiftUnit === undefined)) return;
    const missing = q.shiftAmount === undefined ? 'shiftAmount' : 'shiftUnit';
    addIssue({
      message: 'shiftAmount and shiftUnit go together: give both or neither',
      path: [
        {
          type: 'object',
          origin: 'value',
          input: q as Record<string, unknown>,
          key: missing,
          value: undefined,
        },
      ],
    });
  });
}

// ---------------------------------------------------------------------------------------------
// whereClause: `{combinator, rules: [{field, operator, value[]} | nested group]}` (./where-clause.ts)

export {
  type WhereClause,
  WhereClauseSchema,
  type WhereRule,
  WhereRuleSchema,
} from './where-clause';

// ---------------------------------------------------------------------------------------------
// Query kinds

const commonEntries = {
  name: QueryNameSchema,
  alias: v.optional(AliasSchema),
  visible: v.optional(v.boolean(), true),
  colorIndex: FiniteNumber,
  chartType: QueryChartTypeSchema,
};

const shiftEntries = {
  shiftAmount: v.optional(ShiftAmountSchema),
  shiftUnit: v.optional(ShiftUnitSchema),
};

/** A condition's `expression` or a formula's `formula` (docs/expressions.md). */
const ExpressionText = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(
    QUERY_LIMITS.expressionMaxLength,
    `must be at most ${QUERY_LIMITS.expressionMaxLength} characters`,
  ),
);

export const ConditionQuerySchema = v.strictObject({
  type: v.literal('condition'),
  ...commonEntries,
  expression: ExpressionText,
});

const FormulaQueryObject = v.strictObject({
  type: v.literal('formula'),
  ...commonEntries,
  formula: ExpressionText,
  rollingAggregation: v.optional(RollingAggregationSchema),
  ...shiftEntries,
});
export const FormulaQuerySchema = v.pipe(FormulaQueryObject, shiftTogether());

const MetricQueryObject = v.strictObject({
  type: v.literal('metric'),
  ...commonEntries,
  metricId: NonEmptyText(200),
  aggregator: AggregatorSchema,
  rawMetric: v.optional(Text(200)),
  groupBy: v.optional(GroupBySchema),
  unitOverride: v.optional(Text(50)),
  reducer: v.optional(AggregatorSchema),
  colorPalette: v.optional(ColorPaletteSchema, 'DEFAULT'),
  rollingAggregation: v.optional(RollingAggregationSchema),
  ...shiftEntries,
});
export const MetricQuerySchema = v.pipe(MetricQueryObject, shiftTogether());

/**
 * The spec lists cost fields up to `rollingAggregation` and says the rest are not shown; we add
 * `shiftAmount`/`shiftUnit`, which every other series kind carries in the same order.
 */
const CostQueryObject = v.strictObject({
  type: v.literal('cost'),
  ...commonEntries,
  groupBy: v.optional(GroupBySchema),
  aggregator: v.optional(AggregatorSchema),
  currency: v.optional(v.picklist(DASHBOARD_CURRENCIES)),
  whereClause: v.optional(WhereClauseSchema),
  metricId: v.optional(v.picklist(COST_METRIC_IDS)),
  extendDashboardConditions: v.optional(v.boolean(), true),
  reducer: v.optional(AggregatorSchema),
  colorPalette: v.optional(ColorPaletteSchema, 'DEFAULT'),
  rollingAggregation: v.optional(RollingAggregationSchema),
  ...shiftEntries,
});
export const CostQuerySchema = v.pipe(CostQueryObject, shiftTogether());

/**
 * A budget's planned amounts as a daily series (issue 28; docs/queries.md, "Budget queries"):
 * `line` names a line's value, omitted for the budget's total (every line summed).
 */
export const BudgetQuerySchema = v.strictObject({
  type: v.literal('budget'),
  ...commonEntries,
  budgetId: IdSchema,
  line: v.optional(NonEmptyText(500)),
});

/** The query types, in the order error messages list them. */
export const QUERY_TYPES = ['cost', 'metric', 'formula', 'condition', 'budget'] as const;
const TYPE_MESSAGE = `type must be one of ${QUERY_TYPES.join(', ')}`;

/** One query, discriminated by `type`: `cost`, `metric`, `formula`, `condition` or `budget`. */
export const QuerySchema = v.variant(
  'type',
  [CostQuerySchema, MetricQuerySchema, FormulaQuerySchema, ConditionQuerySchema, BudgetQuerySchema],
  TYPE_MESSAGE,
);

/** Index pairs of queries sharing a name: each later duplicate, with the index of the first. */
export function duplicateQueryNames(
  queries: readonly { name: string }[],
): { index: number; first: number }[] {
  const seen = new Map<string, number>();
  const out: { index: number; first: number }[] = [];
  queries.forEach((q, index) => {
    const first = seen.get(q.name);
    if (first === undefined) seen.set(q.name, index);
    else out.push({ index, first });
  });
  return out;
}

/** A pipe check: every query's name is unique; a duplicate is reported at `<index>.name`. */
function uniqueQueryNames<T extends { name: string }>() {
  return v.rawCheck<T[]>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const list = dataset.value;
    for (const { index, first } of duplicateQueryNames(list)) {
      const query = list[index]!;
      addIssue({
        message: `query name "${query.name}" is already used by query ${first}; names must be unique`,
        path: [
          { type: 'array', origin: 'value', input: list, key: index, value: query },
          { type: 'object', origin: 'value', input: query, key: 'name', value: query.name },
        ],
      });
    }
  });
}

const TOO_MANY_QUERIES = `must hold at most ${QUERY_LIMITS.queriesPerRequest} queries`;

/**
 * A list of queries whose names are unique (formulas and conditions refer to queries by name).
 * A duplicate is reported at `<index>.name`. Callers add their own minimum length.
 */
export const QueriesSchema = v.pipe(
  v.array(QuerySchema),
  v.maxLength(QUERY_LIMITS.queriesPerRequest, TOO_MANY_QUERIES),
  uniqueQueryNames(),
);

/** The display-only common fields, which an explorer call may leave out. */
const DISPLAY_ONLY = ['colorIndex', 'chartType'] as const;
/** The `chartType` of an explorer query that names none. */
export const DEFAULT_QUERY_CHART_TYPE = 'BAR';

/**
 * The queries of `POST /queries/explorer`: as `QueriesSchema`, except that `colorIndex` and
 * `chartType` only say how a chart draws a series, so a call may leave them out: `chartType`
 * becomes BAR and `colorIndex` the query's position in the list.
 */
export const ExplorerQueriesSchema = v.pipe(
  v.array(
    v.variant(
      'type',
      [
        v.pipe(v.partial(CostQueryObject, DISPLAY_ONLY), shiftTogether()),
        v.pipe(v.partial(MetricQueryObject, DISPLAY_ONLY), shiftTogether()),
        v.pipe(v.partial(FormulaQueryObject, DISPLAY_ONLY), shiftTogether()),
        v.partial(ConditionQuerySchema, DISPLAY_ONLY),
        v.partial(BudgetQuerySchema, DISPLAY_ONLY),
      ],
      TYPE_MESSAGE,
    ),
  ),
  v.maxLength(QUERY_LIMITS.queriesPerRequest, TOO_MANY_QUERIES),
  uniqueQueryNames(),
  v.transform((list): Query[] =>
    list.map((query, index) => ({
      ...query,
      colorIndex: query.colorIndex ?? index,
      chartType: query.chartType ?? DEFAULT_QUERY_CHART_TYPE,
    })),
  ),
);

// ---------------------------------------------------------------------------------------------
// Period, events filter, display options, widget source

export const ComparisonPeriodSchema = v.strictObject({
  startDate: DateTimeOrNull,
  endDate: DateTimeOrNull,
  enabled: v.boolean(),
  chartType: v.picklist(COMPARISON_CHART_TYPES),
});

/** A pipe check: `startDate` must not be after `endDate` when both are given (reported at `endDate`). */
export function datesInOrder<
  T extends { startDate?: string | null | undefined; endDate?: string | null | undefined },
>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { startDate, endDate } = dataset.value;
    if (!startDate || !endDate) return;
    const start = Date.parse(startDate);
    const end = Date.parse(endDate);
    if (Number.isNaN(start) || Number.isNaN(end)) {
      addIssue({
        message: 'is not a valid date',
        path: [
          {
            type: 'object',
            origin: 'value',
            input: dataset.value as Record<string, unknown>,
            key: Number.isNaN(start) ? 'startDate' : 'endDate',
            value: Number.isNaN(start) ? startDate : endDate,
          },
        ],
      });
      return;
    }
    if (start > end) {
      addIssue({
        message: 'endDate must not be before startDate',
        path: [
          {
            type: 'object',
            origin: 'value',
            input: dataset.value as Record<string, unknown>,
            key: 'endDate',
            value: endDate,
          },
        ],
      });
    }
  });
}

const PeriodObject = v.strictObject({
  startDate: v.optional(DateTimeOrNull),
  endDate: v.optional(DateTimeOrNull),
  datePreset: v.optional(v.nullable(DatePresetSchema)),
  aggBy: v.picklist(AGG_BY),
  forecastDays: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be an integer'),
      v.minValue(0, 'must be at least 0'),
      v.maxValue(QUERY_LIMITS.forecastDaysMax, `must be at most ${QUERY_LIMITS.forecastDaysMax}`),
    ),
  ),
  /** The forecast's method: the model's backtest choice, or one named (docs/queries.md, "Forecast"). */
  forecastMethod: v.optional(v.picklist(FORECAST_METHODS)),
  comparisonPeriod: v.optional(v.pipe(ComparisonPeriodSchema, datesInOrder())),
});
export const PeriodSchema = v.pipe(PeriodObject, datesInOrder());

/** The period of `POST /queries/explorer`: as `PeriodSchema`, its dates also plain dates (`2026-08-01`). */
export const ExplorerPeriodSchema = v.pipe(
  v.strictObject({
    ...PeriodObject.entries,
    startDate: v.optional(DateOrDateTimeOrNull),
    endDate: v.optional(DateOrDateTimeOrNull),
    comparisonPeriod: v.optional(
      v.pipe(
        v.strictObject({
          ...ComparisonPeriodSchema.entries,
          startDate: DateOrDateTimeOrNull,
          endDate: DateOrDateTimeOrNull,
        }),
        datesInOrder(),
      ),
    ),
  }),
  datesInOrder(),
);

export const EventsFilterSchema = v.strictObject({
  sources: v.optional(v.pipe(v.array(NonEmptyText(100)), v.maxLength(50))),
  githubSourceRepos: v.optional(v.pipe(v.array(NonEmptyText(200)), v.maxLength(200))),
  search: v.optional(Text(500), ''),
});

export const DisplayOptionsSchema = v.strictObject({
  hideEmptyRows: v.optional(v.boolean()),
  topN: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0), v.maxValue(10_000))),
  showTotal: v.optional(v.boolean()),
  precision: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0), v.maxValue(20))),
});

/** The `request` of an `advancedExplorer` widget source. */
export const ExplorerRequestSchema = v.strictObject({
  period: PeriodSchema,
  queries: QueriesSchema,
  bookmarkedEvents: v.optional(v.pipe(v.array(NonEmptyText(200)), v.maxLength(500))),
  eventsFilter: v.optional(EventsFilterSchema),
  scopeId: v.optional(IdSchema),
  limitOverride: v.optional(
    v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1), v.maxValue(100_000)),
  ),
  displayOptions: v.optional(DisplayOptionsSchema),
});

/**
 * The `request` of `POST /queries/explorer`: a widget's request, which a caller may also write
 * with plain dates and without the display-only `colorIndex`/`chartType` (defaulted; the output is
 * a widget's request, date-times and all).
 */
export const ExplorerCallRequestSchema = v.strictObject({
  ...ExplorerRequestSchema.entries,
  period: ExplorerPeriodSchema,
  queries: ExplorerQueriesSchema,
});

export const AdvancedExplorerSourceSchema = v.strictObject({
  type: v.literal('advancedExplorer'),
  request: ExplorerRequestSchema,
});

/** Widget `source`, discriminated by `type`; `advancedExplorer` is the only kind the spec shows. */
export const WidgetSourceSchema = v.variant(
  'type',
  [AdvancedExplorerSourceSchema],
  'type must be advancedExplorer',
);

export type Query = v.InferOutput<typeof QuerySchema>;
export type QueryInput = v.InferInput<typeof QuerySchema>;
export type Period = v.InferOutput<typeof PeriodSchema>;
export type ExplorerRequest = v.InferOutput<typeof ExplorerRequestSchema>;
export type WidgetSource = v.InferOutput<typeof WidgetSourceSchema>;
