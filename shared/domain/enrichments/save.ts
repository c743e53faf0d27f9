import type { Principal } from '../../auth/principal';
import { listPublishedLabels, listVirtualDimensions } from '../../db/dimensions-repo';
import { type EnrichmentMetadata, saveEnrichment } from '../../db/enrichments-repo';
import type { EnrichmentDocument, VersionedDocument } from './document';
import { requestEnrichmentRefresh } from './refresh';
import { checkTargetColumnNames, validateDocument } from './rules';
import { parseIfMatch } from './service';
import { toYaml } from './yaml-text';

// Kept apart from service.ts so that only the PUT Lambda reaches the CEL and YAML libraries (GET
// reads the stored JSON copy; list and DELETE read metadata only), and the PUT loads each only
// when the request needs it: YAML for YAML bodies, CEL for documents with `conditions`.

const now = () => new Date().toISOString();

function metadataOf(doc: EnrichmentDocument): EnrichmentMetadata {
  return {
    name: doc.name,
    description: doc.description,
    keyField: doc.keyField,
    priority: doc.priority,
    ...(doc.conditions !== undefined ? { conditions: doc.conditions } : {}),
    targetColumns: doc.targetColumns,
    entryCount: doc.entries.length,
  };
}

/**
 * Creates or replaces a document. The body is validated completely before anything is written;
 * the stored YAML and its JSON copy are both generated from the validated document and written
 * in the same conditional update. With `If-Match`, a document changed
 * (or deleted) since that version is a 409 VERSION_CONFLICT; without it, the last write wins.
 * A target column named like a published label or live virtual dimension is a 400 (read just
 * before the write: a label published in between is refused by the publish instead).
 * Once written, a full warehouse refresh is requested (`requestEnrichmentRefresh`).
 */
export async function putEnrichment(
  principal: Principal,
  name: string,
  body: unknown,
  ifMatch: string | undefined,
): Promise<VersionedDocument & { created: boolean }> {
  const precondition = parseIfMatch(ifMatch);
  const document = await validateDocument(body, name);
  const [labels, vdims] = await Promise.all([
    listPublishedLabels(principal.orgId),
    listVirtualDimensions(principal.orgId),
  ]);
  checkTargetColumnNames(document, {
    labels: labels.map((l) => l.name),
    virtualDimensions: vdims.flatMap((v) => (v.published ? [v.published.name] : [])),
  });
  const texts = { yaml: toYaml(document), json: JSON.stringify(document) };
  const saved = await saveEnrichment(principal.orgId, metadataOf(document), texts, {
    ...precondition,
    by: principal.principalId,
    at: now(),
  });
  await requestEnrichmentRefresh(principal.orgId, document.name);
  return { document, version: saved.version, created: saved.created };
}
