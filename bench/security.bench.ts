/**
 * The security benchmark (`npm run bench -- security`): what it costs each route to verify its
 * request's credential itself, now that no gateway authorizer does it (docs/security.md).
 * - per request, warm container: a session JWT (RS256, JWKS cached by aws-jwt-verify), an `ak_`
 *   key whose identity the container holds, and an `ak_` key read from the table (DynamoDB Local);
 * - per container, once: the first JWT (JWKS fetched from the local IdP, then verified);
 * - cold start: bundle size and fresh-process import time of two route bundles, beside the same
 *   figures for the bundles before the change (measured with this file's method at commit
 *   9e124c4, when the authorizer was its own function);
 * - the whole local stack: GET /reports/{id} latency with a JWT and with an API key, and a request
 *   without Authorization (401 `{error}` from the route);
 * - limits (docs/security.md#limits): how fast each oversized, deep or costly body is refused over
 *   HTTP (the median of 7, with its status), beside an accepted create, and the JSON depth
 *   pre-scan of a 1 MiB body in-process. The tests (`test/security/limits.test.ts`) assert only the
 *   4xx and that nothing was written.
 * Figures only: nothing here is asserted by a test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions } from '../infra/bundling';
import { loadOrCreateSigningKey, mintToken } from '../infra/local/idp';
import { resetJwtVerifier } from '../shared/auth/credentials';
import { resetConfig } from '../shared/config';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_KEYS } from '../shared/http/body';
import { authenticate, resetApiKeyCache } from '../shared/http/identity';
import { median, percentile, ROOT, round, startStack } from './support';

/** Measured at commit 9e124c4 (gateway Lambda authorizer, cached 5 min per Authorization header). */
const BEFORE = {
  commit: '9e124c4',
  bundles: {
    'reports/get-report': { bytes: 410_067, includesAwsJwtVerify: true },
    'reports/patch-report': { bytes: 487_319, includesAwsJwtVerify: true },
    authorizer: { bytes: 373_416, includesAwsJwtVerify: true },
  },
  note:
    'every route bundle already held aws-jwt-verify (shared/http/identity imports shared/auth/credentials); ' +
    'a request with a credential not in the gateway cache also ran the authorizer Lambda (its own cold start)',
};

const IMPORT_RUNS = 11;
const IMPORT_SCRIPT =
  'const t = performance.now(); await import(process.env.U); process.stdout.write(String(performance.now() - t));';

async function timeEach(n: number, fn: () => Promise<unknown>): Promise<{ p50Us: number; p99Us: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push((performance.now() - t) * 1000);
  }
  return { p50Us: Math.round(percentile(samples, 50)), p99Us: Math.round(percentile(samples, 99)) };
}

async function coldStart(entries: string[]): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-security-'));
  try {
    const out: Record<string, unknown> = {};
    for (const entry of entries) {
      const file = join(dir, `${entry.replaceAll('/', '__')}.mjs`);
      const result = await build(esbuildOptions(join(ROOT, 'functions/http', `${entry}.ts`), file));
      const output = Object.values((result.metafile as Metafile).outputs)[0];
      const ms: number[] = [];
      for (let i = 0; i < IMPORT_RUNS; i++) {
        const child = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT], {
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            AWS_REGION: 'us-east-1',
            TABLE_NAME: 't',
            U: pathToFileURL(file).href,
          },
        });
        ms.push(Number(child.stdout));
      }
      out[entry] = {
        bytes: output?.bytes,
        includesAwsJwtVerify: Object.keys(output?.inputs ?? {}).some((i) => i.includes('aws-jwt-verify')),
        importMedianMs: Math.round(percentile(ms, 50) * 10) / 10,
      };
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface LoadResult {
  latency: { p50: number; p99: number };
  requests: { average: number };
  non2xx: number;
}
const autocannon = createRequire(__filename)('autocannon') as (
  opts: Record<string, unknown>,
) => Promise<LoadResult>;

async function load(url: string, headers: Record<string, string>) {
  const r = await autocannon({ url, connections: 10, duration: 5, headers });
  return { p50Ms: r.latency.p50, p99Ms: r.latency.p99, reqPerSec: r.requests.average, non2xx: r.non2xx };
}

