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
} from '../model/dashboard-schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Dashboards', folder: 'dashboards' };

/*
 * Create, publish and PATCH validate their bodies in the domain (`deferBodyValidation`): the
 * widget cap answers 413 before any schema work, and the error is still the plain 400 `{error}`
 * naming the failing field path.
 */

export const createDashboard = declare(AREA, 'POST /dashboard-v2', 'createDashboard', {
  auth: 'member',
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

export const listDashboards = declare(AREA, 'GET /dashboard-v2', 'listDashboards', {
  auth: 'member',
  summary: 'List the dashboards visible to the caller, newest update first (without widgets)',
  query: ListDashboardsQuery,
  response: DashboardPage,
});

export const getDashboard = declare(AREA, 'GET /dashboard-v2/{id}', 'getDashboard', {
  auth: 'member',
  summary: "Read a dashboard with its current version's widgets",
  params: DashboardIdParams,
  response: DashboardRecord,
});

export const publishDashboard = declare(AREA, 'PUT /dashboard-v2/{id}', 'publishDashboard', {
  auth: 'member',
  summary: 'Publish: save a new version (context plus widgets) and update the metadata in one transaction',
  params: DashboardIdParams,
  body: PublishDashboardBody,
  deferBodyValidation: true,
  // Reads the warehouse's usage metrics when a metric query names no datasource (save-time check).
  usesWarehouse: true,
  memoryMb: 512,
  response: DashboardRecord,
});

export const patchDashboard = declare(AREA, 'PATCH /dashboard-v2/{id}', 'patchDashboard', {
  auth: 'member',
  summary: 'Update metadata and context only; no new version',
  params: DashboardIdParams,
  body: PatchDashboardBody,
  deferBodyValidation: true,
  response: DashboardRecord,
});

export const archiveDashboard = declare(AREA, 'DELETE /dashboard-v2/{id}', 'archiveDashboard', {
  auth: 'member',
  summary: 'Archive a dashboard (idempotent)',
  params: DashboardIdParams,
  response: DashboardRecord,
});

export const listDashboardVersions = declare(
  AREA,
  'GET /dashboard-v2/{id}/versions',
  'listDashboardVersions',
  {
    auth: 'member',
    summary: 'List the saved versions of a dashboard, newest first',
    params: DashboardIdParams,
    query: ListVersionsQuery,
    response: DashboardVersionPage,
  },
);

export const getDashboardVersion = declare(
  AREA,
  'GET /dashboard-v2/{id}/versions/{n}',
  'getDashboardVersion',
  {
    auth: 'member',
    summary: 'Read one saved version as it was published',
    params: DashboardVersionParams,
    response: DashboardVersionRecord,
  },
);

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
