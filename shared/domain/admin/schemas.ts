import * as v from 'valibot';
import { PageQuerySchema } from '../common/enums';

/** User ids follow the identity provider's subject format, as the authorizer accepts them. */
export const UserIdParams = v.object({
  id: v.pipe(v.string(), v.regex(/^user_[A-Za-z0-9_-]{1,64}$/, 'user ids look like user_…')),
});

/**
 * `PUT /iac/users/{id}`. `name` and `role` are optional: a new user gets `""` and `member`, an
 * existing one keeps the stored values (changing an admin's e-mail must not demote them).
 */
export const PutUserBody = v.strictObject({
  email: v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('must be a valid e-mail address')),
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200))),
  role: v.optional(v.picklist(['admin', 'member'])),
});
export type PutUserInput = v.InferOutput<typeof PutUserBody>;

export const ListUsersQuery = PageQuerySchema;
