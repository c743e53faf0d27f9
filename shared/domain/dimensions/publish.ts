import type { Principal } from '../../auth/principal';
import {
  commitPublish,
  listPublishedLabels,
  listVirtualDimensions,
  readCache,
} from '../../db/dimensions-repo';
import { ConflictError } from '../../errors';
import type { CachedCandidate, PublishedLabel, VirtualDimension } from '../../model/dimensions';
import { requestRejection } from '../../validation';
import type { EnrichmentTargets } from '../billing/enrichment-source';
import { deliver } from '../billing/outbox';
import { refreshOutboxEntry } from '../billing/refresh-request';
import { type DraftError, labelErrors, type RulesContext, vdimErrors } from './publish-rules';
import { DIMENSION_LIMITS, type PublishInput } from './schemas';

/**
 * POST /dimensions/publish. Scope tokens: `all` (the default) publishes the inline labels and
 * every pending virtual-dimension change; `labels` only the inline labels; `vdims` only the
 * pending virtual-dimension changes (labels must then be absent or empty).
 *
 * Each label and each pending draft is validated on its own (`publish-rules.ts`); the valid set
 * is promoted in one DynamoDB transaction that also writes the refresh request to the outbox.
 * The request is sent after the commit; if that send fails the outbox sweep sends it later.
 * A full refresh is asked for when labels changed, a light one otherwise; nothing is asked for
 * when nothing was promoted.
 */
export interface PublishResult {
  /** True when everything asked for was published. */
  ok: boolean;
  publishedLabels: boolean;
  publishedVdimIds: string[];
  unpublished: { kind: 'label' | 'vdim'; name: string; id?: string; errors: DraftError[] }[];
}

export interface PublishDeps {
  /** The enrichment documents' target columns (names clash checks); documents themselves fit too. */
  loadEnrichments(orgId: string): Promise<readonly EnrichmentTargets[]>;
  now(): Date;
}

function rejectRequest(message: string): never {
  throw requestRejection('publish', message);
}

export async function publishDimensions(
  principal: Principal,
  input: PublishInput,
  deps: PublishDeps,
): Promise<PublishResult> {
  const scope = input.scope;
  if (scope === 'vdims' && input.labels.length)
    rejectRequest('labels cannot be published with scope "vdims"; use "all" or "labels"');
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptPublish(principal, input, deps);
    } catch (error) {
      // A draft changed between our read and the commit: validate the fresh state again.
      if (error instanceof ConflictError && attempt < 2) continue;
      throw error;
    }
  }
}

async function attemptPublish(
  principal: Principal,
  input: PublishInput,
  deps: PublishDeps,
): Promise<PublishResult> {
  const orgId = principal.orgId;
  const withLabels = input.scope !== 'vdims';
  const withVdims = input.scope !== 'labels';
  const [candidates, published, vdims, enrichments] = await Promise.all([
    readCache<CachedCandidate[]>(orgId, 'candidates'),
    listPublishedLabels(orgId),
    listVirtualDimensions(orgId),
    deps.loadEnrichments(orgId),
  ]);
  const now = deps.now();
  const unpublished: PublishResult['unpublished'] = [];
  const vdimNames = new Map(vdims.filter((v) => !v.pendingDelete).map((v) => [v.id, v.name]));
  const base: Omit<RulesContext, 'labelNames'> = {
    tagKeys: new Set((candidates?.payload ?? []).map((c) => c.key)),
    vdimNames,
    enrichmentColumns: new Set(enrichments.flatMap((e) => e.targetColumns.map((c) => c.name))),
  };

  // Labels first: the virtual dimensions of this publish may use the labels it publishes.
  const labels: PublishedLabel[] = [];
  if (withLabels) {
    const counts = new Map<string, number>();
    for (const l of input.labels)
      counts.set(l.name.toLowerCase(), (counts.get(l.name.toLowerCase()) ?? 0) + 1);
    const ctx = { ...base, labelNames: new Set(published.map((l) => l.name)) };
    for (const label of input.labels) {
      const errors = labelErrors(label, ctx, (counts.get(label.name.toLowerCase()) ?? 0) > 1);
      if (errors.length) unpublished.push({ kind: 'label', name: label.name, errors });
      else
        labels.push({
          name: label.name,
          columnsMerged: label.columnsMerged.map((c) => ({ name: c.name, type: c.type })),
          maps: label.maps.map((m) => ({ value: m.value, to: m.to })),
          publishedAt: now.toISOString(),
          publishedBy: principal.principalId,
        });
    }
  }

  const promote: { vdim: VirtualDimension; expectedVersion: number }[] = [];
  const remove: { id: string; expectedVersion: number }[] = [];
  if (withVdims) {
    const labelNames = new Set([...published.map((l) => l.name), ...labels.map((l) => l.name)]);
    const ctx = { ...base, labelNames };
    const pending = vdims.filter((v) => v.pending || v.pendingDelete);
    const nameCounts = new Map<string, number>();
    for (const v of pending.filter((p) => !p.pendingDelete))
      nameCounts.set(v.name.toLowerCase(), (nameCounts.get(v.name.toLowerCase()) ?? 0) + 1);
    for (const vdim of pending) {
      if (promote.length + remove.length >= DIMENSION_LIMITS.vdimsPerPublish) {
        unpublished.push({
          kind: 'vdim',
          name: vdim.name,
          id: vdim.id,
          errors: [
            {
              kind: 'limit',
              message: `one publish promotes at most ${DIMENSION_LIMITS.vdimsPerPublish} virtual dimensions; publish again`,
            },
          ],
        });
        continue;
      }
      if (vdim.pendingDelete) {
        remove.push({ id: vdim.id, expectedVersion: vdim.version });
        continue;
      }
      const errors = vdimErrors(vdim.id, vdim, ctx, (nameCounts.get(vdim.name.toLowerCase()) ?? 0) > 1).map(
        ({ kind, message }) => ({ kind, message }),
      );
      if (errors.length) {
        unpublished.push({ kind: 'vdim', name: vdim.name, id: vdim.id, errors });
        continue;
      }
      promote.push({
        vdim: {
          ...vdim,
          published: {
            name: vdim.name,
            description: vdim.description,
            rules: vdim.rules,
            defaultValue: vdim.defaultValue,
            publishedAt: now.toISOString(),
          },
          pending: false,
          version: vdim.version + 1,
          updatedAt: now.toISOString(),
          updatedBy: principal.principalId,
        },
        expectedVersion: vdim.version,
      });
    }
  }

  const result: PublishResult = {
    ok: unpublished.length === 0,
    publishedLabels: labels.length > 0,
    publishedVdimIds: [...promote.map((p) => p.vdim.id), ...remove.map((r) => r.id)],
    unpublished,
  };
  if (!labels.length && !promote.length && !remove.length) return result;
  const refresh = refreshOutboxEntry(orgId, labels.length ? 'full' : 'light', 'publish', now);
  await commitPublish(orgId, { labels, promote, remove, refresh });
  await deliver(refresh);
  return result;
}
