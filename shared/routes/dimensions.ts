import * as v from 'valibot';
import { ListVdimsQuery, PublishBody, VdimBody, VdimIdParams } from '../domain/dimensions/schemas';
import { ConversionOut } from '../domain/queries/schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Dimensions', folder: 'dimensions' };

// Tree-shaking: esbuild treats a call into another module (valibot's builders, `route()`) as a side
// effect even when that function is marked side-effect free, so every definition below would end
// up in every dimension Lambda. Building each schema through `schema()` (marked in this file, where
// esbuild honours it) and marking each `route()` call pure lets a handler keep only its own route.
/* @__NO_SIDE_EFFECTS__ */
function schema<T>(build: () => T): T {
  return build();
}

const DimensionSchema = schema(() =>
  v.object({
    name: v.string(),
    label: v.string(),
    groupTitle: v.string(),
    description: v.string(),
    valueEditorType: v.literal('multiselect'),
    values: v.array(v.object({ name: v.string(), label: v.string(), proportionCostAllocated: v.number() })),
    operators: v.array(v.object({ name: v.string(), value: v.string(), label: v.string() })),
  }),
);

const CandidateSchema = schema(() =>
  v.object({
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
    similar_keys: v.pipe(
      v.array(v.string()),
      v.description(
        'The other candidate keys that differ from `key` only by case or whitespace (" team", "Team" beside "team"), sorted. Keys are kept exactly as exported, each with its own figures; to combine them, publish one label with all of them in columnsMerged.',
      ),
    ),
    ingested: v.boolean(),
  }),
);

const RefreshStatusSchema = schema(() =>
  v.object({
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
    currency: v.optional(v.string()),
    conversion: v.optional(ConversionOut),
    currencyError: v.optional(v.string()),
  }),
);

export const listDimensions = /* @__PURE__ */ declare(AREA, 'GET /dimensions', 'listDimensions', {
  auth: 'member',
  summary:
    'Dimensions to filter and group by, from the cache the refresh writes (headers x-dimensions-refreshed-at, x-dimensions-refresh-status, x-dimensions-currency)',
  response: schema(() => v.array(DimensionSchema)),
});

export const listCandidates = /* @__PURE__ */ declare(
  AREA,
  'GET /dimensions/candidates',
  'listDimensionCandidates',
  {
    entry: 'list-candidates',
    auth: 'member',
    statuses: [422],
    summary:
      "Tag keys of the billing data that could become labels (snake_case), from the refresh cache; costs in the organisation's reporting currency (header x-dimensions-currency)",
    response: schema(() => v.array(CandidateSchema)),
  },
);

export const getRefreshStatus = /* @__PURE__ */ declare(
  AREA,
  'GET /dimensions/status',
  'getDimensionsRefreshStatus',
  {
    entry: 'refresh-status',
    auth: 'member',
    summary: 'Status and time of the last warehouse refresh of the organisation',
    response: RefreshStatusSchema,
  },
);

const PublishResponse = schema(() =>
  v.object({
    ok: v.boolean(),
    publishedLabels: v.boolean(),
    publishedVdimIds: v.array(v.string()),
    unpublished: v.array(
      v.object({
        kind: v.picklist(['label', 'vdim']),
        name: v.string(),
        id: v.optional(v.string()),
        errors: v.array(v.object({ kind: v.string(), message: v.string() })),
      }),
    ),
  }),
);

const LabelResponse = schema(() =>
  v.object({
    name: v.string(),
    columnsMerged: v.array(v.object({ name: v.string(), type: v.string() })),
    maps: v.array(v.object({ value: v.string(), to: v.string() })),
    publishedAt: v.string(),
    publishedBy: v.string(),
  }),
);

const VdimResponse = schema(() =>
  v.object({
    id: v.string(),
    organizationId: v.string(),
    name: v.string(),
    description: v.string(),
    rules: v.array(v.object({ value: v.string(), whereClause: v.unknown() })),
    defaultValue: v.nullable(v.string()),
    published: v.nullable(v.unknown()),
    pending: v.boolean(),
    pendingDelete: v.boolean(),
    version: v.number(),
    createdAt: v.string(),
    updatedAt: v.string(),
    createdBy: v.string(),
    updatedBy: v.string(),
  }),
);

export const publishDimensions = /* @__PURE__ */ declare(
  AREA,
  'POST /dimensions/publish',
  'publishDimensions',
  {
    entry: 'publish',
    auth: 'admin',
    summary:
      'Publish inline labels and pending virtual-dimension changes (scope all|labels|vdims); valid drafts are promoted atomically and a refresh is enqueued',
    body: PublishBody,
    validation: 'publish',
    response: PublishResponse,
    sendsTo: ['warehouse-refresh'],
  },
);

export const listLabels = /* @__PURE__ */ declare(AREA, 'GET /dimensions/labels', 'listLabels', {
  auth: 'member',
  summary: 'Published label configurations',
  response: schema(() => v.array(LabelResponse)),
});

export const createVdim = /* @__PURE__ */ declare(AREA, 'POST /dimensions/vdims', 'createVirtualDimension', {
  entry: 'create-vdim',
  auth: 'admin',
  summary: 'Create a virtual-dimension draft (live after the next publish)',
  body: VdimBody,
  successStatus: 201,
  response: VdimResponse,
});

export const listVdims = /* @__PURE__ */ declare(AREA, 'GET /dimensions/vdims', 'listVirtualDimensions', {
  entry: 'list-vdims',
  auth: 'member',
  summary:
    'Virtual dimensions with their drafts and live definitions, a page at a time in creation order (?limit&cursor)',
  query: ListVdimsQuery,
  response: schema(() => v.object({ items: v.array(VdimResponse), nextCursor: v.nullable(v.string()) })),
});

export const getVdim = /* @__PURE__ */ declare(AREA, 'GET /dimensions/vdims/{id}', 'getVirtualDimension', {
  entry: 'get-vdim',
  auth: 'member',
  summary: 'Read one virtual dimension',
  params: VdimIdParams,
  response: VdimResponse,
});

export const updateVdim = /* @__PURE__ */ declare(
  AREA,
  'PUT /dimensions/vdims/{id}',
  'updateVirtualDimension',
  {
    entry: 'update-vdim',
    auth: 'admin',
    summary: 'Replace the draft of a virtual dimension (live after the next publish)',
    params: VdimIdParams,
    body: VdimBody,
    response: VdimResponse,
  },
);

export const deleteVdim = /* @__PURE__ */ declare(
  AREA,
  'DELETE /dimensions/vdims/{id}',
  'deleteVirtualDimension',
  {
    entry: 'delete-vdim',
    auth: 'admin',
    summary: 'Delete a draft, or mark a live virtual dimension for removal at the next publish',
    params: VdimIdParams,
    successStatus: 204,
  },
);

export const dimensionRoutes = [
  listDimensions,
  listCandidates,
  getRefreshStatus,
  publishDimensions,
  listLabels,
  createVdim,
  listVdims,
  getVdim,
  updateVdim,
  deleteVdim,
];
