import * as v from 'valibot';
import {
  EnrichmentDocumentBody,
  EnrichmentNameParams,
  EnrichmentSummaryResponse,
  ListEnrichmentsQuery,
} from '../domain/enrichments/schemas';
import { route } from '../http/route';

const tag = 'Enrichments';

export const listEnrichments = route({
  id: 'listEnrichments',
  method: 'GET',
  path: '/enrichments',
  entry: 'enrichments/list-enrichments',
  auth: 'member',
  tag,
  summary:
    'List enrichment documents (metadata only, by name) a page at a time (not shown in the spec; see README)',
  query: ListEnrichmentsQuery,
  response: v.object({ items: v.array(EnrichmentSummaryResponse), nextCursor: v.nullable(v.string()) }),
});

export const getEnrichment = route({
  id: 'getEnrichment',
  method: 'GET',
  path: '/enrichments/{name}',
  entry: 'enrichments/get-enrichment',
  auth: 'member',
  tag,
  summary: 'Read one enrichment document (JSON form of the stored YAML; ETag = version)',
  params: EnrichmentNameParams,
  response: EnrichmentDocumentBody,
  // Parsing the stored YAML of a large document (10,000 entries) is CPU-bound: more memory, more CPU.
  memoryMb: 1024,
  timeoutSeconds: 15,
});

/**
 * No `body` schema on purpose: the body may be JSON or YAML (`Content-Type: application/yaml`),
 * which the middleware's JSON parser would refuse with 415. The handler decodes it by content
 * type and validates it against `EnrichmentDocumentBody` (the same document GET answers).
 */
export const putEnrichment = route({
  id: 'putEnrichment',
  method: 'PUT',
  path: '/enrichments/{name}',
  entry: 'enrichments/put-enrichment',
  auth: 'admin',
  tag,
  summary:
    'Create (201) or replace (200) an enrichment document; body: the GET document as application/json or application/yaml; optional If-Match',
  params: EnrichmentNameParams,
  response: EnrichmentDocumentBody,
  // A 1 MB YAML body costs more to parse and re-serialise than JSON: more memory, more CPU.
  memoryMb: 1024,
  timeoutSeconds: 20,
});

export const deleteEnrichment = route({
  id: 'deleteEnrichment',
  method: 'DELETE',
  path: '/enrichments/{name}',
  entry: 'enrichments/delete-enrichment',
  auth: 'admin',
  tag,
  summary: 'Delete an enrichment document (hard delete, 204); optional If-Match',
  params: EnrichmentNameParams,
  successStatus: 204,
});

export const enrichmentRoutes = [listEnrichments, getEnrichment, putEnrichment, deleteEnrichment];
