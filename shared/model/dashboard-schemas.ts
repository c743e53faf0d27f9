import * as v from 'valibot';
import {
  DASHBOARD_CURRENCIES,
  DatePresetSchema,
  IdSchema,
  PageQuerySchema,
  VisibilitySchema,
} from './enum-schemas';
import { datesInOrder, WidgetSourceSchema } from './query-model';

/**
 * Dashboard bodies (spec: "Dashboard (create and publish body)", "Dashboard widget"). Objects are
 * strict, so server-owned fields (`id`, `organizationId`, `createdById`, `archivedAt`, …) in a
 * body are a 400, never stored. Every optional field has a stored default, so reads always carry
 * the full shape.
 */
export const DASHBOARD_LIMITS = {
  /** Past either cap a create or publish is a 413 and nothing is written. */
  maxWidgets: 500,
  maxJsonBytes: 1024 * 1024,
  /** `conditions` is stored on the metadata item, which every list read returns. */
  maxConditionsBytes: 64 * 1024,
  conditionsMaxDepth: 16,
  /** Saved versions kept per dashboard; publishing past it deletes the oldest in the same transaction. */
  maxVersions: 50,
  nameMaxLength: 200,
  descriptionMaxLength: 2000,
  widgetKeyMaxLength: 100,
  widgetTitleMaxLength: 500,
  widgetDescriptionMaxLength: 5000,
} as const;

const GRID_MAX = 10_000;

const Name = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(DASHBOARD_LIMITS.nameMaxLength, `must be at most ${DASHBOARD_LIMITS.nameMaxLength} characters`),
);
const Description = v.pipe(
  v.string(),
  v.maxLength(
    DASHBOARD_LIMITS.descriptionMaxLength,
    `must be at most ${DASHBOARD_LIMITS.descriptionMaxLength} characters`,
  ),
);

/** Dashboard-level dates: a calendar date (`2024-05-01`) or an ISO date-time, or null. */
const ContextDate = v.nullable(
  v.pipe(
    v.string(),
    v.check(
      (s) => v.is(v.pipe(v.string(), v.isoDate()), s) || v.is(v.pipe(v.string(), v.isoTimestamp()), s),
      'must be a date (2024-05-01) or an ISO 8601 date-time',
    ),
  ),
);

function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let max = depth + 1;
  for (const child of Object.values(value as Record<string, unknown>)) {
    max = Math.max(max, depthOf(child, limit, depth + 1));
    if (max > limit) break;
  }
  return max;
}

/** `conditions`: a free-form filter object, bounded in nesting so it always fits a DynamoDB item. */
const Conditions = v.nullable(
  v.pipe(
    // valibot's record() would turn an array into an object; refuse arrays first.
    v.custom<Record<string, unknown>>(
      (c) => typeof c === 'object' && c !== null && !Array.isArray(c),
      'must be an object or null',
    ),
    v.metadata({ type: 'object', description: 'A free-form filter object (a JSON object, not an array).' }),
    v.record(v.string(), v.unknown()),
    v.check(
      (c) => depthOf(c, DASHBOARD_LIMITS.conditionsMaxDepth) <= DASHBOARD_LIMITS.conditionsMaxDepth,
      `must nest at most ${DASHBOARD_LIMITS.conditionsMaxDepth} levels deep`,
    ),
  ),
);

const GridNumber = (min: 'zero' | 'positive') =>
  v.pipe(
    v.number(),
    v.finite('must be a finite number'),
    min === 'zero' ? v.minValue(0, 'must be at least 0') : v.gtValue(0, 'must be greater than 0'),
    v.maxValue(GRID_MAX, `must be at most ${GRID_MAX}`),
  );

export const WidgetSchema = v.strictObject({
  key: v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(
      DASHBOARD_LIMITS.widgetKeyMaxLength,
      `must be at most ${DASHBOARD_LIMITS.widgetKeyMaxLength} characters`,
    ),
  ),
  x: GridNumber('zero'),
  y: GridNumber('zero'),
  w: GridNumber('positive'),
  h: GridNumber('positive'),
  title: v.pipe(
    v.string(),
    v.maxLength(
      DASHBOARD_LIMITS.widgetTitleMaxLength,
      `must be at most ${DASHBOARD_LIMITS.widgetTitleMaxLength} characters`,
    ),
  ),
  description: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(
        DASHBOARD_LIMITS.widgetDescriptionMaxLength,
        `must be at most ${DASHBOARD_LIMITS.widgetDescriptionMaxLength} characters`,
      ),
    ),
    '',
  ),
  source: WidgetSourceSchema,
});

/** Widget keys identify a widget within its dashboard (reports snapshot a widget by key): unique. */
const Widgets = v.pipe(
  v.array(WidgetSchema),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const seen = new Map<string, number>();
    dataset.value.forEach((widget, index) => {
      const first = seen.get(widget.key);
      if (first === undefined) {
        seen.set(widget.key, index);
        return;
      }
      addIssue({
        message: `widget key "${widget.key}" is already used by widget ${first}; keys must be unique`,
        path: [
          { type: 'array', origin: 'value', input: dataset.value, key: index, value: widget },
          { type: 'object', origin: 'value', input: widget, key: 'key', value: widget.key },
        ],
      });
    });
  }),
);

const TeamId = v.nullable(IdSchema);
const ScopeId = v.nullable(IdSchema);
const MetricId = v.nullable(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(200)));
const GroupBy = v.nullable(v.pipe(v.string(), v.maxLength(200)));
const DatePreset = v.nullable(DatePresetSchema);
const Currency = v.nullable(v.picklist(DASHBOARD_CURRENCIES));

