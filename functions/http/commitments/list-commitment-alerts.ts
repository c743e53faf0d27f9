import { listCommitmentAlerts } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { archivablePage } from '../../../shared/http/list-query';
import { listCommitmentAlerts as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listCommitmentAlerts(principal, archivablePage(query)),
);
