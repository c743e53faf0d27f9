import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Principal } from '../../../shared/auth/principal';
import { resetConfig } from '../../../shared/config';
import {
  insertVirtualDimension,
  listPublishedLabels,
  listVirtualDimensions,
} from '../../../shared/db/dimensions-repo';
import { dueOutboxEntries } from '../../../shared/db/outbox-repo';
import { sweepOutbox } from '../../../shared/domain/billing/outbox';
import { runRefresh } from '../../../shared/domain/billing/refresh';
import { parseRefreshRequest, type RefreshRequest } from '../../../shared/domain/billing/refresh-request';
import { publishDimensions } from '../../../shared/domain/dimensions/publish';
import { listCandidates, listDimensions } from '../../../shared/domain/dimensions/service';
import { createVdim, deleteVdim, updateVdim } from '../../../shared/domain/dimensions/vdims';
import { ShapedError } from '../../../shared/errors';
import type { VirtualDimension } from '../../../shared/model/dimensions';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { suiteQueue } from '../../support/sqs';
import { close, expectSameSums, FOCUS_SAMPLE, num, readCsv, sumBy, tagsOf, totals2024By } from './support';

const warehouse = new DuckDbWarehouse();
const sample = readCsv(FOCUS_SAMPLE);
const run = Date.now().toString(36);
const org = `org_pub_${run}`;
const totalsBy = (groupBy: string) => totals2024By(warehouse, org, groupBy);
const admin: Principal = { orgId: org, principalId: 'user_admin', kind: 'user', role: 'admin', teamIds: [] };
const deps = { loadEnrichments: async () => [], now: () => new Date() };
/** Publishes only the labels: one named `name` over the tag key `key`. */
const publishLabel = (name: string, key: string) =>
  publishDimensions(
    admin,
    { scope: 'labels', labels: [{ name, columnsMerged: [{ name: key, type: 'label' }], maps: [] }] },
    deps,
  );
