/**
 * Admin figures over HTTP against the local stack (DynamoDB Local): a team SYNC that fits one
 * transaction, a chunked SYNC of 300 members (600 items, 7 transactions), its no-op repeat, a
 * 1,000-point push, reading those points raw and per day, and a request authenticated by API key.
 */
import { resetConfig } from '../shared/config';
import { resetDb } from '../shared/db/client';
import { ensureUser } from '../shared/db/users-repo';
import { percentile, startStack } from './support';

export default async function adminBench(): Promise<Record<string, unknown>> {
  const stack = await startStack();
  try {
    const { session } = stack;
    process.env.DYNAMODB_ENDPOINT = session.endpoints.dynamodb;
    process.env.TABLE_NAME = session.tableName;
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    resetConfig();
    resetDb();
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const started = performance.now();
      const res = await fetch(`${session.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return { ms: performance.now() - started, json };
    };
    const admin = session.apiKeys.admin;
    const createdAt = new Date().toISOString();
    const users = Array.from({ length: 300 }, (_, i) => `user_bench_${i}`);
    for (const id of users) {
      await ensureUser({
        id,
        organizationId: session.orgId,
        email: `${id}@bench.example`,
        name: id,
        role: 'member',
        createdAt,
      });
    }

    const small = (await call('POST', '/iac/teams', admin, { name: 'bench small' })).json.id as string;
    const smallSync: number[] = [];
    for (let i = 0; i < 20; i++) {
      const members = users.slice(i % 2 ? 0 : 10, i % 2 ? 10 : 20).map((userId) => ({ userId }));
      smallSync.push((await call('POST', `/iac/teams/${small}/SYNC`, admin, { members })).ms);
    }

    const big = (await call('POST', '/iac/teams', admin, { name: 'bench big' })).json.id as string;
    const members = users.map((userId) => ({ userId }));
    const chunked = (await call('POST', `/iac/teams/${big}/SYNC`, admin, { members })).ms;
    const repeat = (await call('POST', `/iac/teams/${big}/SYNC`, admin, { members })).ms;

    const ds = (await call('POST', '/iac/metricsDatasources', admin, { name: 'bench' })).json.id as string;
    const start = Date.parse('2026-01-01T00:00:00Z');
    const points = Array.from({ length: 1000 }, (_, i) => ({
      timestamp: new Date(start + i * 300_000).toISOString(),
      value: i,
    }));
    const push = (await call('POST', `/metrics-datasources/${ds}/points`, admin, { points })).ms;
    const raw = (await call('GET', `/metrics-datasources/${ds}/points?from=2026-01-01&to=2026-01-05`, admin))
      .ms;
    const daily = (
      await call(
        'GET',
        `/metrics-datasources/${ds}/points?from=2026-01-01&to=2026-01-05&granularity=day`,
        admin,
      )
    ).ms;

    const keyed: number[] = [];
    for (let i = 0; i < 50; i++)
      keyed.push((await call('GET', '/api-keys?mine=true', session.apiKeys.member)).ms);

    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      syncTenMembersSingleTransactionMs: {
        p50: round(percentile(smallSync, 50)),
        p95: round(percentile(smallSync, 95)),
      },
      syncThreeHundredMembersChunkedMs: round(chunked),
      syncRepeatNoOpThreeHundredMs: round(repeat),
      pushThousandPointsMs: round(push),
      pushPointsPerSecond: Math.round(1000 / (push / 1000)),
      readThousandRawPointsMs: round(raw),
      readPointsDailyRollupMs: round(daily),
      apiKeyAuthenticatedListMs: { p50: round(percentile(keyed, 50)), p95: round(percentile(keyed, 95)) },
      note: 'DynamoDB Local on a shared 2-core machine; relative figures only',
    };
  } finally {
    await stack.stop();
  }
}
