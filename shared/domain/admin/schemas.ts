import * as v from 'valibot';
import { DASHBOARD_CURRENCIES, PageQuerySchema } from '../../model/enum-schemas';
import { isTimeZone } from '../../validation';

/** The longest organisation name (the same bound as `npm run org`). */
export const ORGANIZATION_NAME_MAX = 100;

/** User ids follow the identity provider's subject format, as the credential check accepts them. */
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

/**
 * `PATCH /organization`: the organisation's display name, IANA time zone (reports and presets) and
 * reporting currency (figures that have no requested currency); at least one of them.
 */
export const PatchOrganizationBody = v.pipe(
  v.strictObject({
    name: v.optional(
      v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(ORGANIZATION_NAME_MAX)),
    ),
    timezone: v.optional(
      v.pipe(
        v.string(),
        v.check(isTimeZone, (issue) => `${String(issue.input)} is not an IANA time zone`),
      ),
    ),
    reportingCurrency: v.optional(
      v.picklist(DASHBOARD_CURRENCIES, `must be one of ${DASHBOARD_CURRENCIES.join(', ')}`),
    ),
  }),
  v.check(
    (b) => b.name !== undefined || b.timezone !== undefined || b.reportingCurrency !== undefined,
    'give at least one of name, timezone, reportingCurrency',
  ),
);
export type PatchOrganizationInput = v.InferOutput<typeof PatchOrganizationBody>;

/** The organisation as `GET /organization` and `PATCH /organization` answer it. */
export const OrganizationResponse = v.object({
  id: v.string(),
  name: v.string(),
  timezone: v.string(),
  reportingCurrency: v.string(),
  createdAt: v.string(),
  updatedAt: v.nullable(v.string()),
  registeredVia: v.nullable(v.string()),
});

/** `GET /me` (`MeView`, me.ts). */
export const MeResponse = v.object({
  principalId: v.string(),
  kind: v.picklist(['user', 'org']),
  userId: v.nullable(v.string()),
  name: v.nullable(v.string()),
  email: v.nullable(v.string()),
  role: v.picklist(['admin', 'member']),
  teamIds: v.array(v.string()),
  organization: v.object({ id: v.string(), name: v.nullable(v.string()) }),
  credential: v.picklist(['session', 'apiKey', 'idpApiKey']),
  apiKey: v.nullable(v.object({ id: v.string(), name: v.string(), prefix: v.string() })),
});
