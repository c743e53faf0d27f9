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
} from '../model/report-schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Reports', folder: 'reports' };

export const createReport = declare(AREA, 'POST /reports', 'createReport', {
  auth: 'member',
  summary: 'Create a report (not shown in the spec; see docs/reports.md)',
  body: CreateReportBody,
  validation: 'detailed',
  // Validated by the handler after upgrading widgets sent with the first release's names.
  deferBodyValidation: true,
  successStatus: 201,
  response: ReportRecord,
});

export const listReports = declare(AREA, 'GET /reports', 'listReports', {
  auth: 'member',
  summary: 'List reports visible to the caller, newest update first',
  query: ListReportsQuery,
  response: ReportPage,
});

export const getReport = declare(AREA, 'GET /reports/{id}', 'getReport', {
  auth: 'member',
  summary: 'Read one report',
  params: ReportIdParams,
  response: ReportRecord,
});

export const patchReport = declare(AREA, 'PATCH /reports/{id}', 'patchReport', {
  auth: 'member',
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

export const duplicateReport = declare(AREA, 'POST /reports/{id}/duplicate', 'duplicateReport', {
  auth: 'member',
  summary: 'Duplicate a report under a new name',
  params: ReportIdParams,
  body: DuplicateReportBody,
  validation: 'detailed',
  successStatus: 201,
  response: DuplicateReportResponse,
});

export const archiveReport = declare(AREA, 'DELETE /reports/{id}', 'archiveReport', {
  auth: 'member',
  summary: 'Archive a report (it stops delivering and rejects updates with REPORT_ARCHIVED)',
  params: ReportIdParams,
  response: ReportRecord,
});

export const sendReport = declare(AREA, 'POST /reports/{id}/send', 'sendReport', {
  auth: 'member',
  summary: 'Deliver a report now to all its destinations (not shown in the spec)',
  params: ReportIdParams,
  successStatus: 202,
  response: SendReportResponse,
  sendsTo: ['report-delivery'],
});

export const listReportDeliveries = declare(AREA, 'GET /reports/{id}/deliveries', 'listReportDeliveries', {
  entry: 'list-deliveries',
  auth: 'member',
  summary: 'The delivery log of a report: one entry per run and destination, newest run first',
  params: ReportIdParams,
  query: ListDeliveriesQuery,
  response: DeliveryPage,
});

export const previewReportWidget = declare(AREA, 'POST /reports/preview-widget', 'previewReportWidget', {
  entry: 'preview-widget',
  auth: 'member',
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
