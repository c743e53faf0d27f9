import type { Principal } from '../../auth/principal';
import { getEnrichmentJson } from '../../db/enrichments-repo';
import { NotFoundError } from '../../errors';
import type { EnrichmentDocument } from '../../model/enrichments';

export type { EnrichmentDocument };

// Nothing here may import the YAML library: GET reads the stored JSON copy, so its bundle stays
// small (see docs/enrichments.md, "Storage and concurrency").

export interface VersionedDocument {
  document: EnrichmentDocument;
  version: number;
}

/** Orders documents the way the full refresh applies them: priority ascending, then name. */
export function byApplicationOrder(a: EnrichmentDocument, b: EnrichmentDocument): number {
  return a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * A document in its canonical form: fields in a fixed order, `conditions` only when set, nothing
 * else. Applied to what PUT validated (before both stored forms are written) and to what is read back.
 */
export function canonicalDocument(raw: EnrichmentDocument): EnrichmentDocument {
  return {
    name: raw.name,
    description: raw.description,
    keyField: raw.keyField,
    priority: raw.priority,
    ...(raw.conditions !== undefined ? { conditions: raw.conditions } : {}),
    targetColumns: raw.targetColumns.map((c) => ({ name: c.name, mode: c.mode })),
    // biome-ignore lint/suspicious/noThenProperty: `then` is the spec's field name; its value is a plain record, never a function
    entries: raw.entries.map((e) => ({ key: e.key, then: { ...e.then } })),
  };
}

/** Thrown when an item written before the JSON copy existed is read without the YAML library. */
export class MissingJsonCopyError extends Error {
  override name = 'MissingJsonCopyError';
}

export function missingJsonCopy(name: string): MissingJsonCopyError {
  return new MissingJsonCopyError(
    `enrichment ${name} has no JSON copy (stored before schema version 2): run scripts/migrate-enrichments.ts`,
  );
}

/**
 * One document of the caller's organisation, from its stored JSON copy (no YAML parsing); any
 * other name (in any organisation) is NOT_FOUND. An item stored before the JSON copy existed and
 * not yet migrated (`npx tsx scripts/migrate-enrichments.ts`) is a MissingJsonCopyError (a 500,
 * logged with the remedy).
 */
export async function readEnrichment(principal: Principal, name: string): Promise<VersionedDocument> {
  const stored = await getEnrichmentJson(principal.orgId, name);
  if (!stored) throw new NotFoundError('NOT_FOUND');
  if (stored.json === undefined) throw missingJsonCopy(name);
  return { document: JSON.parse(stored.json) as EnrichmentDocument, version: stored.version };
}
