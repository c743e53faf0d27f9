import * as v from 'valibot';
import { IdSchema, PageQuerySchema } from '../../model/enum-schemas';
import { WhereClauseSchema } from '../../model/where-clause';

/**
 * Shapes of the dimension routes. They check structure and bounds only: whether a label's source
 * key exists, whether a name clashes, whether a map target is empty… is decided per draft by
 * `publish-rules.ts`, at publish time (each failing draft reported on its own) and, for virtual
 * dimensions, also when a draft is created or updated (`vdims.ts`).
 */
export const PUBLISH_SCOPES = ['all', 'labels', 'vdims'] as const;
export type PublishScope = (typeof PUBLISH_SCOPES)[number];

export const DIMENSION_LIMITS = {
  labelsPerPublish: 50,
  /** Pending virtual-dimension changes promoted by one publish (one DynamoDB transaction). */
  vdimsPerPublish: 45,
  vdimsPerOrg: 200,
  nameLength: 64,
  sourcesPerLabel: 20,
  mapsPerLabel: 1000,
  rulesPerVdim: 50,
  valueLength: 1000,
} as const;

const Text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));

export const LabelConfigSchema = v.strictObject({
  name: Text(DIMENSION_LIMITS.nameLength),
  columnsMerged: v.pipe(
    v.array(v.strictObject({ name: Text(512), type: Text(40) })),
    v.maxLength(
      DIMENSION_LIMITS.sourcesPerLabel,
      `must hold at most ${DIMENSION_LIMITS.sourcesPerLabel} columns`,
    ),
  ),
  maps: v.optional(
    v.pipe(
      v.array(
        v.strictObject({ value: Text(DIMENSION_LIMITS.valueLength), to: Text(DIMENSION_LIMITS.valueLength) }),
      ),
      v.maxLength(DIMENSION_LIMITS.mapsPerLabel, `must hold at most ${DIMENSION_LIMITS.mapsPerLabel} maps`),
    ),
    [],
  ),
});
export type LabelConfigInput = v.InferOutput<typeof LabelConfigSchema>;

export const PublishBody = v.strictObject({
  scope: v.optional(v.picklist(PUBLISH_SCOPES, `must be one of ${PUBLISH_SCOPES.join(', ')}`), 'all'),
  labels: v.optional(
    v.pipe(
      v.array(LabelConfigSchema),
      v.maxLength(
        DIMENSION_LIMITS.labelsPerPublish,
        `must hold at most ${DIMENSION_LIMITS.labelsPerPublish} labels`,
      ),
    ),
    [],
  ),
});
export type PublishInput = v.InferOutput<typeof PublishBody>;

const VdimRule = v.strictObject({
  value: Text(DIMENSION_LIMITS.valueLength),
  whereClause: WhereClauseSchema,
});

export const VdimBody = v.strictObject({
  name: Text(DIMENSION_LIMITS.nameLength),
  description: v.optional(Text(2000), ''),
  rules: v.pipe(
    v.array(VdimRule),
    v.maxLength(DIMENSION_LIMITS.rulesPerVdim, `must hold at most ${DIMENSION_LIMITS.rulesPerVdim} rules`),
  ),
  defaultValue: v.optional(v.nullable(Text(DIMENSION_LIMITS.valueLength)), null),
});
export type VdimInput = v.InferOutput<typeof VdimBody>;

export const VdimIdParams = v.object({ id: IdSchema });

/** `GET /dimensions/vdims?limit=1..100 (default 25)&cursor=…`, like every other list. */
export const ListVdimsQuery = v.object({ ...PageQuerySchema.entries });
