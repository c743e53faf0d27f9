import { handler } from '../../../functions/workers/warehouse-refresh';
import type { Principal } from '../../../shared/auth/principal';
import { getRefreshStatus, readCache } from '../../../shared/db/dimensions-repo';
import { runRefresh } from '../../../shared/domain/billing/refresh';
import type { RefreshRequest } from '../../../shared/domain/billing/refresh-request';
import { listCandidates, listDimensions } from '../../../shared/domain/dimensions/service';
import type { DimensionEntry } from '../../../shared/model/dimensions';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import type { WarehousePort } from '../../../shared/warehouse/port';
import { sqsEventOf } from '../../support/sqs';
import { BUILT_IN_DIMENSIONS, close, FOCUS_SAMPLE, num, readCsv, sumBy, tagsOf } from './support';

const warehouse = new DuckDbWarehouse();
const sample = readCsv(FOCUS_SAMPLE);
const run = Date.now().toString(36);
const deps = { warehouse, loadEnrichments: async () => [], now: () => new Date() };

function request(orgId: string, over: Partial<RefreshRequest> = {}): RefreshRequest {
  return {
    type: 'warehouse-refresh',
    requestId: `rfr_${Math.random().toString(36).slice(2)}`,
    orgId,
    mode: 'full',
    reason: 'test',
    requestedAt: new Date().toISOString(),
    ...over,
  };
}

const principal = (orgId: string): Principal => ({
  orgId,
  principalId: 'user_t',
  kind: 'user',
  role: 'admin',
  teamIds: [],
});

const month = (r: Record<string, string | null>) =>
  (r.BillingPeriodStart ?? r.ChargePeriodStart ?? '').slice(0, 7);

