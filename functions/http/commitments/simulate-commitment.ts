import { simulateSavingsPlan } from '../../../shared/domain/commitments/service';
import { httpRoute } from '../../../shared/http/handler';
import { simulateCommitment as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, body }) => simulateSavingsPlan(principal, body));
