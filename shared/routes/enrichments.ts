import * as v from 'valibot';
import {
  EnrichmentDocumentBody,
  EnrichmentNameParams,
  EnrichmentSummaryResponse,
  ListEnrichmentsQuery,
  YAML_MEDIA_TYPES,
} from '../domain/enrichments/schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Enrichments', folder: 'enrichments' };

export const listEnrichments = declare(AREA, 'GET /enrichments', 'listEnrichments', {
  auth: 'member',
  summary:
    'List enrichment documents (metadata only, by name) a page at a time (not shown in the spec; see docs/enrichments.md)',
  query: ListEnrichmentsQuery,
  response: v.object({ items: v.array(EnrichmentSummaryResponse), nextCursor: v.nullable(v.string()) }),
});

export const getEnrichment = declare(AREA, 'GET /enrichments/{name}', 'getEnrichment', {
  auth: 'member',
  summary: 'Read one enrichment document (JSON form of the stored YAML; ETag = version)',
  params: EnrichmentNameParams,
  response: EnrichmentDocumentBody,
  // Reads the stored JSON copy (no YAML parsing): the default memory and timeout suffice.
});

/**
 * The body is JSON or YAML (`bodyContentTypes`): the middleware parses JSON and hands YAML over
 * as text; the handler decodes YAML and validates both against `EnrichmentDocumentBody` itself
 * (`deferBodyValidation`), with the document rules and their messages.
 */
export const putEnrichment = declare(AREA, 'PUT /enrichments/{name}', 'putEnrichment', {
  auth: 'admin',
  summary:
    'Create (201) or replace (200) an enrichment document; body: the GET document as application/json or application/yaml; optional If-Match',
  params: EnrichmentNameParams,
  body: EnrichmentDocumentBody,
  bodyContentTypes: ['application/json', ...YAML_MEDIA_TYPES],
  deferBodyValidation: true,
  response: EnrichmentDocumentBody,
  statuses: [201],
  // A 1 MB YAML body costs more to parse and re-serialise than JSON: more memory, more CPU.
  memoryMb: 1024,
  timeoutSeconds: 20,
  // A changed document asks for a full warehouse refresh (outbox, then this queue).
  sendsTo: ['warehouse-refresh'],
});

export const deleteEnrichment = declare(AREA, 'DELETE /enrichments/{name}', 'deleteEnrichment', {
  auth: 'admin',
  summary: 'Delete an enrichment document (hard delete, 204); optional If-Match',
  params: EnrichmentNameParams,
  successStatus: 204,
  sendsTo: ['warehouse-refresh'],
});

export const enrichmentRoutes = [listEnrichments, getEnrichment, putEnrichment, deleteEnrichment];
