import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../../shared/db/client';
import {
  encodeSnapshot,
  getScopes,
  getVersionHead,
  insertDashboard,
  listDashboards,
  readVersion,
  type VersionHead,
} from '../../../shared/db/dashboards-repo';
import { queryPartition } from '../../../shared/db/items';
import { keys } from '../../../shared/db/keys';
import {
  createDashboard,
  listDashboardVersions,
  listVisibleDashboards,
  patchDashboard,
  publishDashboard,
  readDashboard,
  readDashboardVersion,
} from '../../../shared/domain/dashboards/service';
import { BadRequestError, ConflictError, ForbiddenError } from '../../../shared/errors';
import { DASHBOARD_LIMITS } from '../../../shared/model/dashboard-schemas';
import type { DashboardSummary } from '../../../shared/model/dashboards';
import { DASHBOARD_DEFAULTS } from '../../fixtures/dashboards/defaults';
import { realisticDashboard, simpleWidget } from '../../fixtures/dashboards/realistic';
import { adminOf, memberOf } from '../../support/principals';

const newOrg = () => `org_it_${randomUUID().slice(0, 8)}`;

async function putScope(orgId: string, scopeId: string, extra: Record<string, unknown>) {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.scope(orgId, scopeId), entity: 'scope', id: scopeId, organizationId: orgId, ...extra },
    }),
  );
}

const partitionSortKeys = (orgId: string, dashboardId: string): Promise<string[]> =>
  queryPartition(keys.dashboard(orgId, dashboardId).pk, (i) => String(i.sk), { attributes: ['sk'] });

describe('dashboards repo (DynamoDB Local)', () => {
  it('writes the metadata, head and every part in one transaction and reads the parts back in order', async () => {
    const orgId = newOrg();
    const { expected } = realisticDashboard(60, 5);
    const json = JSON.stringify(expected);
    const encoded = encodeSnapshot(json, 2000);
    expect(encoded.parts.length).toBeGreaterThan(3);
    const at = new Date().toISOString();
    const summary: DashboardSummary = {
      id: 'dash_parts',
      organizationId: orgId,
      name: 'parts',
      ...DASHBOARD_DEFAULTS,
      type: 'PUBLIC',
      conditions: { '': 'empty keys are fine', deep: { a: [1, { b: null }] } },
      widgetCount: 60,
      version: 1,
      publishedVersion: 1,
      publishedAt: at,
      createdById: 'user_admin',
      createdAt: at,
      updatedAt: at,
      archivedAt: null,
    };
    const head: VersionHead = {
      dashboardId: summary.id,
      version: 1,
      name: 'parts',
      createdAt: at,
      createdById: 'user_admin',
      widgetCount: 60,
      jsonBytes: encoded.jsonBytes,
      storedBytes: encoded.storedBytes,
      partCount: encoded.parts.length,
      encoding: 'gzip-json',
    };
    const report = await insertDashboard(summary, head, encoded);
    expect(report.consumedWriteUnits).toBeGreaterThan(0);

    expect(await getVersionHead(orgId, summary.id, 1)).toEqual(head);
    expect(await readVersion(orgId, summary.id, 1)).toEqual({ head, snapshot: expected });
    expect(await readVersion(orgId, summary.id, 2)).toBeUndefined();
    const page = await listDashboards(orgId, { includeArchived: false }, 10);
    expect(page.items).toEqual([summary]);

    // The same id again is refused whole: nothing is half-written.
    await expect(insertDashboard({ ...summary, name: 'again' }, head, encoded)).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await listDashboards(orgId, { includeArchived: false }, 10)).items[0]!.name).toBe('parts');
  });

  it('reads scopes in batches: lists of teams, a single team, archived ones missing', async () => {
    const orgId = newOrg();
    await putScope(orgId, 'open', { teamIds: [] });
    await putScope(orgId, 'listed', { teamIds: ['team_a', 'team_b'] });
    await putScope(orgId, 'single', { teamId: 'team_c' });
    await putScope(orgId, 'gone', { teamIds: [], archivedAt: '2025-01-01T00:00:00Z' });
    const ids = [
      'open',
      'listed',
      'single',
      'gone',
      'never',
      ...Array.from({ length: 120 }, (_, i) => `x${i}`),
    ];
    const found = await getScopes(orgId, ids);
    expect(Object.fromEntries(found)).toEqual({
      open: { teamIds: [] },
      listed: { teamIds: ['team_a', 'team_b'] },
      single: { teamIds: ['team_c'] },
    });
  });

  it('fills a page despite the filters by reading on, and the cursor resumes after the last item returned', async () => {
    const orgId = newOrg();
    const owner = memberOf(orgId, [], 'user_owner');
    const viewer = memberOf(orgId, [], 'user_viewer');
    const publicIds: string[] = [];
    for (let i = 0; i < 4; i++)
      publicIds.push((await createDashboard(owner, { name: `pub ${i}`, type: 'PUBLIC' })).id);
    for (let i = 0; i < 40; i++) await createDashboard(owner, { name: `private ${i}` });

    const first = await listDashboards(orgId, { viewerId: viewer.principalId, includeArchived: false }, 3);
    expect(first.items.map((d) => d.id)).toEqual([...publicIds].reverse().slice(0, 3));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listDashboards(
      orgId,
      { viewerId: viewer.principalId, includeArchived: false },
      3,
      first.nextCursor!,
    );
    expect(second.items.map((d) => d.id)).toEqual([publicIds[0]]);
    expect(second.nextCursor).toBeNull();
    await expect(
      listDashboards(newOrg(), { includeArchived: false }, 3, first.nextCursor!),
    ).rejects.toBeInstanceOf(BadRequestError);
  });
});

