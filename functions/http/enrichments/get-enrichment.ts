import { readEnrichment } from '../../../shared/domain/enrichments/document';
import { etagOf } from '../../../shared/domain/enrichments/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getEnrichment as def } from '../../../shared/routes/enrichments';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const { document, version } = await readEnrichment(principal, params.name);
  return ok(document, { etag: etagOf(version) });
});
