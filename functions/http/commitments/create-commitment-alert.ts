import { createCommitmentAlert } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createCommitmentAlert as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createCommitmentAlert(principal, body), { etag: '"1"' }),
);
