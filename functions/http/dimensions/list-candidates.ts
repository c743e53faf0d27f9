import { freshnessHeaders, listCandidates } from '../../../shared/domain/dimensions/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { listCandidates as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal }) => {
  const { candidates, status } = await listCandidates(principal);
  return ok(candidates, freshnessHeaders(status));
});
