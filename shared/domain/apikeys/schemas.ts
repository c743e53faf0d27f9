import * as v from 'valibot';
import { IdSchema, PageQuerySchema } from '../../model/enum-schemas';

export const CreateApiKeyBody = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'name must not be empty'), v.maxLength(100)),
  /** `user` (default for users): a key acting as the caller. `org` (admins only): the organisation principal. */
  kind: v.optional(v.picklist(['user', 'org'])),
});
export type CreateApiKeyInput = v.InferOutput<typeof CreateApiKeyBody>;

export const ApiKeyIdParams = v.object({ id: IdSchema });

export const ListApiKeysQuery = v.object({
  ...PageQuerySchema.entries,
  /** Admins see every key of the org; `mine=true` narrows to their own. Members always see their own. */
  mine: v.optional(v.picklist(['true', 'false']), 'false'),
});

export const ApiKeyView = v.object({
  id: v.string(),
  name: v.string(),
  prefix: v.string(),
  kind: v.picklist(['user', 'org']),
  principalId: v.string(),
  createdById: v.string(),
  createdAt: v.string(),
  lastUsedAt: v.nullable(v.string()),
  revokedAt: v.nullable(v.string()),
});