/** The dashboard body fields with their defaults (spec table "Dashboard (create and publish body)"). */
const dashboardEntries = {
  name: Name,
  description: v.optional(Description, ''),
  type: v.optional(VisibilitySchema, 'PRIVATE'),
  teamId: v.optional(TeamId, null),
  scopeId: v.optional(ScopeId, null),
  metricId: v.optional(MetricId, null),
  groupBy: v.optional(GroupBy, null),
  datePreset: v.optional(DatePreset, null),
  startDate: v.optional(ContextDate, null),
  endDate: v.optional(ContextDate, null),
  conditions: v.optional(Conditions, null),
  currency: v.optional(Currency, null),
  widgets: v.optional(Widgets, []),
};

/** Optimistic-locking token: the record's `version` as last read (also accepted as `If-Match`). */
export const VersionSchema = v.pipe(
  v.number(),
  v.integer('must be an integer'),
  v.minValue(1, 'must be at least 1'),
);

export const CreateDashboardBody = v.pipe(v.strictObject(dashboardEntries), datesInOrder());

/** Publish: the create body (replacing every field, defaults included) plus the `version` read. */
export const PublishDashboardBody = v.pipe(
  v.strictObject({ ...dashboardEntries, version: v.optional(VersionSchema) }),
  datesInOrder(),
);

/** PATCH: metadata and context only; omitted fields stay as stored. `widgets` is not accepted. */
export const PatchDashboardBody = v.strictObject({
  name: v.optional(Name),
  description: v.optional(Description),
  type: v.optional(VisibilitySchema),
  teamId: v.optional(TeamId),
  scopeId: v.optional(ScopeId),
  metricId: v.optional(MetricId),
  groupBy: v.optional(GroupBy),
  datePreset: v.optional(DatePreset),
  startDate: v.optional(ContextDate),
  endDate: v.optional(ContextDate),
  conditions: v.optional(Conditions),
  currency: v.optional(Currency),
  version: v.optional(VersionSchema),
});

export const DashboardIdParams = v.object({ id: IdSchema });

export const DashboardVersionParams = v.object({
  id: IdSchema,
  n: v.pipe(
    v.string(),
    v.regex(/^[1-9]\d{0,5}$/, 'must be a version number (1 or more)'),
    v.transform(Number),
  ),
});

export const ListDashboardsQuery = v.object({
  ...PageQuerySchema.entries,
  includeArchived: v.optional(v.picklist(['true', 'false']), 'false'),
  teamId: v.optional(IdSchema),
  type: v.optional(VisibilitySchema),
  /** Only dashboards whose name contains it, ignoring case (trimmed; empty: no filter). */
  name: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.maxLength(
        DASHBOARD_LIMITS.nameMaxLength,
        `must be at most ${DASHBOARD_LIMITS.nameMaxLength} characters`,
      ),
    ),
  ),
});

export const ListVersionsQuery = v.object({ ...PageQuerySchema.entries });

// Answers, for the OpenAPI document only (handlers never parse their own answers with them).
// docs/dashboards.md describes the same shapes.

const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Version = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The body fields of a dashboard (after its name, before its widgets), current or as published. */
const bodyEntries = {
  description: v.string(),
  type: VisibilitySchema,
  teamId: v.nullable(v.string()),
  scopeId: v.nullable(v.string()),
  metricId: v.nullable(v.string()),
  groupBy: v.nullable(v.string()),
  datePreset: DatePreset,
  startDate: v.nullable(v.string()),
  endDate: v.nullable(v.string()),
  conditions: v.nullable(v.record(v.string(), v.unknown())),
  currency: Currency,
};

const summaryEntries = {
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  ...bodyEntries,
  widgetCount: Count,
  /** Optimistic-locking counter: grows on every write; send it back as `version` or `If-Match`. */
  version: Version,
  /** Number of the latest saved version (`/versions/{n}`); grows on publish only. */
  publishedVersion: Version,
  publishedAt: Timestamp,
  createdById: v.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  archivedAt: v.nullable(Timestamp),
};

/** A dashboard as list reads return it (no widgets). */
export const DashboardSummaryRecord = v.object(summaryEntries);
/** A dashboard as single reads and every write return it: the summary plus the current widgets. */
export const DashboardRecord = v.object({ ...summaryEntries, widgets: v.array(WidgetSchema) });
/** A page of `GET /dashboard-v2`: pass `nextCursor` back as `cursor` while it is not null. */
export const DashboardPage = v.object({
  items: v.array(DashboardSummaryRecord),
  nextCursor: v.nullable(v.string()),
});

const versionSummaryEntries = {
  dashboardId: v.string(),
  version: Version,
  name: v.string(),
  createdAt: Timestamp,
  createdById: v.string(),
  widgetCount: Count,
  jsonBytes: Count,
};

export const DashboardVersionSummaryRecord = v.object(versionSummaryEntries);
export const DashboardVersionPage = v.object({
  items: v.array(DashboardVersionSummaryRecord),
  nextCursor: v.nullable(v.string()),
});
/** One saved version: its summary and every body field as published, widgets included. */
export const DashboardVersionRecord = v.object({
  ...versionSummaryEntries,
  ...bodyEntries,
  widgets: v.array(WidgetSchema),
});

export type DashboardBody = v.InferOutput<typeof CreateDashboardBody>;
export type PublishDashboardInput = v.InferOutput<typeof PublishDashboardBody>;
export type PatchDashboardInput = v.InferOutput<typeof PatchDashboardBody>;
export type Widget = v.InferOutput<typeof WidgetSchema>;
