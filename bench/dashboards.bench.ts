/**
 * The dashboards benchmark (`npx tsx bench/run.ts dashboards`):
 * - p50/p99 latency of `PUT /dashboard-v2/{id}` (publish) with 20 and with 200 realistic widgets
 *   on the local stack, a sequential loop where each publish first re-reads the dashboard for its
 *   current `version` (only the PUT is timed); the GET of the 200-widget dashboard is reported too;
 * - DynamoDB write units per publish: what DynamoDB Local reports for the publish transaction
 *   (`ReturnConsumedCapacity: 'TOTAL'`, measured by calling the service directly against the
 *   stack's table), beside the AWS figure computed from the stored items' sizes (a transactional
 *   write costs 2 WCU per started KB of each item).
 * Figures only: nothing here is asserted by a test.
 */
import { loadavg } from 'node:os';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../shared/auth/principal';
import { percentile, startStack } from './support';

const ROUNDS_SMALL = Number(process.env.BENCH_DASH_ROUNDS_SMALL ?? 100);
const ROUNDS_LARGE = Number(process.env.BENCH_DASH_ROUNDS_LARGE ?? 50);
const WARMUP = 5;
const WCU_ROUNDS = 5;

type Json = Record<string, unknown>;

async function call(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  return { status: res.status, json: text ? (JSON.parse(text) as Json) : {}, ms };
}

const round = (n: number) => Math.round(n * 100) / 100;

function summary(values: number[]) {
  return {
    n: values.length,
    p50Ms: round(percentile(values, 50)),
    p99Ms: round(percentile(values, 99)),
    meanMs: round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)),
    maxMs: round(Math.max(...values)),
  };
}

/** DynamoDB's item size rules: attribute names plus values (strings UTF-8, binary raw, numbers ~digits/2). */
function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace('.', '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueBytes(v), 0);
  if (typeof value === 'object') {
    return (
      3 + Object.entries(value as Json).reduce((n, [k, v]) => n + 1 + Buffer.byteLength(k) + valueBytes(v), 0)
    );
  }
  return 0;
}

function itemBytes(item: Json): number {
  return Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + valueBytes(v), 0);
}

async function publishCost(fixtureWidgets: number, orgId: string, metricId: string): Promise<Json> {
  // Imported after the environment points at the stack, so the service's config reads it.
  const { realisticDashboard } = await import('../test/fixtures/dashboards/realistic');
  const { createDashboard, publishDashboard } = await import('../shared/domain/dashboards/service');
  const { db, tableName } = await import('../shared/db/client');
  const { keys } = await import('../shared/db/keys');
  const principal: Principal = { orgId, principalId: 'user_bench', kind: 'user', role: 'admin', teamIds: [] };
  const fixture = realisticDashboard(fixtureWidgets, 99, `wcu ${fixtureWidgets}`, metricId);
  const created = await createDashboard(principal, fixture.body);
  let version = created.version;
  const reported: number[] = [];
  let estimate = 0;
  let items: { sk: string; bytes: number }[] = [];
  for (let i = 0; i < WCU_ROUNDS; i++) {
    const next = realisticDashboard(fixtureWidgets, 100 + i, `wcu ${fixtureWidgets}`, metricId);
    const { dashboard, write } = await publishDashboard(principal, created.id, { ...next.body, version });
    version = dashboard.version;
    reported.push(write.consumedWriteUnits);
    if (i === WCU_ROUNDS - 1) {
      const res = await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.dashboard(orgId, created.id).pk },
        }),
      );
      const written = (res.Items ?? []).filter((it) => {
        const sk = String(it.sk);
        const n = String(dashboard.publishedVersion).padStart(6, '0');
        return sk === 'META' || sk === `VH#${n}` || sk.startsWith(`V#${n}#`);
      });
      items = written.map((it) => ({ sk: String(it.sk), bytes: itemBytes(it as Json) }));
      estimate = items.reduce((n, it) => n + 2 * Math.ceil(it.bytes / 1024), 0);
    }
  }
  return {
    widgets: fixtureWidgets,
    reportedByDynamoDbLocal: { perPublish: reported, median: percentile(reported, 50) },
    awsEstimate: { transactionalWcuPerPublish: estimate, items },
  };
}

export default async function dashboardsBench(): Promise<Record<string, unknown>> {
  const loadBefore = loadavg()[0];
  const stack = await startStack();
  try {
    const { baseUrl, apiKeys } = stack.session;
    const { realisticDashboard } = await import('../test/fixtures/dashboards/realistic');
    const token = apiKeys.admin;
    // Saving checks that metric queries name a datasource of the org: the fixture's read this one.
    const ds = await call(baseUrl, token, 'POST', '/iac/metricsDatasources', { name: 'bench requests' });
    if (ds.status !== 201)
      throw new Error(`datasource create failed: ${ds.status} ${JSON.stringify(ds.json)}`);
    const metricId = String(ds.json.id);

    const publishLoop = async (widgets: number, rounds: number) => {
      const first = realisticDashboard(widgets, 1, `bench ${widgets}`, metricId);
      const created = await call(baseUrl, token, 'POST', '/dashboard-v2', first.body);
      if (created.status !== 201)
        throw new Error(`create failed: ${created.status} ${JSON.stringify(created.json)}`);
      const id = String(created.json.id);
      // A few bodies, so consecutive publishes really change the widgets.
      const bodies = [2, 3, 4, 5].map(
        (seed) => realisticDashboard(widgets, seed, `bench ${widgets}`, metricId).body,
      );
      const bodyBytes = Buffer.byteLength(JSON.stringify(bodies[0]));
      const putMs: number[] = [];
      const getMs: number[] = [];
      for (let i = 0; i < WARMUP + rounds; i++) {
        const read = await call(baseUrl, token, 'GET', `/dashboard-v2/${id}`);
        if (read.status !== 200) throw new Error(`read failed: ${read.status}`);
        const put = await call(baseUrl, token, 'PUT', `/dashboard-v2/${id}`, {
          ...bodies[i % bodies.length],
          version: read.json.version,
        });
        if (put.status !== 200) throw new Error(`publish failed: ${put.status} ${JSON.stringify(put.json)}`);
        if (i >= WARMUP) {
          putMs.push(put.ms);
          getMs.push(read.ms);
        }
      }
      return { widgets, bodyBytes, put: summary(putMs), get: summary(getMs) };
    };

    const small = await publishLoop(20, ROUNDS_SMALL);
    const large = await publishLoop(200, ROUNDS_LARGE);

    process.env.DYNAMODB_ENDPOINT = stack.session.endpoints.dynamodb;
    process.env.TABLE_NAME = stack.session.tableName;
    process.env.LOG_LEVEL = 'silent';
    const orgId = stack.session.orgId;
    const wcu20 = await publishCost(20, orgId, metricId);
    const wcu200 = await publishCost(200, orgId, metricId);

    return {
      method:
        'sequential loop on the local stack (node:http server, same handlers, DynamoDB Local); each PUT preceded by a GET for the current version; only the PUT timed',
      // The machine is shared (2 cores): its 1-minute load average says how noisy the figures are.
      loadAverage1m: { before: round(loadBefore ?? 0), after: round(loadavg()[0] ?? 0) },
      publish20Widgets: small,
      publish200Widgets: large,
      writeUnitsPerPublish: { widgets20: wcu20, widgets200: wcu200 },
    };
  } finally {
    await stack.stop();
  }
}
