import * as v from 'valibot';
import { IdSchema, PageQuerySchema } from '../../model/enum-schemas';

/** Most members one sync may list (a 1 MB body holds far more; this bounds the work of one call). */
export const MAX_SYNC_MEMBERS = 2000;

/** `{id}` of the team routes: a team id, or a team name matched case-insensitively. */
export const TeamRefParams = v.object({
  id: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
});

/** `{id}/{operationId}` of the operation status route. */
export const TeamOperationParams = v.object({
  id: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  operationId: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
});

const Email = v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('must be a valid e-mail address'));

/**
 * A member of the sync payload. The spec shows `{userId, email}` without saying which is required:
 * each entry needs at least one. `userId` names a known user (an unknown one is an error); an
 * `email` alone is looked up among the org's users and invited when unknown; both must agree.
 * Any other key is refused (strict), like every object of every body.
 */
export const SyncMember = v.pipe(
  v.strictObject({
    userId: v.nullish(IdSchema),
    email: v.nullish(Email),
  }),
  v.check((m) => Boolean(m.userId || m.email), 'each member needs a userId or an email'),
);

export const SyncTeamBody = v.strictObject({
  members: v.pipe(
    v.array(SyncMember),
    v.maxLength(MAX_SYNC_MEMBERS, `at most ${MAX_SYNC_MEMBERS} members per sync`),
  ),
});
export type SyncTeamInput = v.InferOutput<typeof SyncTeamBody>;

const TeamName = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'name must not be empty'),
  v.maxLength(100),
  v.regex(/^[^/\\#\p{Cc}]+$/u, 'name must not contain / \\ # or control characters'),
);
const Description = v.pipe(v.string(), v.maxLength(1000));

export const CreateTeamBody = v.strictObject({
  name: TeamName,
  description: v.optional(Description, ''),
});
export type CreateTeamInput = v.InferOutput<typeof CreateTeamBody>;

export const PatchTeamBody = v.pipe(
  v.strictObject({
    name: v.optional(TeamName),
    description: v.optional(Description),
  }),
  v.check((b) => b.name !== undefined || b.description !== undefined, 'send name or description'),
);
export type PatchTeamInput = v.InferOutput<typeof PatchTeamBody>;

export const ListTeamsQuery = PageQuerySchema;

export const SyncSuccess = v.object({ success: v.literal(true) });
export const SyncFailure = v.object({
  error: v.string(),
  reason: v.string(),
  details: v.array(v.object({ path: v.string(), message: v.string() })),
  summary: v.object({ added: v.number(), removed: v.number(), invited: v.number() }),
});
