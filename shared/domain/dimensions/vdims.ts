import type { Principal } from '../../auth/principal';
import {
  deleteVirtualDimension,
  getVirtualDimension,
  insertVirtualDimension,
  listPublishedLabels,
  listVirtualDimensionPage,
  listVirtualDimensions,
  replaceVirtualDimension,
} from '../../db/dimensions-repo';
import { listEnrichmentTargets } from '../../db/enrichments-repo';
import { BadRequestError, NotFoundError } from '../../errors';
import { newId } from '../../ids';
import type { VdimDefinition, VirtualDimension } from '../../model/dimensions';
import { vdimErrors } from './publish-rules';
import { DIMENSION_LIMITS, type VdimInput } from './schemas';

/**
 * Virtual-dimension drafts. A virtual dimension maps rule-filtered cost to values (first matching
 * rule wins, else the default). Creating or editing one only changes its draft; it becomes live
 * (or, for a deletion of a live one, disappears) at the next POST /dimensions/publish.
 */
const definitionOf = (input: VdimInput): VdimDefinition => ({
  name: input.name,
  description: input.description,
  rules: input.rules,
  defaultValue: input.defaultValue,
});

function sameDefinition(a: VdimDefinition, b: VdimDefinition): boolean {
  return JSON.stringify(definitionOf(a as VdimInput)) === JSON.stringify(definitionOf(b as VdimInput));
}

/**
 * Refuses a draft that could not publish as it stands: the per-draft rules of publish (name,
 * clashes with built-in dimensions, labels, enrichment columns and other virtual dimensions, rule
 * shape) answered as 400 `{error: "<field>: <message>"}`, the first failing field first.
 */
async function assertPublishable(
  orgId: string,
  id: string,
  draft: VdimDefinition,
  others: readonly VirtualDimension[],
): Promise<void> {
  const [labels, enrichments] = await Promise.all([listPublishedLabels(orgId), listEnrichmentTargets(orgId)]);
  const [first] = vdimErrors(
    id,
    draft,
    {
      labelNames: new Set(labels.map((l) => l.name)),
      vdimNames: new Map(others.filter((v) => !v.pendingDelete).map((v) => [v.id, v.name])),
      enrichmentColumns: new Set(enrichments.flatMap((e) => e.targetColumns.map((c) => c.name))),
    },
    false,
  );
  if (first) throw new BadRequestError(`${first.field}: ${first.message}`);
}

async function load(principal: Principal, id: string): Promise<VirtualDimension> {
  const vdim = await getVirtualDimension(principal.orgId, id);
  if (!vdim) throw new NotFoundError('NOT_FOUND');
  return vdim;
}

export async function createVdim(principal: Principal, input: VdimInput): Promise<VirtualDimension> {
  const existing = await listVirtualDimensions(principal.orgId);
  if (existing.length >= DIMENSION_LIMITS.vdimsPerOrg)
    throw new BadRequestError(
      `An organisation has at most ${DIMENSION_LIMITS.vdimsPerOrg} virtual dimensions`,
    );
  const id = newId('vdim');
  await assertPublishable(principal.orgId, id, definitionOf(input), existing);
  const at = new Date().toISOString();
  const vdim: VirtualDimension = {
    id,
    organizationId: principal.orgId,
    ...definitionOf(input),
    published: null,
    pending: true,
    pendingDelete: false,
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: principal.principalId,
    updatedBy: principal.principalId,
  };
  await insertVirtualDimension(vdim);
  return vdim;
}

/** A page of the organisation's virtual dimensions, in creation order: `{items, nextCursor}`. */
export async function listVdims(
  principal: Principal,
  page: { limit: number; cursor?: string },
): Promise<{ items: VirtualDimension[]; nextCursor: string | null }> {
  return listVirtualDimensionPage(principal.orgId, page.limit, page.cursor);
}

export async function readVdim(principal: Principal, id: string): Promise<VirtualDimension> {
  return load(principal, id);
}

/** Replaces the draft. Editing back to the live definition clears the pending flag. */
export async function updateVdim(
  principal: Principal,
  id: string,
  input: VdimInput,
): Promise<VirtualDimension> {
  const current = await load(principal, id);
  const draft = definitionOf(input);
  await assertPublishable(principal.orgId, id, draft, await listVirtualDimensions(principal.orgId));
  const next: VirtualDimension = {
    ...current,
    ...draft,
    pending: current.published ? !sameDefinition(current.published, draft) : true,
    pendingDelete: false,
    version: current.version + 1,
    updatedAt: new Date().toISOString(),
    updatedBy: principal.principalId,
  };
  await replaceVirtualDimension(next, current.version);
  return next;
}

/**
 * Deletes a draft that was never published at once; a live one is marked for deletion and
 * removed by the next publish (until then it stays queryable).
 */
export async function deleteVdim(principal: Principal, id: string): Promise<void> {
  const current = await load(principal, id);
  if (!current.published) {
    await deleteVirtualDimension(principal.orgId, id, current.version);
    return;
  }
  await replaceVirtualDimension(
    {
      ...current,
      pendingDelete: true,
      version: current.version + 1,
      updatedAt: new Date().toISOString(),
      updatedBy: principal.principalId,
    },
    current.version,
  );
}
