import type { Principal } from '../../auth/principal';
import {
  deleteEnrichment,
  type EnrichmentMetadata,
  type EnrichmentSummary,
  getEnrichment,
  listEnrichmentSummaries,
  type Page,
  saveEnrichment,
} from '../../db/enrichments-repo';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors';
import { validateDocument } from './rules';
import { documentOf, type EnrichmentDocument } from './store';
import { toYaml } from './yaml-codec';

const now = () => new Date().toISOString();

export interface VersionedDocument {
  document: EnrichmentDocument;
  version: number;
}

/** `If-Match`: absent, `*` (must exist) or one version as an ETag (`"3"`, `W/"3"` or `3`). */
type Precondition = { expectedVersion?: number; mustExist?: boolean };

export function parseIfMatch(ifMatch: string | undefined): Precondition {
  if (ifMatch === undefined || ifMatch.trim() === '') return {};
  const value = ifMatch.trim();
  if (value === '*') return { mustExist: true };
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(value);
  const version = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new BadRequestError('Invalid If-Match header: send the ETag of a GET, such as "3", or *');
  }
  return { expectedVersion: version };
}

/** The ETag of a document version. */
export const etagOf = (version: number) => `"${version}"`;

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

/** One document of the caller's organisation; any other name (in any organisation) is NOT_FOUND. */
export async function readEnrichment(principal: Principal, name: string): Promise<VersionedDocument> {
  const stored = await getEnrichment(principal.orgId, name);
  if (!stored) throw new NotFoundError('NOT_FOUND');
  return { document: documentOf(stored), version: stored.version };
}

/**
 * Creates or replaces a document. The body is validated completely before anything is written;
 * the stored YAML is generated from the validated document. With `If-Match`, a document changed
 * (or deleted) since that version is a 409 VERSION_CONFLICT; without it, the last write wins.
 */
export async function putEnrichment(
  principal: Principal,
  name: string,
  body: unknown,
  ifMatch: string | undefined,
): Promise<VersionedDocument & { created: boolean }> {
  const precondition = parseIfMatch(ifMatch);
  const document = validateDocument(body, name);
  const saved = await saveEnrichment(principal.orgId, metadataOf(document), toYaml(document), {
    ...precondition,
    by: principal.principalId,
    at: now(),
  });
  return { document, version: saved.version, created: saved.created };
}

/** Document summaries (no entries), in name order, a page at a time. */
export async function listEnrichments(
  principal: Principal,
  options: { limit: number; cursor?: string },
): Promise<Page<EnrichmentSummary>> {
  return listEnrichmentSummaries(principal.orgId, options.limit, options.cursor);
}

/** Hard-deletes a document; NOT_FOUND when there is none, 409 when `If-Match` is stale. */
export async function removeEnrichment(
  principal: Principal,
  name: string,
  ifMatch: string | undefined,
): Promise<void> {
  const { expectedVersion } = parseIfMatch(ifMatch);
  let deleted: boolean;
  try {
    deleted = await deleteEnrichment(principal.orgId, name, expectedVersion);
  } catch (error) {
    if (error instanceof ConflictError && !(await getEnrichment(principal.orgId, name))) {
      throw new NotFoundError('NOT_FOUND');
    }
    throw error;
  }
  if (!deleted) throw new NotFoundError('NOT_FOUND');
}
