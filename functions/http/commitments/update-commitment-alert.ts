import { updateCommitmentAlert } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { updateCommitmentAlert as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const alert = await updateCommitmentAlert(principal, params.id, body, headers['if-match']);
  return ok(alert, { etag: `"${alert.version}"` });
});
