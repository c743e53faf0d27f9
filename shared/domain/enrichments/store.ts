import { listAllEnrichments } from '../../db/enrichments-repo';
import { log } from '../../log';
import { byApplicationOrder, canonicalDocument, type EnrichmentDocument, missingJsonCopy } from './document';

// No YAML library here either: the refresh (and any HTTP function that lists documents) reads the
// stored JSON copies. Only PUT and the migration script parse YAML.

export type { EnrichmentDocument, VersionedDocument } from './document';
export { byApplicationOrder, readEnrichment } from './document';

/**
 * The JSON form of a stored document, from its JSON copy. An item stored before the copy existed
 * (schema version 1) and not yet migrated (`npx tsx scripts/migrate-enrichments.ts`) is a
 * MissingJsonCopyError.
 */
export function documentOf(stored: { name: string; json?: string }): EnrichmentDocument {
  if (stored.json === undefined) throw missingJsonCopy(stored.name);
  return canonicalDocument(JSON.parse(stored.json) as EnrichmentDocument);
}

/**
 * The live enrichment documents of an organisation, in application order (priority ascending,
 * then name). Every returned document passed PUT validation when it was stored. A document that
 * cannot be read (including one stored before the JSON copy existed and not yet migrated) is
 * skipped and logged rather than failing the whole refresh.
 */
export async function listEnrichmentDocuments(orgId: string): Promise<EnrichmentDocument[]> {
  const stored = await listAllEnrichments(orgId);
  const docs: EnrichmentDocument[] = [];
  for (const item of stored) {
    try {
      docs.push(documentOf(item));
    } catch (error) {
      log.error('unreadable enrichment document skipped', { orgId, name: item.name, error });
    }
  }
  return docs.sort(byApplicationOrder);
}
