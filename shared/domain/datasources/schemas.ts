import * as v from 'valibot';
import { IdSchema, PageQuerySchema } from '../../model/enum-schemas';

export const DatasourceIdParams = v.object({ id: IdSchema });

export const CreateDatasourceBody = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'name must not be empty'), v.maxLength(200)),
  description: v.optional(v.pipe(v.string(), v.maxLength(1000)), ''),
  unit: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(50))), null),
});
export type CreateDatasourceInput = v.InferOutput<typeof CreateDatasourceBody>;

export const ListDatasourcesQuery = v.object({
  ...PageQuerySchema.entries,
  includeArchived: v.optional(v.picklist(['true', 'false']), 'false'),
});

/** Metric names: letters, digits and `_ . : -`, so they can never break a key. */
export const MetricName = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(100),
  v.regex(/^[A-Za-z0-9_.:-]+$/, 'metric names use letters, digits and _ . : - only'),
);

/** `YYYY-MM-DD` names a day that exists (Date.parse would roll 02-30 over into March). */
function isCalendarDate(day: string): boolean {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Most points in one push; a bigger batch is split by the client. */
export const MAX_POINTS_PER_PUSH = 1000;

/**
 * A point as pushed: an ISO 8601 date-time with a zone (`Z` or `±hh:mm`) or a bare date
 * (`YYYY-MM-DD`, meaning midnight UTC), a finite number, and an optional metric name (`value` when
 * absent). The time range check (not before 2000, not more than a day ahead) runs in the domain.
 */
export const PointInput = v.strictObject({
  timestamp: v.pipe(
    v.string(),
    v.regex(
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/,
      'timestamp must be an ISO 8601 date-time with a zone, or a date',
    ),
    v.check(
      (s) => !Number.isNaN(Date.parse(s)) && isCalendarDate(s.slice(0, 10)),
      'timestamp is not a real date',
    ),
  ),
  value: v.pipe(v.number(), v.finite('value must be a finite number')),
  metric: v.optional(MetricName),
});

export const PushPointsBody = v.strictObject({
  points: v.pipe(
    v.array(PointInput),
    v.minLength(1, 'send at least one point'),
    v.maxLength(MAX_POINTS_PER_PUSH, `at most ${MAX_POINTS_PER_PUSH} points per push`),
  ),
});
export type PushPointsInput = v.InferOutput<typeof PushPointsBody>;

const IsoInstant = v.pipe(
  v.string(),
  v.check((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time'),
);

export const PointsQuery = v.object({
  from: IsoInstant,
  to: IsoInstant,
  metric: v.optional(MetricName),
  granularity: v.optional(v.picklist(['raw', 'day']), 'raw'),
  aggregator: v.optional(v.picklist(['SUM', 'AVG', 'MAX', 'MIN']), 'SUM'),
});
