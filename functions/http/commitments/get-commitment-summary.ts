import { commitmentSummary } from '../../../shared/domain/commitments/service';
import { httpRoute } from '../../../shared/http/handler';
import { getCommitmentSummary as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, query }) => commitmentSummary(principal, query));
