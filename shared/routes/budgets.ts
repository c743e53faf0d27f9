import {
  BudgetBody,
  BudgetIdParams,
  BudgetPage,
  BudgetRecordSchema,
  BudgetStatusQuery,
  BudgetStatusSchema,
  BudgetVersionPage,
  ImportBudgetBody,
  ListBudgetsQuery,
  ListBudgetVersionsQuery,
  SuggestBudgetBody,
  SuggestBudgetSchema,
} from '../domain/budgets/schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Budgets', folder: 'budgets' };

export const createBudget = declare(AREA, 'POST /budgets', 'createBudget', {
  auth: 'member',
  summary: 'Create a budget (lines × months) as version 1',
  body: BudgetBody,
  successStatus: 201,
  response: BudgetRecordSchema,
});

export const listBudgets = declare(AREA, 'GET /budgets', 'listBudgets', {
  auth: 'member',
  summary: 'List the budgets of the organisation, newest first (archived=true: the archived ones)',
  query: ListBudgetsQuery,
  response: BudgetPage,
});

export const getBudget = declare(AREA, 'GET /budgets/{id}', 'getBudget', {
  auth: 'member',
  summary: 'Read a budget with its current version',
  params: BudgetIdParams,
  response: BudgetRecordSchema,
});

export const updateBudget = declare(AREA, 'PUT /budgets/{id}', 'updateBudget', {
  auth: 'member',
  summary: 'Save a new version of a budget (If-Match: the versionNumber read; 409 when stale)',
  params: BudgetIdParams,
  body: BudgetBody,
  response: BudgetRecordSchema,
});

export const archiveBudget = declare(AREA, 'DELETE /budgets/{id}', 'archiveBudget', {
  auth: 'member',
  summary: 'Archive a budget (idempotent)',
  params: BudgetIdParams,
  response: BudgetRecordSchema,
});

export const listBudgetVersions = declare(AREA, 'GET /budgets/{id}/versions', 'listBudgetVersions', {
  auth: 'member',
  summary: 'List the saved versions of a budget, newest first, each as it was saved',
  params: BudgetIdParams,
  query: ListBudgetVersionsQuery,
  response: BudgetVersionPage,
});

export const getBudgetStatus = declare(AREA, 'GET /budgets/{id}/status', 'getBudgetStatus', {
  auth: 'member',
  summary:
    "A month's budget, month-to-date actual and month-end forecast (80 % interval) per line and in total",
  params: BudgetIdParams,
  query: BudgetStatusQuery,
  response: BudgetStatusSchema,
  // A billing row without an exchange rate to the budget's currency (docs/currency.md).
  statuses: [422],
  // Reads the warehouse (the actuals) and forecasts each line.
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const exportBudgetCsv = declare(AREA, 'GET /budgets/{id}/export.csv', 'exportBudgetCsv', {
  auth: 'member',
  summary: "The current version's lines × months grid as CSV (value,owner,YYYY-MM,…)",
  params: BudgetIdParams,
  responseContentType: 'text/csv',
});

export const importBudget = declare(AREA, 'POST /budgets/{id}/import', 'importBudget', {
  auth: 'member',
  summary:
    'Replace the lines from a CSV grid (text/csv, or JSON {csv}) as a new version; each bad cell is named by row and column',
  params: BudgetIdParams,
  body: ImportBudgetBody,
  bodyContentTypes: ['text/csv', 'application/json'],
  deferBodyValidation: true,
  response: BudgetRecordSchema,
});

export const suggestBudget = declare(AREA, 'POST /budgets/suggest', 'suggestBudget', {
  auth: 'member',
  summary:
    'Suggested amounts for the next months, per line, from the forecast with its 80 % interval (nothing is saved)',
  body: SuggestBudgetBody,
  response: SuggestBudgetSchema,
  statuses: [422],
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const budgetRoutes = [
  createBudget,
  listBudgets,
  getBudget,
  updateBudget,
  archiveBudget,
  listBudgetVersions,
  getBudgetStatus,
  exportBudgetCsv,
  importBudget,
  suggestBudget,
];
