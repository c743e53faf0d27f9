import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { keys } from '../../shared/db/keys';
import { percentile, ROOT, startStack } from '../support';
import { round } from './units';

// Latency and throughput of GET and PATCH /reports/{id} on the local stack under autocannon,
// beside a bare node:http server doing the same DynamoDB Local GetItem.

export const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const ROUNDS = 2;
export const CONNECTIONS = 10;

export interface AutocannonClient {
  setRequests(
    requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[],
  ): void;
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (
  opts: Record<string, unknown>,
  cb: (err: Error | null, result: AutocannonResult) => void,
) => {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};

const autocannon = createRequire(__filename)('autocannon') as Autocannon;

interface Run {
  latencies: number[];
  seconds: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run, keeping every response time so runs can be pooled exactly. */
function cannon(opts: Record<string, unknown>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon({ connections: CONNECTIONS, ...opts }, (err, result) =>
      err
        ? reject(err)
        : resolve({
            latencies,
            seconds: result.duration,
            non2xx: result.non2xx,
            errors: result.errors + result.timeouts,
          }),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

/**
 * Runs two targets side by side: ROUNDS alternating runs each (A B, B A, …), so a busy moment of
 * the machine lands on both alike, then pools each target's response times.
 */
async function sideBySide(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Promise<[LoadFigures, LoadFigures]> {
  const runs: [Run[], Run[]] = [[], []];
  const duration = LOAD_SECONDS / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [1, 0] : [0, 1];
    for (const i of order) runs[i]?.push(await cannon({ ...(i ? b : a), duration }));
  }
  return [figures(runs[0]), figures(runs[1])];
}

interface LoadFigures {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  reqPerSec: number;
  requests: number;
  non2xx: number;
  errors: number;
}

function figures(runs: Run[]): LoadFigures {
  const all = runs.flatMap((r) => r.latencies);
  const seconds = runs.reduce((t, r) => t + r.seconds, 0);
  return {
    p50Ms: round(percentile(all, 50), 1),
    p99Ms: round(percentile(all, 99), 1),
    meanMs: round(all.reduce((t, x) => t + x, 0) / Math.max(all.length, 1), 1),
    maxMs: round(Math.max(0, ...all), 1),
    reqPerSec: round(all.length / Math.max(seconds, 1e-9), 1),
    requests: all.length,
    non2xx: runs.reduce((t, r) => t + r.non2xx, 0),
    errors: runs.reduce((t, r) => t + r.errors, 0),
  };
}

async function startBare(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/bare/server.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function createReport(baseUrl: string, token: string, name: string): Promise<string> {
  const res = await fetch(`${baseUrl}/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      description: 'benchmark report',
      widgets: [
        { type: 'TEXT', contentMarkdown: 'Weekly cloud spend' },
        { type: 'DIGEST', groupBy: ['ServiceName'] },
      ],
      destinations: [{ destinationType: 'EMAIL', destinationValues: ['finops@example.com'] }],
    }),
  });
  if (res.status !== 201) throw new Error(`creating a report answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

export async function loadTest(): Promise<Record<string, unknown>> {
  const stack = await startStack();
  let bare: { url: string; child: ChildProcess } | undefined;
  try {
    const { baseUrl, apiKeys, orgId, endpoints, tableName } = stack.session;
    const token = apiKeys.admin;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const getId = await createReport(baseUrl, token, 'bench-get');
    // One report per connection, so PATCH measures an update, not version-conflict retries; the
    // bare PATCH has its own reports, so neither server's writes race the other's.
    const reports = (prefix: string) =>
      Promise.all(
        Array.from({ length: CONNECTIONS }, (_, i) => createReport(baseUrl, token, `${prefix}-${i}`)),
      );
    const patchIds = await reports('bench-patch');
    const barePatchIds = await reports('bench-bare-patch');
    const itemKey = keys.report(orgId, getId);
    bare = await startBare({
      DYNAMODB_ENDPOINT: endpoints.dynamodb,
      TABLE_NAME: tableName,
      ITEM_PK: itemKey.pk,
      ITEM_SK: itemKey.sk,
      PATCH_KEYS: JSON.stringify(Object.fromEntries(barePatchIds.map((id) => [id, keys.report(orgId, id)]))),
    });

    // Each connection PATCHes its own report, alternating two names: every request is a real
    // change and the item never grows.
    const patchOptsFor = (url: string, ids: string[]) => {
      let next = 0;
      return {
        url,
        setupClient: (client: AutocannonClient) => {
          const id = ids[next++ % ids.length];
          client.setRequests(
            ['bench-a', 'bench-b'].map((name) => ({
              method: 'PATCH',
              path: `/reports/${id}`,
              headers,
              body: JSON.stringify({ name }),
            })),
          );
        },
      };
    };
    const targets = {
      bareGet: { url: `${bare.url}/reports/${getId}` },
      stackGet: { url: `${baseUrl}/reports/${getId}`, headers },
      barePatch: patchOptsFor(bare.url, barePatchIds),
      stackPatch: patchOptsFor(baseUrl, patchIds),
    };
    for (const opts of Object.values(targets)) await cannon({ ...opts, duration: WARMUP_SECONDS });
    // Both servers stay up against the same DynamoDB Local; each pair runs side by side.
    const [bareGet, stackGet] = await sideBySide(targets.bareGet, targets.stackGet);
    const [barePatch, stackPatch] = await sideBySide(targets.barePatch, targets.stackPatch);
    const ratio = (a: number, b: number) => round(a / Math.max(b, 1));
    return {
      connections: CONNECTIONS,
      secondsPerTarget: LOAD_SECONDS,
      rounds: `${ROUNDS} alternating runs of ${LOAD_SECONDS / ROUNDS} s per target, response times pooled`,
      credential:
        'ak_ API key (admin), verified by the route (identity cached per process, revocation read per request)',
      dynamodbLocal: 'disk-backed (-dbPath -sharedDb), as npm start runs it',
      bare: bareGet,
      getReport: stackGet,
      barePatch,
      patchReport: stackPatch,
      p99RatioGet: ratio(stackGet.p99Ms, bareGet.p99Ms),
      p50RatioGet: ratio(stackGet.p50Ms, bareGet.p50Ms),
      p99RatioPatch: ratio(stackPatch.p99Ms, barePatch.p99Ms),
      p50RatioPatch: ratio(stackPatch.p50Ms, barePatch.p50Ms),
    };
  } finally {
    if (bare?.child.exitCode === null) {
      bare.child.stdin?.end();
      bare.child.kill('SIGTERM');
    }
    await stack.stop();
  }
}
