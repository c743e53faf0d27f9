import * as v from 'valibot';
import { route } from '../http/route';

const tag = 'Billing uploads';

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

const UploadResponse = schema(() =>
  v.object({
    id: v.string(),
    status: v.picklist(['processing', 'succeeded', 'rejected']),
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
  }),
);

export const getUpload = /* @__PURE__ */ route({
  id: 'getBillingUpload',
  method: 'GET',
  path: '/billing/uploads/{id}',
  entry: 'uploads/get-upload',
  auth: 'member',
  tag,
  summary:
    'One billing upload: status, file, rows, months, and what it replaced (rows and cost per currency before and after, warnings, restorable until)',
  params: UploadIdParams,
  response: UploadResponse,
});

export const restoreUpload = /* @__PURE__ */ route({
  id: 'restoreBillingUpload',
  method: 'POST',
  path: '/billing/uploads/{id}/restore',
  entry: 'uploads/restore-upload',
  auth: 'admin',
  tag,
  summary:
    'Put back the billing rows an upload replaced (within 30 days of it): 202 while the billing-ingest worker restores them; what they replace is kept in turn',
  params: UploadIdParams,
  successStatus: 202,
  response: RestoreResponse,
  sendsTo: ['billing-ingest'],
});

export const uploadRoutes = [getUpload, restoreUpload];
