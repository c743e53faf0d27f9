import { ExplorerBody, ExplorerResponse, WidgetDataParams } from '../domain/queries/schemas';
import { route } from '../http/route';

/** The query engine's routes (docs/queries.md). */
export const runExplorer = route({
  id: 'runExplorer',
  method: 'POST',
  path: '/queries/explorer',
  entry: 'queries/explorer',
  auth: 'member',
  tag: 'Queries',
  summary: 'Run an explorer request (cost, metric, formula and condition queries) over the warehouse',
  body: ExplorerBody,
  response: ExplorerResponse,
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const getWidgetData = route({
  id: 'getWidgetData',
  method: 'GET',
  path: '/dashboard-v2/{id}/widgets/{key}/data',
  entry: 'dashboards/widget-data',
  auth: 'member',
  tag: 'Dashboards',
  summary: "Run a saved widget's request with its dashboard's context (conditions, period, currency)",
  params: WidgetDataParams,
  response: ExplorerResponse,
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const queryRoutes = [runExplorer, getWidgetData];
