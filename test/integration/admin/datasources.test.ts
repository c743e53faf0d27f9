import { getDatasource } from '../../../shared/db/datasources-repo';
import { queryMetricPoints } from '../../../shared/domain/datasources/points';
import { archiveDatasource, createDatasource, pushPoints } from '../../../shared/domain/datasources/service';
import { ConflictError, NotFoundError } from '../../../shared/errors';
import { adminOf } from '../../support/principals';

const run = Math.random().toString(36).slice(2, 8);
const admin = (orgId: string) => adminOf(orgId);
const org = `org_ds${run}`;

describe('metrics datasources against DynamoDB Local', () => {
  it('stores points keyed by timestamp: a re-push overwrites instead of duplicating', async () => {
    const ds = await createDatasource(admin(org), { name: 'traffic', description: '', unit: 'requests' });
    await pushPoints(admin(org), ds.id, {
      points: [
        { timestamp: '2026-01-01T00:00:00Z', value: 1 },
        { timestamp: '2026-01-01T12:00:00Z', value: 2 },
        { timestamp: '2026-01-02T00:00:00Z', value: 3, metric: 'errors' },
      ],
    });
    const again = await pushPoints(admin(org), ds.id, {
      points: [
        { timestamp: '2026-01-01T13:00:00+01:00', value: 20 },
        { timestamp: '2026-01-01T12:00:00.000Z', value: 21 },
      ],
    });
    expect(again).toMatchObject({ accepted: 1, duplicates: 1 });

    const raw = await queryMetricPoints(org, ds.id, 'value', '2026-01-01', '2026-01-03');
    expect(raw.points).toEqual([
      { metric: 'value', timestamp: '2026-01-01T00:00:00.000Z', value: 1 },
      { metric: 'value', timestamp: '2026-01-01T12:00:00.000Z', value: 21 },
    ]);
    const daily = await queryMetricPoints(org, ds.id, undefined, '2026-01-01', '2026-01-03', {
      granularity: 'day',
    });
    expect(daily.points).toEqual([
      { metric: 'value', timestamp: '2026-01-01T00:00:00.000Z', value: 22 },
      { metric: 'errors', timestamp: '2026-01-02T00:00:00.000Z', value: 3 },
    ]);
    // `to` is exclusive
    expect(
      (await queryMetricPoints(org, ds.id, 'value', '2026-01-01', '2026-01-01T12:00:00Z')).points,
    ).toHaveLength(1);
    const stored = await getDatasource(org, ds.id);
    expect(stored?.metricNames).toEqual(['errors', 'value']);
    expect(stored?.lastPushAt).toEqual(expect.any(String));
  });

  it('writes a full batch of 1,000 points in 100-point transactions', async () => {
    const ds = await createDatasource(admin(org), { name: 'big', description: '', unit: null });
    const start = Date.parse('2026-02-01T00:00:00Z');
    const points = Array.from({ length: 1000 }, (_, i) => ({
      timestamp: new Date(start + i * 60_000).toISOString(),
      value: i,
    }));
    await pushPoints(admin(org), ds.id, { points });
    const res = await queryMetricPoints(org, ds.id, 'value', '2026-02-01', '2026-02-02');
    expect(res.points).toHaveLength(1000);
    expect(res.points.at(-1)?.value).toBe(999);
  }, 120_000);

  it('an archived datasource refuses points and disappears from metric queries; archiving is idempotent', async () => {
    const ds = await createDatasource(admin(org), { name: 'gone', description: '', unit: null });
    await pushPoints(admin(org), ds.id, { points: [{ timestamp: '2026-01-05T00:00:00Z', value: 7 }] });
    expect((await queryMetricPoints(org, ds.id, undefined, '2026-01-01', '2026-02-01')).points).toHaveLength(
      1,
    );

    const archived = await archiveDatasource(admin(org), ds.id);
    expect(archived.archivedAt).toEqual(expect.any(String));
    const twice = await archiveDatasource(admin(org), ds.id);
    expect(twice.archivedAt).toBe(archived.archivedAt);

    await expect(
      pushPoints(admin(org), ds.id, { points: [{ timestamp: '2026-01-06T00:00:00Z', value: 1 }] }),
    ).rejects.toEqual(new ConflictError('DATASOURCE_ARCHIVED'));
    expect((await queryMetricPoints(org, ds.id, undefined, '2026-01-01', '2026-02-01')).points).toEqual([]);
  });

  it("another organisation's datasource is not found and shows no points", async () => {
    const ds = await createDatasource(admin(org), { name: 'mine', description: '', unit: null });
    await pushPoints(admin(org), ds.id, { points: [{ timestamp: '2026-01-05T00:00:00Z', value: 7 }] });
    const other = `org_other${run}`;
    await expect(archiveDatasource(admin(other), ds.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      pushPoints(admin(other), ds.id, { points: [{ timestamp: '2026-01-06T00:00:00Z', value: 1 }] }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await queryMetricPoints(other, ds.id, 'value', '2026-01-01', '2026-02-01')).points).toEqual([]);
  });
});
