import { snoozeCommitmentAlert } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { snoozeCommitmentAlert as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  snoozeCommitmentAlert(principal, params.id, body.until),
);
