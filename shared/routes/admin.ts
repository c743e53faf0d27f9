import {
  ListUsersQuery,
  MeResponse,
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
import { type Area, declare } from './declare';

/**
 * Admin and identity: team sync, teams, scopes, users, metrics datasources and their points, API
 * keys. `admin` routes admit org admins and `org_` principals; others get 403 `{error:'FORBIDDEN'}`.
 */
const AREA: Area = { tag: 'Admin', folder: 'admin' };
const AREA_ORGANIZATION: Area = { tag: 'Admin', folder: 'organization' };

// Teams -----------------------------------------------------------------------------------------

export const syncTeam = declare(AREA, 'POST /iac/teams/{id}/SYNC', 'syncTeam', {
  auth: 'admin',
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

export const getTeamOperation = declare(
  AREA,
  'GET /iac/teams/{id}/operations/{operationId}',
  'getTeamOperation',
  {
    auth: 'admin',
    summary:
      'Status of a queued team sync (syncId) or delete (operationId): PENDING, RUNNING, SUCCEEDED or FAILED ' +
      '(with the error body the sync would have answered)',
    params: TeamOperationParams,
  },
);

export const createTeam = declare(AREA, 'POST /iac/teams', 'createTeam', {
  auth: 'admin',
  summary: 'Create a team (names are unique case-insensitively)',
  body: CreateTeamBody,
  successStatus: 201,
  statuses: [409],
});

export const listTeams = declare(AREA, 'GET /iac/teams', 'listTeams', {
  auth: 'member',
  summary: 'List the teams of the organisation',
  query: ListTeamsQuery,
});

export const getTeam = declare(AREA, 'GET /iac/teams/{id}', 'getTeam', {
  auth: 'member',
  summary: 'Read a team (id or name) with its members and pending invitations',
  params: TeamRefParams,
});

export const patchTeam = declare(AREA, 'PATCH /iac/teams/{id}', 'patchTeam', {
  auth: 'admin',
  summary: 'Rename or re-describe a team',
  params: TeamRefParams,
  body: PatchTeamBody,
});

export const deleteTeam = declare(AREA, 'DELETE /iac/teams/{id}', 'deleteTeam', {
  auth: 'admin',
  summary:
    'Delete a team and every membership and invitation of it. A team past one transaction of removals is ' +
    'hidden at once and emptied by a worker: 202 {id, deleted, status: PENDING, operationId}',
  params: TeamRefParams,
  timeoutSeconds: 29,
  sendsTo: ['team-operations'],
  statuses: [202],
});

// Scopes ----------------------------------------------------------------------------------------

export const createScope = declare(AREA, 'POST /iac/scopes', 'createScope', {
  auth: 'admin',
  summary: 'Create a scope (a named cost filter usable by the listed teams, or by all when none)',
  body: CreateScopeBody,
  validation: 'detailed',
  successStatus: 201,
});

export const listScopes = declare(AREA, 'GET /iac/scopes', 'listScopes', {
  auth: 'member',
  summary: 'List the scopes the caller may use',
  query: ListScopesQuery,
});

export const getScope = declare(AREA, 'GET /iac/scopes/{id}', 'getScope', {
  auth: 'member',
  summary: 'Read a scope the caller may use',
  params: ScopeIdParams,
});

export const patchScope = declare(AREA, 'PATCH /iac/scopes/{id}', 'patchScope', {
  auth: 'admin',
  summary: 'Update a scope; If-Match (the version, as in the ETag) refuses a stale write with 409',
  params: ScopeIdParams,
  body: PatchScopeBody,
  validation: 'detailed',
});

export const deleteScope = declare(AREA, 'DELETE /iac/scopes/{id}', 'deleteScope', {
  auth: 'admin',
  summary: 'Delete a scope',
  params: ScopeIdParams,
});

// Users -----------------------------------------------------------------------------------------

export const listUsers = declare(AREA, 'GET /iac/users', 'listUsers', {
  auth: 'admin',
  summary: 'List the users of the organisation',
  query: ListUsersQuery,
});

export const getMe = declare(AREA_ORGANIZATION, 'GET /me', 'getMe', {
  auth: 'member',
  summary:
    'Who the caller is: user id, name, e-mail, role, teams and organisation (id, name); an API key says ' +
    'what it is (credential, the key id, name and prefix; an organisation key is the organisation principal)',
  response: MeResponse,
});

export const putUser = declare(AREA, 'PUT /iac/users/{id}', 'putUser', {
  auth: 'admin',
  summary: "Register or update a user (e-mail, name, role); converts the e-mail's pending invitations",
  params: UserIdParams,
  body: PutUserBody,
});

// Metrics datasources ---------------------------------------------------------------------------

export const createDatasource = declare(AREA, 'POST /iac/metricsDatasources', 'createMetricsDatasource', {
  entry: 'create-datasource',
  auth: 'admin',
  summary: 'Create a metrics datasource',
  body: CreateDatasourceBody,
  successStatus: 201,
});

export const listDatasources = declare(AREA, 'GET /iac/metricsDatasources', 'listMetricsDatasources', {
  entry: 'list-datasources',
  auth: 'member',
  summary: 'List metrics datasources (archived ones with includeArchived=true)',
  query: ListDatasourcesQuery,
});

export const getDatasource = declare(AREA, 'GET /iac/metricsDatasources/{id}', 'getMetricsDatasource', {
  entry: 'get-datasource',
  auth: 'member',
  summary: 'Read a metrics datasource',
  params: DatasourceIdParams,
});

export const archiveDatasource = declare(
  AREA,
  'DELETE /iac/metricsDatasources/{id}',
  'archiveMetricsDatasource',
  {
    entry: 'archive-datasource',
    auth: 'admin',
    summary: 'Archive a metrics datasource (idempotent): it refuses points and leaves metric queries',
    params: DatasourceIdParams,
  },
);

export const pushPoints = declare(AREA, 'POST /metrics-datasources/{id}/points', 'pushMetricPoints', {
  entry: 'push-points',
  auth: 'admin',
  summary: 'Push a batch of metric points (deduplicated by metric and timestamp)',
  params: DatasourceIdParams,
  body: PushPointsBody,
  timeoutSeconds: 29,
});

export const readPoints = declare(AREA, 'GET /metrics-datasources/{id}/points', 'readMetricPoints', {
  entry: 'read-points',
  auth: 'member',
  summary: 'Read metric points, raw or per day (what metric queries see)',
  params: DatasourceIdParams,
  query: PointsQuery,
});

// API keys --------------------------------------------------------------------------------------

export const createApiKey = declare(AREA, 'POST /api-keys', 'createApiKey', {
  auth: 'member',
  summary: 'Create an API key for the caller, or (admins, kind org) for the organisation; shown once',
  body: CreateApiKeyBody,
  successStatus: 201,
});

export const listApiKeys = declare(AREA, 'GET /api-keys', 'listApiKeys', {
  auth: 'member',
  summary: "List API keys (admins: the organisation's; members: their own), never the key",
  query: ListApiKeysQuery,
});

export const revokeApiKey = declare(AREA, 'DELETE /api-keys/{id}', 'revokeApiKey', {
  auth: 'member',
  summary: 'Revoke an API key (own keys; admins any key of the organisation)',
  params: ApiKeyIdParams,
});

// The organisation ----------------------------------------------------------------------------

export const getOrganizationSettings = declare(AREA_ORGANIZATION, 'GET /organization', 'getOrganization', {
  auth: 'member',
  summary:
    "The caller's organisation: name, time zone, reporting currency (default USD); 409 ORGANIZATION_NOT_REGISTERED before it is registered",
  response: OrganizationResponse,
  statuses: [409],
});

export const patchOrganizationSettings = declare(
  AREA_ORGANIZATION,
  'PATCH /organization',
  'patchOrganization',
  {
    auth: 'admin',
    summary:
      "Change the organisation's name, IANA time zone or reporting currency (one of the dashboard currencies); " +
      'a new reporting currency queues a refresh that recomputes the dimension figures in it',
    body: PatchOrganizationBody,
    response: OrganizationResponse,
    sendsTo: ['warehouse-refresh'],
    statuses: [409],
  },
);

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
  getMe,
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
