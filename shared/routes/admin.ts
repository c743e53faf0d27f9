import {
  ListUsersQuery,
  OrganizationResponse,
  PatchOrganizationBody,
  PutUserBody,
  UserIdParams,
} from '../domain/admin/schemas';
import { ApiKeyIdParams, CreateApiKeyBody, ListApiKeysQuery } from '../domain/apikeys/schemas';
import {
  CreateDatasourceBody,
  DatasourceIdParams,
  ListDatasourcesQuery,
  PointsQuery,
  PushPointsBody,
} from '../domain/datasources/schemas';
import { CreateScopeBody, ListScopesQuery, PatchScopeBody, ScopeIdParams } from '../domain/scopes/schemas';
import {
  CreateTeamBody,
  ListTeamsQuery,
  PatchTeamBody,
  SyncTeamBody,
  TeamOperationParams,
  TeamRefParams,
} from '../domain/teams/schemas';
import { route } from '../http/route';

/**
 * Admin and identity: team sync, teams, scopes, users, metrics datasources and their points, API
 * keys. `admin` routes admit org admins and `org_` principals; others get 403 `{error:'FORBIDDEN'}`.
 */
const tag = 'Admin';

// Teams -----------------------------------------------------------------------------------------

export const syncTeam = route({
  id: 'syncTeam',
  method: 'POST',
  path: '/iac/teams/{id}/SYNC',
  entry: 'admin/sync-team',
  auth: 'admin',
  tag,
  summary:
    'Replace the full member list of a team (id, or name matched case-insensitively). A change past ' +
    '6,000 items (3,000 membership changes) or 40 new invitations is applied by a worker: 202 {success, status: PENDING, syncId}',
  params: TeamRefParams,
  body: SyncTeamBody,
  validation: 'sync',
  timeoutSeconds: 29,
  invitesUsers: true,
  sendsTo: ['team-operations'],
  statuses: [202],
});

export const getTeamOperation = route({
  id: 'getTeamOperation',
  method: 'GET',
  path: '/iac/teams/{id}/operations/{operationId}',
  entry: 'admin/get-team-operation',
  auth: 'admin',
  tag,
  summary:
    'Status of a queued team sync (syncId) or delete (operationId): PENDING, RUNNING, SUCCEEDED or FAILED ' +
    '(with the error body the sync would have answered)',
  params: TeamOperationParams,
});

export const createTeam = route({
  id: 'createTeam',
  method: 'POST',
  path: '/iac/teams',
  entry: 'admin/create-team',
  auth: 'admin',
  tag,
  summary: 'Create a team (names are unique case-insensitively)',
  body: CreateTeamBody,
  successStatus: 201,
  statuses: [409],
});

export const listTeams = route({
  id: 'listTeams',
  method: 'GET',
  path: '/iac/teams',
  entry: 'admin/list-teams',
  auth: 'member',
  tag,
  summary: 'List the teams of the organisation',
  query: ListTeamsQuery,
});

export const getTeam = route({
  id: 'getTeam',
  method: 'GET',
  path: '/iac/teams/{id}',
  entry: 'admin/get-team',
  auth: 'member',
  tag,
  summary: 'Read a team (id or name) with its members and pending invitations',
  params: TeamRefParams,
});

export const patchTeam = route({
  id: 'patchTeam',
  method: 'PATCH',
  path: '/iac/teams/{id}',
  entry: 'admin/patch-team',
  auth: 'admin',
  tag,
  summary: 'Rename or re-describe a team',
  params: TeamRefParams,
  body: PatchTeamBody,
});

export const deleteTeam = route({
  id: 'deleteTeam',
  method: 'DELETE',
  path: '/iac/teams/{id}',
  entry: 'admin/delete-team',
  auth: 'admin',
  tag,
  summary:
    'Delete a team and every membership and invitation of it. A team past one transaction of removals is ' +
    'hidden at once and emptied by a worker: 202 {id, deleted, status: PENDING, operationId}',
  params: TeamRefParams,
  timeoutSeconds: 29,
  sendsTo: ['team-operations'],
  statuses: [202],
});

// Scopes ----------------------------------------------------------------------------------------

export const createScope = route({
  id: 'createScope',
  method: 'POST',
  path: '/iac/scopes',
  entry: 'admin/create-scope',
  auth: 'admin',
  tag,
  summary: 'Create a scope (a named cost filter usable by the listed teams, or by all when none)',
  body: CreateScopeBody,
  validation: 'detailed',
  successStatus: 201,
});

export const listScopes = route({
  id: 'listScopes',
  method: 'GET',
  path: '/iac/scopes',
  entry: 'admin/list-scopes',
  auth: 'member',
  tag,
  summary: 'List the scopes the caller may use',
  query: ListScopesQuery,
});

export const getScope = route({
  id: 'getScope',
  method: 'GET',
  path: '/iac/scopes/{id}',
  entry: 'admin/get-scope',
  auth: 'member',
  tag,
  summary: 'Read a scope the caller may use',
  params: ScopeIdParams,
});

export const patchScope = route({
  id: 'patchScope',
  method: 'PATCH',
  path: '/iac/scopes/{id}',
  entry: 'admin/patch-scope',
  auth: 'admin',
  tag,
  summary: 'Update a scope; If-Match (the version, as in the ETag) refuses a stale write with 409',
  params: ScopeIdParams,
  body: PatchScopeBody,
  validation: 'detailed',
});

