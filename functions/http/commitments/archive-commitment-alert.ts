import { archiveCommitmentAlert } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { archiveCommitmentAlert as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, params, headers }) => {
  const alert = await archiveCommitmentAlert(principal, params.id, headers['if-match']);
  return ok(alert, { etag: `"${alert.version}"` });
});
