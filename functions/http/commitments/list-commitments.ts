import { commitmentInventory } from '../../../shared/domain/commitments/service';
import { httpRoute } from '../../../shared/http/handler';
import { listCommitments as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, query }) => commitmentInventory(principal, query));