const LIMIT_RUNS = 7;

/** Each refused probe of test/security/limits.test.ts once more, timed over HTTP. */
async function limits(baseUrl: string, authorization: string): Promise<Record<string, unknown>> {
  const MIB = 1024 * 1024;
  const alertBody = (condition: string) =>
    JSON.stringify({
      name: 'bench limits',
      currency: 'USD',
      queries: [{ type: 'cost', name: 'ec2', colorIndex: 0, chartType: 'LINE', metricId: 'effective_cost' }],
      condition,
      dedup: { kind: 'CALENDAR', calendarUnit: 'WEEK' },
      thresholds: [],
      notificationChannel: 'EMAIL',
      emails: ['finops@example.com'],
    });
  const enrichment = (conditions: string) =>
    JSON.stringify({
      name: 'bench-limits',
      keyField: 'SubAccountId',
      conditions,
      targetColumns: [{ name: 'c', mode: 'merge' }],
      entries: [{ key: '1', values: { c: 'x' } }],
    });
  const laughs = [
    'name: bench-limits',
    'keyField: SubAccountId',
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...Array.from({ length: 9 }, (_, i) => {
      const [p, q] = [String.fromCharCode(97 + i), String.fromCharCode(98 + i)];
      return `${q}: &${q} [*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p}]`;
    }),
    'entries: *j',
    '',
  ].join('\n');
  const probes: [string, string, string, string, string][] = [
    [
      'control: POST /reports accepted',
      'POST',
      '/reports',
      'application/json',
      JSON.stringify({ name: 'bench limits', scheduledPeriod: 'WEEKLY', scheduledWeekday: 1 }),
    ],
    [
      '1 MiB + 13 bytes (413)',
      'POST',
      '/reports',
      'application/json',
      JSON.stringify({ name: 'x', pad: 'x'.repeat(MIB) }),
    ],
    [
      '10,000 nested arrays',
      'POST',
      '/reports',
      'application/json',
      `{"name":"x","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    ],
    [
      '200,000 nested arrays (400 KB)',
      'POST',
      '/dashboard-v2',
      'application/json',
      `{"name":"x","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
    ],
    [
      '60,000 keys (900 KB)',
      'POST',
      '/dashboard-v2',
      'application/json',
      `{"name":"x",${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`,
    ],
    [
      '450,000-element array (900 KB)',
      'POST',
      '/dashboard-v2',
      'application/json',
      `{"name":"x","x":[${'0,'.repeat(450_000)}0]}`,
    ],
    [
      'alert condition of 500 KB',
      'POST',
      '/alerts-v2/costAlerts',
      'application/json',
      alertBody(`ec2 > ${'1 + '.repeat(125_000)}1`),
    ],
    [
      'alert condition 1,000 parentheses deep',
      'POST',
      '/alerts-v2/costAlerts',
      'application/json',
      alertBody(`${'('.repeat(1_000)}ec2${')'.repeat(1_000)} > 1`),
    ],
    [
      'CEL over 300 AST nodes',
      'PUT',
      '/enrichments/bench-limits',
      'application/json',
      enrichment(Array.from({ length: 70 }, (_, i) => `input.BilledCost > ${i}.0`).join(' || ')),
    ],
    [
      'CEL 40 levels deep',
      'PUT',
      '/enrichments/bench-limits',
      'application/json',
      enrichment(`${'('.repeat(40)}input.BilledCost > 1.0${')'.repeat(40)}`),
    ],
    [
      'CEL of 500 KB',
      'PUT',
      '/enrichments/bench-limits',
      'application/json',
      enrichment(`input.ProviderName == "${'a'.repeat(500_000)}"`),
    ],
    [
      'ECB rate XML of 1 MiB (30,000 Cubes)',
      'POST',
      '/admin/fx-rates',
      'application/xml',
      `<gesmes:Envelope><Cube><Cube time="2024-01-02">\n${'<Cube currency="USD" rate="1.1"/>\n'.repeat(30_000)}</Cube></Cube></gesmes:Envelope>`,
    ],
    ['YAML alias bomb (billion laughs)', 'PUT', '/enrichments/bench-limits', 'application/yaml', laughs],
    [
      'YAML 200,000 nested flow sequences',
      'PUT',
      '/enrichments/bench-limits',
      'application/yaml',
      `a: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`,
    ],
  ];
  const out: Record<string, unknown> = {};
  for (const [label, method, path, contentType, body] of probes) {
    const ms: number[] = [];
    let status = 0;
    for (let i = 0; i < LIMIT_RUNS; i++) {
      const t = performance.now();
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization, 'content-type': contentType },
        body,
      });
      await res.arrayBuffer();
      ms.push(performance.now() - t);
      status = res.status;
    }
    out[label] = {
      status,
      bytes: Buffer.byteLength(body),
      medianMs: round(median(ms)),
      maxMs: round(Math.max(...ms)),
    };
  }
  // At the limits, so the pass reads every byte: 62 arrays inside one object, 300,000 numbers and
  // objects of MAX_JSON_KEYS keys.
  const wide = `{${Array.from({ length: MAX_JSON_KEYS }, (_, i) => `"k${i}":1`).join(',')}}`;
  const deep = `{"x":${'['.repeat(MAX_JSON_DEPTH - 2)}${'0,'.repeat(300_000)}${wide}${']'.repeat(MAX_JSON_DEPTH - 2)}}`;
  if (jsonShapeProblem(deep) !== null) throw new Error('the pre-scan sample must be within the limits');
  const scan = await timeEach(50, async () => jsonShapeProblem(deep));
  return {
    overHttp: out,
    jsonDepthPreScan: {
      bytes: deep.length,
      ...scan,
      note: 'in-process, a body at the depth and key limits (a full pass)',
    },
    before: {
      deepYaml:
        '200 KB of [[[[… answered 400 "Invalid YAML: Maximum call stack size exceeded" after 0.9 s (issue 18)',
    },
  };
}

