import * as v from 'valibot';
import { PageQuerySchema } from '../model/enum-schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Billing uploads', folder: 'uploads' };

// Each schema is built by a function marked side-effect free, so a bundle keeps only its route's.
/* @__NO_SIDE_EFFECTS__ */
function schema<T>(build: () => T): T {
  return build();
}

const UploadIdParams = schema(() => v.object({ id: v.pipe(v.string(), v.regex(/^upl_[a-f0-9]{26}$/)) }));

const RestoreResponse = schema(() =>
  v.object({
    id: v.string(),
    status: v.literal('restoring'),
    restoreId: v.string(),
    sources: v.array(v.object({ month: v.string(), provider: v.string(), account: v.string() })),
  }),
);

const Figures = schema(() => v.object({ rows: v.number(), cost: v.record(v.string(), v.number()) }));
const SourceChangeSchema = schema(() =>
  v.object({
    month: v.string(),
    provider: v.string(),
    account: v.string(),
    before: Figures,
    after: Figures,
    kept: v.optional(v.literal(true)),
  }),
);

const Score = schema(() => v.object({ met: v.number(), applicable: v.number() }));
const ConformanceSummary = {
  focusVersion: v.picklist(['1.2', '1.3']),
  rows: v.number(),
  score: v.object({ MUST: Score, SHOULD: Score }),
};
const RequirementResultSchema = schema(() =>
  v.object({
    id: v.string(),
    keyword: v.picklist(['MUST', 'MUST NOT', 'SHOULD', 'SHOULD NOT', 'MAY']),
    statement: v.string(),
    status: v.picklist(['pass', 'fail', 'not_applicable']),
    violations: v.number(),
    uses: v.optional(v.number()),
    reason: v.optional(v.string()),
    refuses: v.optional(v.literal(true)),
    samples: v.optional(
      v.array(
        v.object({ row: v.number(), line: v.number(), values: v.record(v.string(), v.nullable(v.string())) }),
      ),
    ),
  }),
);

function uploadResponse<T extends v.GenericSchema>(conformance: T) {
  return v.object({
    id: v.string(),
    status: v.picklist(['processing', 'succeeded', 'rejected']),
    /** The detected format; `unknown` while processing or when refused before it was recognised. */
    format: v.picklist([
      'focus',
      'contract-commitment',
      'aws-cur-1',
      'aws-cur-2',
      'azure',
      'gcp',
      'oci',
      'unknown',
    ]),
    file: v.optional(v.string()),
    objectKey: v.string(),
    startedAt: v.optional(v.string()),
    finishedAt: v.optional(v.string()),
    rows: v.optional(v.number()),
    months: v.optional(v.array(v.string())),
    parts: v.optional(v.number()),
    replaced: v.optional(v.array(SourceChangeSchema)),
    warnings: v.optional(v.array(v.string())),
    restorableUntil: v.optional(v.string()),
    restoreRequestedAt: v.optional(v.string()),
    restoredAt: v.optional(v.string()),
    restored: v.optional(v.array(SourceChangeSchema)),
    error: v.optional(v.string()),
    code: v.optional(v.string()),
    conformance: v.optional(conformance),
  });
}

/** One upload with its whole conformance report (per requirement: pass, fail or not applicable). */
const UploadResponse = schema(() =>
  uploadResponse(v.object({ ...ConformanceSummary, requirements: v.array(RequirementResultSchema) })),
);
/** An upload in a list: its conformance score only. */
const UploadSummaryResponse = schema(() => uploadResponse(v.object(ConformanceSummary)));
const ListUploadsQuery = schema(() => v.object({ ...PageQuerySchema.entries }));

export const listUploads = /* @__PURE__ */ declare(AREA, 'GET /billing/uploads', 'listBillingUploads', {
  entry: 'list-uploads',
  auth: 'member',
  summary:
    "The organisation's billing uploads, newest first, a page at a time (?limit&cursor): status, detected format, file, rows, months, what each replaced and its FOCUS conformance score",
  query: ListUploadsQuery,
  response: schema(() =>
    v.object({ items: v.array(UploadSummaryResponse), nextCursor: v.nullable(v.string()) }),
  ),
});

export const getUpload = /* @__PURE__ */ declare(AREA, 'GET /billing/uploads/{id}', 'getBillingUpload', {
  entry: 'get-upload',
  auth: 'member',
  summary:
    'One billing upload: status, detected format, file, rows, months, what it replaced (rows and cost per currency before and after, warnings, restorable until) and its FOCUS conformance report (per requirement: pass, fail or not applicable, violating rows, sample lines)',
  params: UploadIdParams,
  response: UploadResponse,
});

export const restoreUpload = /* @__PURE__ */ declare(
  AREA,
  'POST /billing/uploads/{id}/restore',
  'restoreBillingUpload',
  {
    entry: 'restore-upload',
    auth: 'admin',
    summary:
      'Put back the billing rows an upload replaced (within 30 days of it): 202 while the billing-ingest worker restores them; what they replace is kept in turn',
    params: UploadIdParams,
    successStatus: 202,
    response: RestoreResponse,
    sendsTo: ['billing-ingest'],
  },
);

export const uploadRoutes = [listUploads, getUpload, restoreUpload];