describe('dashboards service (DynamoDB Local)', () => {
  it('filters the list by name, ignoring case, across pages: every match once, newest first', async () => {
    const orgId = newOrg();
    const owner = memberOf(orgId, [], 'user_owner');
    const viewer = memberOf(orgId, [], 'user_viewer');
    const names = [
      'AWS Costs',
      'costs by team',
      'Spend',
      'COST centre review',
      'Storage',
      'Unit cost per tenant',
      'co st',
    ];
    // 56 dashboards, oldest first: more than one DynamoDB read (25 items) and than one page (4).
    const made: { id: string; name: string; type: string }[] = [];
    for (let i = 0; i < 56; i++) {
      const name = `${names[i % names.length]} ${i}`;
      const type = i % 5 === 0 ? 'PRIVATE' : 'PUBLIC';
      const d = await createDashboard(owner, { name, type: type as 'PUBLIC' });
      made.push({ id: d.id, name, type });
    }
    // Computed here: names containing "cost" in any case, that the viewer may see, newest first.
    const expected = made
      .filter((d) => d.name.toLowerCase().includes('cost') && d.type !== 'PRIVATE')
      .map((d) => d.id)
      .reverse();
    expect(expected.length).toBeGreaterThan(8);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listVisibleDashboards(viewer, {
        limit: 4,
        includeArchived: false,
        name: 'cOsT',
        ...(cursor ? { cursor } : {}),
      });
      for (const d of page.items) expect(d.name.toLowerCase()).toContain('cost');
      seen.push(...page.items.map((d) => d.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 50);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual(expected);

    // The owner sees their private matches too; a name that matches nothing is an empty last page.
    const all = await listVisibleDashboards(owner, { limit: 100, includeArchived: false, name: 'COST' });
    expect(all.items.map((d) => d.id)).toEqual(
      made
        .filter((d) => d.name.toLowerCase().includes('cost'))
        .map((d) => d.id)
        .reverse(),
    );
    expect(all.nextCursor).toBeNull();
    expect(
      await listVisibleDashboards(owner, { limit: 10, includeArchived: false, name: 'nothing like it' }),
    ).toEqual({ items: [], nextCursor: null });
  });

  it(`keeps at most ${DASHBOARD_LIMITS.maxVersions} versions, deleting the oldest head and parts in the publish`, async () => {
    const p = adminOf(newOrg());
    const d = await createDashboard(p, { name: 'history', widgets: [simpleWidget('w1')] });
    let version = d.version;
    for (let n = 2; n <= DASHBOARD_LIMITS.maxVersions + 2; n++) {
      const { dashboard, write } = await publishDashboard(p, d.id, {
        name: 'history',
        widgets: [simpleWidget(`w${n}`)],
        version,
      });
      expect(write.consumedWriteUnits).toBeGreaterThan(0);
      version = dashboard.version;
    }
    const last = DASHBOARD_LIMITS.maxVersions + 2;
    const sks = await partitionSortKeys(p.orgId, d.id);
    expect(sks.filter((sk) => sk.startsWith('VH#'))).toHaveLength(DASHBOARD_LIMITS.maxVersions);
    expect(sks.filter((sk) => sk.startsWith('V#'))).toHaveLength(DASHBOARD_LIMITS.maxVersions);
    expect(sks.some((sk) => sk.startsWith('VH#000001') || sk.startsWith('V#000001#'))).toBe(false);
    expect(sks.some((sk) => sk.startsWith('VH#000002') || sk.startsWith('V#000002#'))).toBe(false);

    const page = await listDashboardVersions(p, d.id, { limit: 100 });
    expect(page.items.map((v) => v.version)).toEqual(
      Array.from({ length: DASHBOARD_LIMITS.maxVersions }, (_, i) => last - i),
    );
    await expect(readDashboardVersion(p, d.id, 2)).rejects.toMatchObject({ status: 404 });
    const oldestKept = await readDashboardVersion(p, d.id, 3);
    expect(oldestKept.widgets.map((w) => w.key)).toEqual(['w3']);
    const current = await readDashboard(p, d.id);
    expect(current).toMatchObject({ publishedVersion: last, version: last });
    expect(current.widgets.map((w) => w.key)).toEqual([`w${last}`]);
  });

  it('checks scopes against membership: open and own-team scopes for members, any existing one for admins', async () => {
    const orgId = newOrg();
    await putScope(orgId, 'open', { teamIds: [] });
    await putScope(orgId, 'finance', { teamIds: ['team_fin'] });
    const outsider = memberOf(orgId, ['team_eng']);
    const insider = memberOf(orgId, ['team_fin'], 'user_fin');
    const admin = adminOf(orgId);

    await expect(createDashboard(outsider, { name: 'a', scopeId: 'open' })).resolves.toMatchObject({
      scopeId: 'open',
    });
    await expect(
      createDashboard(outsider, { name: 'b', widgets: [simpleWidget('w', { scopeId: 'finance' })] }),
    ).rejects.toEqual(new ForbiddenError('SCOPE_ACCESS_REQUIRED'));
    await expect(createDashboard(outsider, { name: 'c', scopeId: 'missing' })).rejects.toEqual(
      new ForbiddenError('SCOPE_ACCESS_REQUIRED'),
    );
    const mine = await createDashboard(insider, { name: 'd', scopeId: 'finance' });
    expect(mine.scopeId).toBe('finance');
    await expect(createDashboard(admin, { name: 'e', scopeId: 'finance' })).resolves.toMatchObject({
      scopeId: 'finance',
    });
    await expect(createDashboard(admin, { name: 'f', scopeId: 'missing' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('scopeId: unknown scope missing'),
    });

    // PATCH checks a scope only when it changes.
    const open = await createDashboard(outsider, { name: 'g', scopeId: 'open' });
    await expect(patchDashboard(outsider, open.id, { scopeId: 'finance' })).rejects.toEqual(
      new ForbiddenError('SCOPE_ACCESS_REQUIRED'),
    );
    await expect(patchDashboard(outsider, open.id, { scopeId: 'open', name: 'g2' })).resolves.toMatchObject({
      name: 'g2',
      version: 2,
    });
  });

  it('refuses a team being deleted, and PATCH dates out of order with the stored ones', async () => {
    const orgId = newOrg();
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.team(orgId, 'team_old'),
          id: 'team_old',
          organizationId: orgId,
          name: 'Old',
          createdAt: '2025-01-01T00:00:00Z',
          deletingAt: '2025-02-01T00:00:00Z',
        },
      }),
    );
    const admin = adminOf(orgId);
    await expect(createDashboard(admin, { name: 'x', teamId: 'team_old' })).rejects.toMatchObject({
      status: 400,
    });
    const d = await createDashboard(admin, { name: 'dates', startDate: '2025-03-01' });
    await expect(patchDashboard(admin, d.id, { endDate: '2025-02-01' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('endDate'),
    });
    await expect(patchDashboard(admin, d.id, {})).rejects.toBeInstanceOf(BadRequestError);
  });
});
