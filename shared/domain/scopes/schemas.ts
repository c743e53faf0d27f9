import * as v from 'valibot';
import { IdSchema, PageQuerySchema } from '../../model/enum-schemas';

export const ScopeIdParams = v.object({ id: IdSchema });

const Name = v.pipe(v.string(), v.trim(), v.minLength(1, 'name must not be empty'), v.maxLength(100));
const Description = v.pipe(v.string(), v.maxLength(1000));
const TeamIds = v.pipe(v.array(IdSchema), v.maxLength(100));
/** The same free-form filter object as a dashboard's `conditions`; bounded in size by the body limit. */
const Filters = v.nullable(v.record(v.string(), v.unknown()));

export const CreateScopeBody = v.strictObject({
  name: Name,
  description: v.optional(Description, ''),
  teamIds: v.optional(TeamIds, []),
  filters: v.optional(Filters, null),
});
export type CreateScopeInput = v.InferOutput<typeof CreateScopeBody>;

export const PatchScopeBody = v.pipe(
  v.strictObject({
    name: v.optional(Name),
    description: v.optional(Description),
    teamIds: v.optional(TeamIds),
    filters: v.optional(Filters),
  }),
  v.check((b) => Object.values(b).some((x) => x !== undefined), 'send at least one field'),
);
export type PatchScopeInput = v.InferOutput<typeof PatchScopeBody>;

export const ListScopesQuery = PageQuerySchema;
