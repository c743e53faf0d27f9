import { addEnrichmentJson, scanEnrichmentsWithoutJson } from '../../db/enrichments-repo';
import { log } from '../../log';
import { canonicalDocument, type EnrichmentDocument } from './document';
import { parseYaml } from './yaml-codec';

export interface BackfillResult {
  /** Items found without a JSON copy. */
  found: number;
  /** JSON copies written. */
  added: number;
  /** Items changed or deleted meanwhile (their new version, if any, already has its JSON copy). */
  raced: number;
  /** Items whose YAML could not be read, or whose JSON copy does not fit in the item; logged. */
  failed: number;
}

/**
 * Gives every enrichment item written before schema version 2 (YAML only) its JSON copy, parsed
 * from the stored YAML, so that GET can read it. Idempotent: items that already have a copy are
 * not touched, and each write is conditional on the version read. Scans the whole table once.
 */
export async function backfillEnrichmentJson(): Promise<BackfillResult> {
  const result: BackfillResult = { found: 0, added: 0, raced: 0, failed: 0 };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await scanEnrichmentsWithoutJson(start);
    for (const legacy of page.items) {
      result.found++;
      try {
        const document = canonicalDocument(parseYaml(legacy.yaml) as EnrichmentDocument);
        if (await addEnrichmentJson(legacy, JSON.stringify(document))) result.added++;
        else result.raced++;
      } catch (error) {
        result.failed++;
        log.error('enrichment JSON copy not added', { key: legacy.key, error });
      }
    }
    start = page.next;
  } while (start);
  return result;
}
