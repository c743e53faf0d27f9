import {
  CreateReportBody,
  DuplicateReportBody,
  DuplicateReportResponse,
  ListReportsQuery,
  PatchReportBody,
  ReportIdParams,
  ReportPage,
  ReportRecord,
} from '../domain/reports/schemas';
import { route } from '../http/route';

const tag = 'Reports';

export const createReport = route({
  id: 'createReport',
  method: 'POST',
  path: '/reports',
  entry: 'reports/create-report',
  auth: 'member',
  tag,
  summary: 'Create a report (not shown in the spec; see README)',
  body: CreateReportBody,
  validation: 'detailed',
  successStatus: 201,
  response: ReportRecord,
});

export const listReports = route({
  id: 'listReports',
  method: 'GET',
  path: '/reports',
  entry: 'reports/list-reports',
  auth: 'member',
  tag,
  summary: 'List reports visible to the caller, newest update first',
  query: ListReportsQuery,
  response: ReportPage,
});

export const getReport = route({
  id: 'getReport',
  method: 'GET',
  path: '/reports/{id}',
  entry: 'reports/get-report',
  auth: 'member',
  tag,
  summary: 'Read one report',
  params: ReportIdParams,
  response: ReportRecord,
});

export const patchReport = route({
  id: 'patchReport',
  method: 'PATCH',
  path: '/reports/{id}',
  entry: 'reports/patch-report',
  auth: 'member',
  tag,
  summary: 'Partially update a report',
  params: ReportIdParams,
  body: PatchReportBody,
  validation: 'detailed',
  deferBodyValidation: true,
  response: ReportRecord,
});

export const duplicateReport = route({
  id: 'duplicateReport',
  method: 'POST',
  path: '/reports/{id}/duplicate',
  entry: 'reports/duplicate-report',
  auth: 'member',
  tag,
  summary: 'Duplicate a report under a new name',
  params: ReportIdParams,
  body: DuplicateReportBody,
  validation: 'detailed',
  successStatus: 201,
  response: DuplicateReportResponse,
});

export const archiveReport = route({
  id: 'archiveReport',
  method: 'DELETE',
  path: '/reports/{id}',
  entry: 'reports/archive-report',
  auth: 'member',
  tag,
  summary: 'Archive a report (it stops delivering and rejects updates with REPORT_ARCHIVED)',
  params: ReportIdParams,
  response: ReportRecord,
});

export const reportRoutes = [
  createReport,
  listReports,
  getReport,
  patchReport,
  duplicateReport,
  archiveReport,
];
