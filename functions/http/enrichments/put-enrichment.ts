import { decodeDocumentBody } from '../../../shared/domain/enrichments/request-body';
import { putEnrichment } from '../../../shared/domain/enrichments/save';
import { etagOf } from '../../../shared/domain/enrichments/service';
import { httpRoute } from '../../../shared/http/handler';
import { respond } from '../../../shared/http/responses';
import { putEnrichment as def } from '../../../shared/routes/enrichments';

export const handler = httpRoute(def, async ({ principal, params, headers, body }) => {
  // `deferBodyValidation`: `body` is the parsed JSON or the YAML text, unvalidated.
  const document = await decodeDocumentBody(body as unknown, headers['content-type']);
  const saved = await putEnrichment(principal, params.name, document, headers['if-match']);
  return respond(saved.created ? 201 : 200, saved.document, { etag: etagOf(saved.version) });
});
