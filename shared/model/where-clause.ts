import * as v from 'valibot';

/**
 * `whereClause`: `{combinator, rules: [{field, operator, value[]} | nested group]}`, the filter of
 * cost queries (dashboards, alerts) and of virtual-dimension rules. Kept apart from
 * `query-model.ts` (which re-exports it) so that a bundle needing only the where clause (the
 * dimension routes) does not carry every query schema: esbuild keeps a module's top-level schema
 * calls whenever the module is imported, because it cannot see across files that they are pure.
 */
export const WHERE_COMBINATORS = ['and', 'or'] as const;

/** Our bounds where the spec gives none (part of `QUERY_LIMITS`). */
export const WHERE_LIMITS = {
  whereDepth: 5,
  whereRulesPerGroup: 100,
  whereValuesPerRule: 1000,
  whereValueMaxLength: 1000,
} as const;

const NonEmptyText = (max: number) =>
  v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
  );

const FiniteNumber = v.pipe(v.number(), v.finite('must be a finite number'));

export const WhereRuleSchema = v.strictObject({
  field: NonEmptyText(200),
  /** Operator names come from the dimension list (`operators[].name`); not enumerated by the spec. */
  operator: NonEmptyText(40),
  value: v.pipe(
    v.array(
      v.union(
        [v.pipe(v.string(), v.maxLength(WHERE_LIMITS.whereValueMaxLength)), FiniteNumber, v.boolean()],
        'must be a string, a number or a boolean',
      ),
    ),
    v.maxLength(
      WHERE_LIMITS.whereValuesPerRule,
      `must hold at most ${WHERE_LIMITS.whereValuesPerRule} values`,
    ),
  ),
});

export type WhereRule = v.InferOutput<typeof WhereRuleSchema>;
export interface WhereClause {
  combinator: (typeof WHERE_COMBINATORS)[number];
  rules: (WhereRule | WhereClause)[];
}

const isGroup = (input: unknown) => typeof input === 'object' && input !== null && 'rules' in input;

/**
 * A group of rules and groups. Each item is a `lazy` that picks the rule or the group schema by the
 * item's shape, so an error names the right fields. A parsed JSON body never holds `undefined`:
 * only the JSON Schema converter (`infra/openapi.ts`) calls the getter with it, and then it gets
 * both shapes, so the OpenAPI document describes nested groups as the route accepts them.
 */
function whereGroup(depthLeft: number): v.GenericSchema<WhereClause> {
  const item =
    depthLeft > 1
      ? v.lazy((input) =>
          input === undefined
            ? v.union([WhereRuleSchema, whereGroup(depthLeft - 1)])
            : isGroup(input)
              ? whereGroup(depthLeft - 1)
              : WhereRuleSchema,
        )
      : v.lazy((input) =>
          isGroup(input)
            ? v.pipe(
                v.unknown(),
                v.check(
                  () => false,
                  `whereClause groups nest at most ${WHERE_LIMITS.whereDepth} levels deep`,
                ),
              )
            : WhereRuleSchema,
        );
  return v.strictObject({
    combinator: v.picklist(WHERE_COMBINATORS, 'must be "and" or "or"'),
    rules: v.pipe(
      v.array(item),
      v.maxLength(
        WHERE_LIMITS.whereRulesPerGroup,
        `must hold at most ${WHERE_LIMITS.whereRulesPerGroup} rules`,
      ),
    ),
  }) as v.GenericSchema<WhereClause>;
}

/** `whereClause` of a cost query: nested groups allowed, up to `WHERE_LIMITS.whereDepth` levels. */
export const WhereClauseSchema: v.GenericSchema<WhereClause> = whereGroup(WHERE_LIMITS.whereDepth);
