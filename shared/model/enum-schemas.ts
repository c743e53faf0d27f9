import * as v from 'valibot';
import { DATE_PRESETS, VISIBILITY_TYPES } from '../enums';

/**
 * The schemas of the spec's enumerations and of values every area takes. The lists themselves are
 * ../../enums.ts (the warehouse uses them too); the ones domain schemas name are handed on here.
 */
export { COST_METRIC_IDS, DASHBOARD_CURRENCIES, type VisibilityType } from '../enums';

export const DatePresetSchema = v.picklist(DATE_PRESETS);
export const VisibilitySchema = v.picklist(VISIBILITY_TYPES);

/** `groupBy`: a string, an array of non-empty strings, or null. */
export const GroupBySchema = v.nullable(
  v.union([
    v.pipe(v.string(), v.maxLength(200)),
    v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  ]),
);

/** Identifiers in paths: bounded, printable, no separators that could confuse key building. */
export const IdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(128), v.regex(/^[A-Za-z0-9_.:-]+$/));

const LIMIT_MESSAGE = 'must be a whole number from 1 to 100';

export const PageQuerySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, LIMIT_MESSAGE),
      v.transform(Number),
      v.minValue(1, LIMIT_MESSAGE),
      v.maxValue(100, LIMIT_MESSAGE),
    ),
    '25',
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(2048))),
});