export const deleteScope = route({
  id: 'deleteScope',
  method: 'DELETE',
  path: '/iac/scopes/{id}',
  entry: 'admin/delete-scope',
  auth: 'admin',
  tag,
  summary: 'Delete a scope',
  params: ScopeIdParams,
});

// Users -----------------------------------------------------------------------------------------

export const listUsers = route({
  id: 'listUsers',
  method: 'GET',
  path: '/iac/users',
  entry: 'admin/list-users',
  auth: 'admin',
  tag,
  summary: 'List the users of the organisation',
  query: ListUsersQuery,
});

export const putUser = route({
  id: 'putUser',
  method: 'PUT',
  path: '/iac/users/{id}',
  entry: 'admin/put-user',
  auth: 'admin',
  tag,
  summary: "Register or update a user (e-mail, name, role); converts the e-mail's pending invitations",
  params: UserIdParams,
  body: PutUserBody,
});

// Metrics datasources ---------------------------------------------------------------------------

export const createDatasource = route({
  id: 'createMetricsDatasource',
  method: 'POST',
  path: '/iac/metricsDatasources',
  entry: 'admin/create-datasource',
  auth: 'admin',
  tag,
  summary: 'Create a metrics datasource',
  body: CreateDatasourceBody,
  successStatus: 201,
});

export const listDatasources = route({
  id: 'listMetricsDatasources',
  method: 'GET',
  path: '/iac/metricsDatasources',
  entry: 'admin/list-datasources',
  auth: 'member',
  tag,
  summary: 'List metrics datasources (archived ones with includeArchived=true)',
  query: ListDatasourcesQuery,
});

export const getDatasource = route({
  id: 'getMetricsDatasource',
  method: 'GET',
  path: '/iac/metricsDatasources/{id}',
  entry: 'admin/get-datasource',
  auth: 'member',
  tag,
  summary: 'Read a metrics datasource',
  params: DatasourceIdParams,
});

export const archiveDatasource = route({
  id: 'archiveMetricsDatasource',
  method: 'DELETE',
  path: '/iac/metricsDatasources/{id}',
  entry: 'admin/archive-datasource',
  auth: 'admin',
  tag,
  summary: 'Archive a metrics datasource (idempotent): it refuses points and leaves metric queries',
  params: DatasourceIdParams,
});

export const pushPoints = route({
  id: 'pushMetricPoints',
  method: 'POST',
  path: '/metrics-datasources/{id}/points',
  entry: 'admin/push-points',
  auth: 'admin',
  tag,
  summary: 'Push a batch of metric points (deduplicated by metric and timestamp)',
  params: DatasourceIdParams,
  body: PushPointsBody,
  timeoutSeconds: 29,
});

export const readPoints = route({
  id: 'readMetricPoints',
  method: 'GET',
  path: '/metrics-datasources/{id}/points',
  entry: 'admin/read-points',
  auth: 'member',
  tag,
  summary: 'Read metric points, raw or per day (what metric queries see)',
  params: DatasourceIdParams,
  query: PointsQuery,
});

// API keys --------------------------------------------------------------------------------------

export const createApiKey = route({
  id: 'createApiKey',
  method: 'POST',
  path: '/api-keys',
  entry: 'admin/create-api-key',
  auth: 'member',
  tag,
  summary: 'Create an API key for the caller, or (admins, kind org) for the organisation; shown once',
  body: CreateApiKeyBody,
  successStatus: 201,
});

export const listApiKeys = route({
  id: 'listApiKeys',
  method: 'GET',
  path: '/api-keys',
  entry: 'admin/list-api-keys',
  auth: 'member',
  tag,
  summary: "List API keys (admins: the organisation's; members: their own), never the key",
  query: ListApiKeysQuery,
});

export const revokeApiKey = route({
  id: 'revokeApiKey',
  method: 'DELETE',
  path: '/api-keys/{id}',
  entry: 'admin/revoke-api-key',
  auth: 'member',
  tag,
  summary: 'Revoke an API key (own keys; admins any key of the organisation)',
  params: ApiKeyIdParams,
});

// The organisation ----------------------------------------------------------------------------

export const getOrganizationSettings = route({
  id: 'getOrganization',
  method: 'GET',
  path: '/organization',
  entry: 'organization/get-organization',
  auth: 'member',
  tag,
  summary:
    "The caller's organisation: name, time zone, reporting currency (default USD); 409 ORGANIZATION_NOT_REGISTERED before it is registered",
  response: OrganizationResponse,
  statuses: [409],
});

export const patchOrganizationSettings = route({
  id: 'patchOrganization',
  method: 'PATCH',
  path: '/organization',
  entry: 'organization/patch-organization',
  auth: 'admin',
  tag,
  summary:
    "Change the organisation's name, IANA time zone or reporting currency (one of the dashboard currencies); " +
    'a new reporting currency queues a refresh that recomputes the dimension figures in it',
  body: PatchOrganizationBody,
  response: OrganizationResponse,
  sendsTo: ['warehouse-refresh'],
  statuses: [409],
});

export const adminRoutes = [
  syncTeam,
  getTeamOperation,
  createTeam,
  listTeams,
  getTeam,
  patchTeam,
  deleteTeam,
  createScope,
  listScopes,
  getScope,
  patchScope,
  deleteScope,
  listUsers,
  putUser,
  createDatasource,
  listDatasources,
  getDatasource,
  archiveDatasource,
  pushPoints,
  readPoints,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  getOrganizationSettings,
  patchOrganizationSettings,
];
