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
import { route } from '../http/route';

const tag = 'Budgets';

export const createBudget = route({
  id: 'createBudget',
  method: 'POST',
  path: '/budgets',
  entry: 'budgets/create-budget',
  auth: 'member',
  tag,
  summary: 'Create a budget (lines × months) as version 1',
  body: BudgetBody,
  successStatus: 201,
  response: BudgetRecordSchema,
});

export const listBudgets = route({
  id: 'listBudgets',
  method: 'GET',
  path: '/budgets',
  entry: 'budgets/list-budgets',
  auth: 'member',
  tag,
  summary: 'List the budgets of the organisation, newest first (archived=true: the archived ones)',
  query: ListBudgetsQuery,
  response: BudgetPage,
});

export const getBudget = route({
  id: 'getBudget',
  method: 'GET',
  path: '/budgets/{id}',
  entry: 'budgets/get-budget',
  auth: 'member',
  tag,
  summary: 'Read a budget with its current version',
  params: BudgetIdParams,
  response: BudgetRecordSchema,
});

export const updateBudget = route({
  id: 'updateBudget',
  method: 'PUT',
  path: '/budgets/{id}',
  entry: 'budgets/update-budget',
  auth: 'member',
  tag,
  summary: 'Save a new version of a budget (If-Match: the versionNumber read; 409 when stale)',
  params: BudgetIdParams,
  body: BudgetBody,
  response: BudgetRecordSchema,
});

export const archiveBudget = route({
  id: 'archiveBudget',
  method: 'DELETE',
  path: '/budgets/{id}',
  entry: 'budgets/archive-budget',
  auth: 'member',
  tag,
  summary: 'Archive a budget (idempotent)',
  params: BudgetIdParams,
  response: BudgetRecordSchema,
});

export const listBudgetVersions = route({
  id: 'listBudgetVersions',
  method: 'GET',
  path: '/budgets/{id}/versions',
  entry: 'budgets/list-budget-versions',
  auth: 'member',
  tag,
  summary: 'List the saved versions of a budget, newest first, each as it was saved',
  params: BudgetIdParams,
  query: ListBudgetVersionsQuery,
  response: BudgetVersionPage,
});

export const getBudgetStatus = route({
  id: 'getBudgetStatus',
  method: 'GET',
  path: '/budgets/{id}/status',
  entry: 'budgets/get-budget-status',
  auth: 'member',
  tag,
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

export const exportBudgetCsv = route({
  id: 'exportBudgetCsv',
  method: 'GET',
  path: '/budgets/{id}/export.csv',
  entry: 'budgets/export-budget-csv',
  auth: 'member',
  tag,
  summary: "The current version's lines × months grid as CSV (value,owner,YYYY-MM,…)",
  params: BudgetIdParams,
  responseContentType: 'text/csv',
});

export const importBudget = route({
  id: 'importBudget',
  method: 'POST',
  path: '/budgets/{id}/import',
  entry: 'budgets/import-budget',
  auth: 'member',
  tag,
  summary:
    'Replace the lines from a CSV grid (text/csv, or JSON {csv}) as a new version; each bad cell is named by row and column',
  params: BudgetIdParams,
  body: ImportBudgetBody,
  bodyContentTypes: ['text/csv', 'application/json'],
  deferBodyValidation: true,
  response: BudgetRecordSchema,
});

export const suggestBudget = route({
  id: 'suggestBudget',
  method: 'POST',
  path: '/budgets/suggest',
  entry: 'budgets/suggest-budget',
  auth: 'member',
  tag,
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
