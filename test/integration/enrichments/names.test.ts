import { randomUUID } from 'node:crypto';
import type { Principal } from '../../../shared/auth/principal';
import { listPublishedLabels } from '../../../shared/db/dimensions-repo';
import { getEnrichment } from '../../../shared/db/enrichments-repo';
import { loadEnrichmentTargets } from '../../../shared/domain/billing/enrichment-source';
import { publishDimensions } from '../../../shared/domain/dimensions/publish';
import { createVdim } from '../../../shared/domain/dimensions/vdims';
import { putEnrichment } from '../../../shared/domain/enrichments/save';
import { BadRequestError } from '../../../shared/errors';
import { entry, sampleDocument } from '../../unit/enrichments/fixtures';

// Enrichment target columns, published labels and virtual dimensions are dimensions of one
// namespace: each side refuses a name the other holds, so a target column always starts empty.
const admin = (): Principal => ({
  orgId: `org_names_${randomUUID().slice(0, 8)}`,
  principalId: 'usr_admin',
  kind: 'user',
  role: 'admin',
  teamIds: [],
});
const deps = { loadEnrichments: loadEnrichmentTargets, now: () => new Date() };

function document(name: string, column: string) {
  return sampleDocument({
    name,
    conditions: undefined,
    targetColumns: [
      { name: 'fine_column', mode: 'merge' },
      { name: column, mode: 'overwrite' },
    ],
    entries: [entry('123456789012', { fine_column: 'a', [column]: 'b' })],
  });
}

async function putError(p: Principal, name: string, column: string): Promise<unknown> {
  return putEnrichment(p, name, document(name, column), undefined).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('enrichment target columns share the dimension namespace', () => {
  it('PUT refuses a column named like a published label or a live virtual dimension (any case), writing nothing', async () => {
    const p = admin();
    const published = await publishDimensions(
      p,
      {
        scope: 'labels',
        labels: [{ name: 'Team', columnsMerged: [{ name: 'service', type: 'dimension' }], maps: [] }],
      },
      deps,
    );
    expect(published).toMatchObject({ ok: true, publishedLabels: true });
    const vdim = await createVdim(p, { name: 'tier', description: '', rules: [], defaultValue: 'gold' });
    expect(await publishDimensions(p, { scope: 'vdims', labels: [] }, deps)).toMatchObject({
      ok: true,
      publishedVdimIds: [vdim.id],
    });

    const label = await putError(p, 'with-label', 'team');
    expect(label).toBeInstanceOf(BadRequestError);
    expect((label as Error).message).toBe(
      'Invalid body: targetColumns.1.name: "team" is already the published label "Team"; choose a new column name',
    );
    const vdimClash = await putError(p, 'with-vdim', 'TIER');
    expect((vdimClash as Error).message).toBe(
      'Invalid body: targetColumns.1.name: "TIER" is already the virtual dimension "tier"; choose a new column name',
    );
    expect(await getEnrichment(p.orgId, 'with-label')).toBeUndefined();
    expect(await getEnrichment(p.orgId, 'with-vdim')).toBeUndefined();

    // Built-in dimensions are refused before any read.
    expect(((await putError(p, 'with-builtin', 'region')) as Error).message).toBe(
      'Invalid body: targetColumns.1.name: "region" is the built-in dimension region; choose a new column name',
    );
    // Another organisation's label is no obstacle.
    const other = await putEnrichment(admin(), 'with-label', document('with-label', 'team'), undefined);
    expect(other.created).toBe(true);
  });

  it('publish refuses a label named like an enrichment column (clash), and publishes the others', async () => {
    const p = admin();
    await putEnrichment(p, 'owners', document('owners', 'cost_owner'), undefined);
    const result = await publishDimensions(
      p,
      {
        scope: 'labels',
        labels: [
          { name: 'Cost_Owner', columnsMerged: [{ name: 'service', type: 'dimension' }], maps: [] },
          { name: 'area', columnsMerged: [{ name: 'region', type: 'dimension' }], maps: [] },
        ],
      },
      deps,
    );
    expect(result).toMatchObject({ ok: false, publishedLabels: true });
    expect(result.unpublished).toEqual([
      {
        kind: 'label',
        name: 'Cost_Owner',
        errors: [{ kind: 'clash', message: '"Cost_Owner" is a column of an enrichment' }],
      },
    ]);
    expect((await listPublishedLabels(p.orgId)).map((l) => l.name)).toEqual(['area']);
  });
});