describe('warehouse refresh: candidates and dimension caches from focus_sample.csv', () => {
  const org = `org_rf_${run}`;

  beforeAll(async () => {
    await warehouse.ingestFile({ orgId: org, path: FOCUS_SAMPLE, sourceName: 'focus_sample.csv' });
    expect(await runRefresh(request(org), deps)).toBe('refreshed');
  });

  it('computes every candidate figure as a plain sum over the CSV does', async () => {
    const { candidates } = await listCandidates(principal(org));
    const total = sample.reduce((s, r) => s + num(r.BilledCost), 0);
    const months = [...new Set(sample.map(month))].sort();
    expect(months).toEqual(['2024-09', '2024-10']);
    const keys = [...new Set(sample.flatMap((r) => Object.keys(tagsOf(r))))].sort();
    expect(candidates.map((c) => c.key).sort()).toEqual(keys);
    for (const key of keys) {
      const c = candidates.find((x) => x.key === key)!;
      const withKey = sample.filter((r) => tagsOf(r)[key] !== undefined);
      const present = withKey.reduce((s, r) => s + num(r.BilledCost), 0);
      expect(close(c.total_cost_key_present, present)).toBe(true);
      expect(close(c.total_cost_key_absent, total - present)).toBe(true);
      expect(close(c.proportion_key_present, present / total)).toBe(true);
      expect(close(c.proportion_key_absent, (total - present) / total)).toBe(true);
      expect(c.number_values).toBe(new Set(withKey.map((r) => tagsOf(r)[key])).size);
      expect(c.providers).toEqual([...new Set(withKey.map((r) => r.ProviderName as string))].sort());
      const perMonth = sumBy(withKey, month, (r) => num(r.BilledCost));
      expect(c.months.map((m) => m.month)).toEqual(months);
      for (const m of c.months) expect(close(m.cost, perMonth.get(m.month) ?? 0)).toBe(true);
      const [sep, oct] = [perMonth.get('2024-09') ?? 0, perMonth.get('2024-10') ?? 0];
      expect(close(c.cost_percentage_change, sep !== 0 ? ((oct - sep) / Math.abs(sep)) * 100 : 0)).toBe(true);
      const byValue = sumBy(
        withKey,
        (r) => tagsOf(r)[key],
        (r) => num(r.BilledCost),
      );
      expect(c.values.length).toBe(Math.min(50, byValue.size));
      for (const v of c.values) {
        expect(close(v.cost_allocated, byValue.get(v.value) ?? Number.NaN)).toBe(true);
        expect(close(v.proportion_cost_allocated, (byValue.get(v.value) ?? 0) / total)).toBe(true);
      }
      expect(c.usage_start_day).toBe('2024-09-01T00:00:00.000Z');
      expect(c.id).toBe(key);
      expect(c.ingested).toBe(false);
    }
  });

  it('caches built-in dimensions with value proportions a plain sum gives', async () => {
    const { dimensions, status } = await listDimensions(principal(org));
    expect(status).toMatchObject({
      state: 'succeeded',
      lastSucceededMode: 'full',
      months: ['2024-09', '2024-10'],
    });
    const total = sample.reduce((s, r) => s + num(r.BilledCost), 0);
    const byService = sumBy(
      sample,
      (r) => r.ServiceName,
      (r) => num(r.BilledCost),
    );
    const service = dimensions.find((d) => d.name === 'service') as DimensionEntry;
    expect(service).toMatchObject({
      label: 'Service',
      groupTitle: 'Service',
      valueEditorType: 'multiselect',
    });
    expect(service.values.map((v) => v.name).sort()).toEqual([...byService.keys()].sort());
    for (const v of service.values)
      expect(close(v.proportionCostAllocated, (byService.get(v.name) ?? 0) / total)).toBe(true);
    expect(service.operators).toContainEqual({ name: 'in', value: 'in', label: 'is any of' });
    expect(dimensions.map((d) => d.name)).toEqual(expect.arrayContaining(BUILT_IN_DIMENSIONS));
    expect(dimensions.find((d) => d.name === 'resource_id')?.values).toEqual([]);
  });

  it('is idempotent: a redelivered request is skipped and the caches stay as they were', async () => {
    const req = request(org);
    expect(await runRefresh(req, deps)).toBe('refreshed');
    const before = await readCache(org, 'dimensions');
    const status = await getRefreshStatus(org);
    expect(await runRefresh(req, deps)).toBe('duplicate');
    expect(await readCache(org, 'dimensions')).toEqual(before);
    expect(await getRefreshStatus(org)).toEqual(status);
    // A light request made before the last full refresh started is covered by it.
    const old = request(org, {
      mode: 'light',
      requestedAt: new Date(Date.parse(status!.lastSucceededStartedAt!) - 1000).toISOString(),
    });
    expect(await runRefresh(old, deps)).toBe('superseded');
    expect(await getRefreshStatus(org)).toEqual(status);
  });

  it('worker: processes each message on its own and reports only the failing ones', async () => {
    const good = request(org, { mode: 'light' });
    const res = await handler(sqsEventOf([JSON.stringify(good), '{"type":"nope"}', JSON.stringify(good)]));
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(await getRefreshStatus(org)).toMatchObject({
      requestId: good.requestId,
      state: 'succeeded',
      lastSucceededMode: 'light',
    });
  });

  it('records a failure (keeping the last success) and rethrows for SQS to retry', async () => {
    const before = await getRefreshStatus(org);
    const broken = Object.assign(Object.create(warehouse) as WarehousePort, {
      candidateAggregates: async () => {
        throw new Error('disk full');
      },
    });
    const req = request(org);
    await expect(runRefresh(req, { ...deps, warehouse: broken })).rejects.toThrow('disk full');
    expect(await getRefreshStatus(org)).toMatchObject({
      state: 'failed',
      requestId: req.requestId,
      lastError: 'disk full',
      lastSucceededAt: before?.lastSucceededAt,
    });
    expect(await runRefresh(req, deps)).toBe('refreshed');
  });

  it("keeps each organisation's caches apart", async () => {
    const other = `org_rf2_${run}`;
    expect(await runRefresh(request(other), deps)).toBe('refreshed');
    expect((await listCandidates(principal(other))).candidates).toEqual([]);
    const dims = (await listDimensions(principal(other))).dimensions;
    expect(dims.every((d) => d.values.length === 0)).toBe(true);
    expect((await listCandidates(principal(org))).candidates.length).toBeGreaterThan(10);
  });
});
