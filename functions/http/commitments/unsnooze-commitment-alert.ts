import { unsnoozeCommitmentAlert } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { unsnoozeCommitmentAlert as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, params, headers }) => {
  const alert = await unsnoozeCommitmentAlert(principal, params.id, headers['if-match']);
  return ok(alert, { etag: `"${alert.version}"` });
});
