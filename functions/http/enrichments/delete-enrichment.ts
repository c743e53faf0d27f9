import { removeEnrichment } from '../../../shared/domain/enrichments/remove';
import { httpRoute } from '../../../shared/http/handler';
import { noContent } from '../../../shared/http/responses';
import { deleteEnrichment as def } from '../../../shared/routes/enrichments';

export const handler = httpRoute(def, async ({ principal, params, headers }) => {
  await removeEnrichment(principal, params.name, headers['if-match']);
  return noContent();
});
