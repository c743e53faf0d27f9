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

export const uploadRoutes = [restoreUpload];