const refreshDeps = { warehouse, loadEnrichments: async () => [], now: () => new Date() };
const sqs = new SQSClient({
  endpoint: process.env.SQS_ENDPOINT,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const queueUrl = suiteQueue(sqs, `wh-test-publish-${run}`, 'QUEUE_URL_WAREHOUSE_REFRESH');

async function received(): Promise<RefreshRequest[]> {
  const res = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl(), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
  );
  return (res.Messages ?? []).map((m) => parseRefreshRequest(m.Body ?? ''));
}

/**
 * Saves a draft straight through the repository, bypassing the create-time checks: a draft that
 * became invalid after it was written (a label or enrichment column took its name, say).
 */
async function insertStaleDraft(id: string, def: Pick<VirtualDimension, 'name' | 'rules' | 'defaultValue'>) {
  const at = new Date().toISOString();
  const vdim: VirtualDimension = {
    id,
    organizationId: org,
    description: '',
    ...def,
    published: null,
    pending: true,
    pendingDelete: false,
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: 'user_admin',
    updatedBy: 'user_admin',
  };
  await insertVirtualDimension(vdim);
  return vdim;
}

/** Runs the refresh a publish asked for, as the worker would. */
async function refreshFromQueue(): Promise<RefreshRequest> {
  const [req] = await received();
  if (!req) throw new Error('no refresh request was sent');
  expect(await runRefresh(req, refreshDeps)).toBe('refreshed');
  return req;
}

beforeAll(async () => {
  await warehouse.ingestFile({ orgId: org, path: FOCUS_SAMPLE, sourceName: 'focus_sample.csv' });
  await runRefresh(
    {
      type: 'warehouse-refresh',
      requestId: `r-${run}`,
      orgId: org,
      mode: 'full',
      reason: 'test',
      requestedAt: new Date().toISOString(),
    },
    refreshDeps,
  );
});

describe('POST /dimensions/publish (domain, against DynamoDB Local, SQS and DuckDB)', () => {
  it('publishes the valid labels, reports each invalid one, and asks for a full refresh', async () => {
    const result = await publishDimensions(
      admin,
      {
        scope: 'labels',
        labels: [
          {
            name: 'environment_label',
            columnsMerged: [
              { name: 'env', type: 'label' },
              { name: 'environment', type: 'label' },
            ],
            maps: [{ value: 'dev', to: 'development' }],
          },
          { name: 'typo', columnsMerged: [{ name: 'enviroment', type: 'label' }], maps: [] },
          { name: 'provider', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] },
          {
            name: 'empty_target',
            columnsMerged: [{ name: 'env', type: 'label' }],
            maps: [{ value: 'dev', to: ' ' }],
          },
          { name: 'twice', columnsMerged: [{ name: 'org', type: 'label' }], maps: [] },
          { name: 'twice', columnsMerged: [{ name: 'application', type: 'label' }], maps: [] },
          { name: 'svc', columnsMerged: [{ name: 'service', type: 'dimension' }], maps: [] },
        ],
      },
      deps,
    );
    expect(result.ok).toBe(false);
    expect(result.publishedLabels).toBe(true);
    expect(result.publishedVdimIds).toEqual([]);
    const kinds = Object.fromEntries(result.unpublished.map((u) => [u.name, u.errors.map((e) => e.kind)]));
    expect(kinds).toEqual({
      typo: ['unknown_source'],
      provider: ['clash'],
      empty_target: ['empty_target'],
      twice: ['duplicate'],
    });
    expect(result.unpublished.filter((u) => u.name === 'twice')).toHaveLength(2);
    expect(result.unpublished.every((u) => u.kind === 'label')).toBe(true);
    expect(result.unpublished.find((u) => u.name === 'typo')?.errors[0]?.message).toContain('"enviroment"');
    expect((await listPublishedLabels(org)).map((l) => l.name)).toEqual(['environment_label', 'svc']);

    const req = await refreshFromQueue();
    expect(req).toMatchObject({ orgId: org, mode: 'full', reason: 'publish' });
    // The label: env, else environment, then dev → development. Summed here from the CSV.
    const expected = sumBy(
      sample,
      (r) => {
        const t = tagsOf(r);
        const merged = t.env ?? t.environment;
        return merged === undefined ? '' : merged === 'dev' ? 'development' : merged;
      },
      (r) => num(r.BilledCost),
    );
    expectSameSums(await totalsBy('environment_label'), expected, 1e-6);
    const { dimensions } = await listDimensions(admin);
    const label = dimensions.find((d) => d.name === 'environment_label');
    expect(label).toMatchObject({ groupTitle: 'Labels' });
    const total = sample.reduce((s, r) => s + num(r.BilledCost), 0);
    for (const v of label?.values ?? [])
      expect(close(v.proportionCostAllocated, (expected.get(v.name) ?? 0) / total)).toBe(true);
    const { candidates } = await listCandidates(admin);
    expect(
      candidates
        .filter((c) => c.ingested)
        .map((c) => c.key)
        .sort(),
    ).toEqual(['env', 'environment']);
  });

  it('promotes valid virtual-dimension drafts (light refresh) and keeps invalid ones pending', async () => {
    const good = await createVdim(admin, {
      name: 'stage',
      description: 'Production or not',
      rules: [
        {
          value: 'non-production',
          whereClause: {
            combinator: 'or',
            rules: [{ field: 'environment_label', operator: 'in', value: ['development', 'test'] }],
          },
        },
      ],
      defaultValue: 'production',
    });
    const bad = await insertStaleDraft(`vdim_broken_${run}`, {
      name: 'broken',
      rules: [
        {
          value: '',
          whereClause: {
            combinator: 'and',
            rules: [{ field: 'no_such_dimension', operator: 'in', value: ['x'] }],
          },
        },
      ],
      defaultValue: null,
    });
    const result = await publishDimensions(admin, { scope: 'vdims', labels: [] }, deps);
    expect(result).toEqual({
      ok: false,
      publishedLabels: false,
      publishedVdimIds: [good.id],
      unpublished: [
        {
          kind: 'vdim',
          name: 'broken',
          id: bad.id,
          errors: [
            { kind: 'empty_target', message: 'rule 0 maps to an empty value' },
            { kind: 'invalid_rule', message: 'rule 0: Unknown dimension "no_such_dimension"' },
          ],
        },
      ],
    });
    const vdims = await listVirtualDimensions(org);
    expect(vdims.find((v) => v.id === good.id)).toMatchObject({
      pending: false,
      published: { name: 'stage' },
      version: 2,
    });
    expect(vdims.find((v) => v.id === bad.id)).toMatchObject({ pending: true, published: null });

    expect(await refreshFromQueue()).toMatchObject({ mode: 'light' });
    const expected = sumBy(
      sample,
      (r) => {
        const t = tagsOf(r);
        const env = t.env ?? t.environment;
        const label = env === 'dev' ? 'development' : env;
        return label === 'development' || label === 'test' ? 'non-production' : 'production';
      },
      (r) => num(r.BilledCost),
    );
    expectSameSums(await totalsBy('stage'), expected, 1e-6);

    // An edit is a new pending draft; the live definition stays until the next publish.
    await updateVdim(admin, good.id, { name: 'stage', description: '', rules: [], defaultValue: 'all' });
    expectSameSums(await totalsBy('stage'), expected, 1e-6);
    await deleteVdim(admin, bad.id);
    await deleteVdim(admin, good.id);
    expect((await listVirtualDimensions(org)).map((v) => [v.id, v.pendingDelete])).toEqual([[good.id, true]]);
    const removal = await publishDimensions(admin, { scope: 'all', labels: [] }, deps);
    expect(removal).toEqual({
      ok: true,
      publishedLabels: false,
      publishedVdimIds: [good.id],
      unpublished: [],
    });
    await refreshFromQueue();
    expect(await listVirtualDimensions(org)).toEqual([]);
    await expect(totalsBy('stage')).rejects.toThrow('Unknown dimension "stage"');
  });

  it('narrows to the scope: labels never look at drafts, vdims never touch labels', async () => {
    const bad = await insertStaleDraft(`vdim_bad_${run}`, {
      name: 'bad name!',
      rules: [],
      defaultValue: 'x',
    });
    const labelsOnly = await publishLabel('scoped', 'env');
    expect(labelsOnly).toEqual({ ok: true, publishedLabels: true, publishedVdimIds: [], unpublished: [] });
    expect(await refreshFromQueue()).toMatchObject({ mode: 'full' });
    const labelsBefore = await listPublishedLabels(org);
    const vdimsOnly = await publishDimensions(admin, { scope: 'vdims', labels: [] }, deps);
    expect(vdimsOnly).toEqual({
      ok: false,
      publishedLabels: false,
      publishedVdimIds: [],
      unpublished: [
        { kind: 'vdim', name: 'bad name!', id: bad.id, errors: [expect.objectContaining({ kind: 'name' })] },
      ],
    });
    expect(await listPublishedLabels(org)).toEqual(labelsBefore);
    expect(await received()).toEqual([]);
    await deleteVdim(admin, bad.id);
  });

  it('rejects a request as a whole with 400 {ok:false, errors} and promotes nothing', async () => {
    const before = await listPublishedLabels(org);
    const error = await publishDimensions(
      admin,
      { scope: 'vdims', labels: [{ name: 'x', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] }] },
      deps,
    ).catch((e) => e);
    expect(error).toBeInstanceOf(ShapedError);
    expect(error.status).toBe(400);
    expect(error.body()).toEqual({
      ok: false,
      errors: [
        { kind: 'request', message: 'labels cannot be published with scope "vdims"; use "all" or "labels"' },
      ],
    });
    expect(await listPublishedLabels(org)).toEqual(before);
    expect(await received()).toEqual([]);
  });

  it('keeps the refresh request in the outbox when SQS is down after the commit', async () => {
    process.env.QUEUE_URL_WAREHOUSE_REFRESH = `${queueUrl()}-gone`;
    resetConfig();
    const result = await publishLabel('app', 'application');
    expect(result).toEqual({ ok: true, publishedLabels: true, publishedVdimIds: [], unpublished: [] });
    expect((await listPublishedLabels(org)).map((l) => l.name)).toContain('app');
    const pending = (await dueOutboxEntries(new Date(Date.now() + 60_000).toISOString())).filter(
      (e) => e.orgId === org,
    );
    expect(pending).toHaveLength(1);
    process.env.QUEUE_URL_WAREHOUSE_REFRESH = queueUrl();
    resetConfig();
    expect(
      (await sweepOutbox(new Date(Date.now() + 60_000), 30, (e) => e.orgId === org)).sent,
    ).toBeGreaterThanOrEqual(1);
    const [req] = await received();
    expect(req).toMatchObject({ requestId: pending[0]?.id, mode: 'full', orgId: org });
  });
});
