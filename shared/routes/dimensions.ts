import * as v from 'valibot';
import { route } from '../http/route';

const tag = 'Dimensions';

const DimensionSchema = v.object({
  name: v.string(),
  label: v.string(),
  groupTitle: v.string(),
  description: v.string(),
  valueEditorType: v.literal('multiselect'),
  values: v.array(v.object({ name: v.string(), label: v.string(), proportionCostAllocated: v.number() })),
  operators: v.array(v.object({ name: v.string(), value: v.string(), label: v.string() })),
});

const CandidateSchema = v.object({
  usage_start_day: v.string(),
  key: v.string(),
  id: v.string(),
  number_values: v.number(),
  values: v.array(
    v.object({ value: v.string(), cost_allocated: v.number(), proportion_cost_allocated: v.number() }),
  ),
  total_cost_key_present: v.number(),
  total_cost_key_absent: v.number(),
  proportion_key_present: v.number(),
  proportion_key_absent: v.number(),
  providers: v.array(v.string()),
  months: v.array(v.object({ month: v.string(), cost: v.number() })),
  cost_percentage_change: v.number(),
  ingested: v.boolean(),
});

const RefreshStatusSchema = v.object({
  state: v.picklist(['never', 'running', 'succeeded', 'failed']),
  requestId: v.optional(v.string()),
  mode: v.optional(v.picklist(['full', 'light'])),
  reason: v.optional(v.string()),
  requestedAt: v.optional(v.string()),
  startedAt: v.optional(v.string()),
  finishedAt: v.optional(v.string()),
  lastSucceededAt: v.optional(v.string()),
  lastSucceededStartedAt: v.optional(v.string()),
  lastSucceededMode: v.optional(v.picklist(['full', 'light'])),
  lastError: v.optional(v.string()),
  warnings: v.optional(v.array(v.string())),
  months: v.optional(v.array(v.string())),
});

export const listDimensions = route({
  id: 'listDimensions',
  method: 'GET',
  path: '/dimensions',
  entry: 'dimensions/list-dimensions',
  auth: 'member',
  tag,
  summary:
    'Dimensions to filter and group by, from the cache the refresh writes (headers x-dimensions-refreshed-at, x-dimensions-refresh-status)',
  response: v.array(DimensionSchema),
});

export const listCandidates = route({
  id: 'listDimensionCandidates',
  method: 'GET',
  path: '/dimensions/candidates',
  entry: 'dimensions/list-candidates',
  auth: 'member',
  tag,
  summary: 'Tag keys of the billing data that could become labels (snake_case), from the refresh cache',
  response: v.array(CandidateSchema),
});

export const getRefreshStatus = route({
  id: 'getDimensionsRefreshStatus',
  method: 'GET',
  path: '/dimensions/status',
  entry: 'dimensions/refresh-status',
  auth: 'member',
  tag,
  summary: 'Status and time of the last warehouse refresh of the organisation',
  response: RefreshStatusSchema,
});

export const dimensionRoutes = [listDimensions, listCandidates, getRefreshStatus];
