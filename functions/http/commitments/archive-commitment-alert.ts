import { archiveCommitmentAlert } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { archiveCommitmentAlert as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, params }) =>
  archiveCommitmentAlert(principal, params.id),
);
