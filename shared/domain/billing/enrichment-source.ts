import { listEnrichmentTargets } from '../../db/enrichments-repo';
import type { EnrichmentFeature } from '../../model/view-features';
import { listEnrichmentDocuments } from '../enrichments/store';

/**
 * The enrichments area's store, seen from the refresh: the live documents in application order
 * (priority ascending, then name). Kept behind this one function so the refresh can be tested
 * with documents of its own.
 */
export async function loadEnrichments(orgId: string): Promise<EnrichmentFeature[]> {
  const docs = await listEnrichmentDocuments(orgId);
  return docs.map((d) => ({
    name: d.name,
    keyField: d.keyField,
    priority: d.priority,
    ...(d.conditions !== undefined ? { conditions: d.conditions } : {}),
    targetColumns: d.targetColumns,
    entries: d.entries,
  }));
}

/**
 * The enrichment documents' names and target columns, from their metadata only: what publish
 * needs to refuse a label or virtual dimension named like an enrichment column, without reading
 * (up to 350 KB of) each document's entries.
 */
export function loadEnrichmentTargets(orgId: string): Promise<EnrichmentTargets[]> {
  return listEnrichmentTargets(orgId);
}

export interface EnrichmentTargets {
  name: string;
  targetColumns: readonly { name: string }[];
}
