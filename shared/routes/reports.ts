import {
  CreateReportBody,
  DeliveryPage,
  DuplicateReportBody,
  DuplicateReportResponse,
  ListDeliveriesQuery,
  ListReportsQuery,
  PatchReportBody,
  PreviewWidgetBody,
  ReportIdParams,
  ReportPage,
  ReportRecord,
  SendReportResponse,
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
  summary: 'Create a report (not shown in the spec; see docs/reports.md)',
  body: CreateReportBody,
  validation: 'detailed',
  // Validated by the handler after upgrading widgets sent with the first release's names.
  deferBodyValidation: true,
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
  // A PATCH of an archived report is a 409 whatever the body, even a missing or malformed one:
  // the function reads the body after the report's state (docs/reports.md).
  deferBodyValidation: true,
  deferBodyParsing: true,
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

export const sendReport = route({
  id: 'sendReport',
  method: 'POST',
  path: '/reports/{id}/send',
  entry: 'reports/send-report',
  auth: 'member',
  tag,
  summary: 'Deliver a report now to all its destinations (not shown in the spec)',
  params: ReportIdParams,
  successStatus: 202,
  response: SendReportResponse,
  sendsTo: ['report-delivery'],
});

export const listReportDeliveries = route({
  id: 'listReportDeliveries',
  method: 'GET',
  path: '/reports/{id}/deliveries',
  entry: 'reports/list-deliveries',
  auth: 'member',
  tag,
  summary: 'The delivery log of a report: one entry per run and destination, newest run first',
  params: ReportIdParams,
  query: ListDeliveriesQuery,
  response: DeliveryPage,
});

export const previewReportWidget = route({
  id: 'previewReportWidget',
  method: 'POST',
  path: '/reports/preview-widget',
  entry: 'reports/preview-widget',
  auth: 'member',
  tag,
  summary: "A widget's rendered data for a report context, as a delivery would compute it now",
  body: PreviewWidgetBody,
  validation: 'detailed',
  deferBodyValidation: true,
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const reportRoutes = [
  createReport,
  listReports,
  getReport,
  patchReport,
  duplicateReport,
  archiveReport,
  sendReport,
  listReportDeliveries,
  previewReportWidget,
];