export default async function securityBench(): Promise<Record<string, unknown>> {
  const cold = await coldStart(['reports/get-report', 'reports/patch-report']);
  const stack = await startStack(['--no-ticker']);
  try {
    const { session } = stack;
    Object.assign(process.env, {
      JWT_ISSUER: 'urn:cost-management:local-idp',
      JWT_AUDIENCE: 'cost-management-local',
      JWKS_URI: session.jwksUrl,
    });
    resetConfig();
    resetJwtVerifier();
    const key = await loadOrCreateSigningKey(session.stateDir);
    const jwt = await mintToken(key, { userId: session.users.admin, orgId: session.orgId });
    const bearerJwt = `Bearer ${jwt}`;
    const bearerKey = `Bearer ${session.apiKeys.admin}`;

    const firstJwt = await timeEach(20, async () => {
      resetJwtVerifier();
      await authenticate(bearerJwt);
    });
    await authenticate(bearerJwt);
    const warmJwt = await timeEach(2000, () => authenticate(bearerJwt));
    await authenticate(bearerKey);
    const cachedKey = await timeEach(2000, () => authenticate(bearerKey));
    const readKey = await timeEach(300, async () => {
      resetApiKeyCache();
      await authenticate(bearerKey);
    });

    const created = await fetch(`${session.baseUrl}/reports`, {
      method: 'POST',
      headers: { authorization: bearerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench security', scheduledPeriod: 'WEEKLY', scheduledWeekday: 1 }),
    });
    const { id } = (await created.json()) as { id: string };
    const url = `${session.baseUrl}/reports/${id}`;
    const missing = await fetch(url);
    return {
      perRequest: {
        jwtWarm: warmJwt,
        apiKeyIdentityCached: cachedKey,
        apiKeyReadFromTable: readKey,
        note: 'in-process cost of the route’s credential check (authenticate), before the principal load every route already did',
      },
      perContainer: { firstJwtWithJwksFetch: firstJwt },
      coldStart: { after: cold, before: BEFORE },
      localStack: {
        getReportJwt: await load(url, { authorization: bearerJwt }),
        getReportApiKey: await load(url, { authorization: bearerKey }),
        missingAuthorization: { status: missing.status, body: await missing.json() },
      },
      limits: await limits(session.baseUrl, bearerKey),
    };
  } finally {
    await stack.stop();
  }
}
