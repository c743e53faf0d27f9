import { ExplorerBody, ExplorerResponse, WidgetDataParams } from '../domain/queries/schemas';
import { type Area, declare } from './declare';

const QUERIES: Area = { tag: 'Queries', folder: 'queries' };
const DASHBOARDS: Area = { tag: 'Dashboards', folder: 'dashboards' };

/** The query engine's routes (docs/queries.md). */
export const runExplorer = declare(QUERIES, 'POST /queries/explorer', 'runExplorer', {
  entry: 'explorer',
  auth: 'member',
  summary: 'Run an explorer request (cost, metric, formula and condition queries) over the warehouse',
  body: ExplorerBody,
  response: ExplorerResponse,
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const getWidgetData = declare(
  DASHBOARDS,
  'GET /dashboard-v2/{id}/widgets/{key}/data',
  'getWidgetData',
  {
    entry: 'widget-data',
    auth: 'member',
    summary: "Run a saved widget's request with its dashboard's context (conditions, period, currency)",
    params: WidgetDataParams,
    response: ExplorerResponse,
    usesWarehouse: true,
    memoryMb: 512,
    timeoutSeconds: 29,
  },
);

export const queryRoutes = [runExplorer, getWidgetData];
