import {
  CreateDashboardBody,
  DashboardIdParams,
  DashboardPage,
  DashboardRecord,
  DashboardVersionPage,
  DashboardVersionParams,
  DashboardVersionRecord,
  ListDashboardsQuery,
  ListVersionsQuery,
  PatchDashboardBody,
  PublishDashboardBody,
} from '../domain/dashboards/schemas';
import { route } from '../http/route';

const tag = 'Dashboards';

/*
 * Create, publish and PATCH validate their bodies in the domain (`deferBodyValidation`): the
 * widget cap answers 413 before any schema work, and the error is still the plain 400 `{error}`
 * naming the failing field path.
 */

export const createDashboard = route({
  id: 'createDashboard',
  method: 'POST',
  path: '/dashboard-v2',
  entry: 'dashboards/create-dashboard',
  auth: 'member',
  tag,
  summary: 'Create a dashboard (metadata plus widgets) as version 1',
  body: CreateDashboardBody,
  deferBodyValidation: true,
  successStatus: 201,
  // Reads the warehouse's usage metrics when a metric query names no datasource (save-time check).
  usesWarehouse: true,
  // Validating, gzipping and writing up to 1 MiB of JSON: more memory is also more CPU on Lambda.
  memoryMb: 512,
  response: DashboardRecord,
});

export const listDashboards = route({
  id: 'listDashboards',
  method: 'GET',
  path: '/dashboard-v2',
  entry: 'dashboards/list-dashboards',
  auth: 'member',
  tag,
  summary: 'List the dashboards visible to the caller, newest update first (without widgets)',
  query: ListDashboardsQuery,
  response: DashboardPage,
});

export const getDashboard = route({
  id: 'getDashboard',
  method: 'GET',
  path: '/dashboard-v2/{id}',
  entry: 'dashboards/get-dashboard',
  auth: 'member',
  tag,
  summary: "Read a dashboard with its current version's widgets",
  params: DashboardIdParams,
  response: DashboardRecord,
});

export const publishDashboard = route({
  id: 'publishDashboard',
  method: 'PUT',
  path: '/dashboard-v2/{id}',
  entry: 'dashboards/publish-dashboard',
  auth: 'member',
  tag,
  summary: 'Publish: save a new version (context plus widgets) and update the metadata in one transaction',
  params: DashboardIdParams,
  body: PublishDashboardBody,
  deferBodyValidation: true,
  // Reads the warehouse's usage metrics when a metric query names no datasource (save-time check).
  usesWarehouse: true,
  memoryMb: 512,
  response: DashboardRecord,
});

export const patchDashboard = route({
  id: 'patchDashboard',
  method: 'PATCH',
  path: '/dashboard-v2/{id}',
  entry: 'dashboards/patch-dashboard',
  auth: 'member',
  tag,
  summary: 'Update metadata and context only; no new version',
  params: DashboardIdParams,
  body: PatchDashboardBody,
  deferBodyValidation: true,
  response: DashboardRecord,
});

export const archiveDashboard = route({
  id: 'archiveDashboard',
  method: 'DELETE',
  path: '/dashboard-v2/{id}',
  entry: 'dashboards/archive-dashboard',
  auth: 'member',
  tag,
  summary: 'Archive a dashboard (idempotent)',
  params: DashboardIdParams,
  response: DashboardRecord,
});

export const listDashboardVersions = route({
  id: 'listDashboardVersions',
  method: 'GET',
  path: '/dashboard-v2/{id}/versions',
  entry: 'dashboards/list-dashboard-versions',
  auth: 'member',
  tag,
  summary: 'List the saved versions of a dashboard, newest first',
  params: DashboardIdParams,
  query: ListVersionsQuery,
  response: DashboardVersionPage,
});

export const getDashboardVersion = route({
  id: 'getDashboardVersion',
  method: 'GET',
  path: '/dashboard-v2/{id}/versions/{n}',
  entry: 'dashboards/get-dashboard-version',
  auth: 'member',
  tag,
  summary: 'Read one saved version as it was published',
  params: DashboardVersionParams,
  response: DashboardVersionRecord,
});

export const dashboardRoutes = [
  createDashboard,
  listDashboards,
  getDashboard,
  publishDashboard,
  patchDashboard,
  archiveDashboard,
  listDashboardVersions,
  getDashboardVersion,
];
