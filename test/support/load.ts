import { createRequire } from 'node:module';
import { percentile } from '../../bench/support';
import { simpleWidget } from '../fixtures/dashboards/realistic';
import { conditionBody } from '../unit/alerts/fixtures';
import { costQuery } from './explorer';

/**
 * The mixed load of issue 18 (item 13), shared by test/reliability/load.test.ts (zero 5xx) and
 * bench/load.bench.ts (latency figures): reads of the dashboard, report and alert lists and of
 * single records, explorer queries, widget data, and a few creates, sent by autocannon over many
 * connections to a running local stack.
 */

export interface LoadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  /** Responses other than 2xx, by request (`GET /reports`) and status. */
  failures: Record<string, Record<string, number>>;
  /** Socket errors and requests autocannon gave up on (its `timeout`). */
  errors: number;
  timeouts: number;
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
}

async function call<T>(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

const reportBody = (name: string) => ({ name, scheduledPeriod: 'WEEKLY', scheduledWeekday: 1 });

/**
 * Creates what the mix reads (a dashboard with one widget, a report, a cost alert) with `token`
 * and returns the requests, in the order each connection sends them over and over.
 */
export async function prepareLoadMix(baseUrl: string, token: string): Promise<LoadRequest[]> {
  const tag = `load ${Date.now().toString(36)}`;
  const dashboard = await call<{ id: string }>(baseUrl, token, 'POST', '/dashboard-v2', {
    name: `${tag} dashboard`,
    widgets: [simpleWidget('w1')],
  });
  const report = await call<{ id: string }>(baseUrl, token, 'POST', '/reports', reportBody(`${tag} report`));
  const alert = await call<{ id: string }>(baseUrl, token, 'POST', '/alerts-v2/costAlerts', {
    ...conditionBody(),
    name: `${tag} alert`,
  });
  const end = new Date();
  const start = new Date(end.getTime() - 30 * 86_400_000);
  const day = (d: Date) => `${d.toISOString().slice(0, 10)}T00:00:00Z`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const get = (path: string): LoadRequest => ({ method: 'GET', path, headers });
  const post = (path: string, body: unknown): LoadRequest => ({
    method: 'POST',
    path,
    headers,
    body: JSON.stringify(body),
  });
  return [
    get('/dashboard-v2'),
    get('/reports'),
    get('/alerts-v2/costAlerts'),
    post('/queries/explorer', {
      request: {
        period: { startDate: day(start), endDate: day(end), aggBy: 'Day' },
        queries: [costQuery('a', { groupBy: 'provider' })],
      },
    }),
    get(`/dashboard-v2/${dashboard.id}/widgets/w1/data`),
    get(`/dashboard-v2/${dashboard.id}`),
    get(`/reports/${report.id}`),
    get(`/alerts-v2/costAlerts/${alert.id}/history`),
    get('/dimensions'),
    // One write in ten: a new report each time (no two requests contend for one record).
    post('/reports', reportBody(`${tag} write`)),
  ];
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  requests: { total: number };
  statusCodeStats?: Record<string, { count: number }>;
}
type Autocannon = (
  opts: Record<string, unknown>,
  cb: (err: Error | null, result: AutocannonResult) => void,
) => {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};

/**
 * Runs autocannon against `baseUrl` with the mix for `seconds` over `connections` connections.
 * A request unanswered after `timeoutSeconds` counts as a timeout.
 */
export function runLoad(opts: {
  baseUrl: string;
  requests: LoadRequest[];
  connections: number;
  seconds: number;
  timeoutSeconds?: number;
}): Promise<LoadResult> {
  const autocannon = createRequire(__filename)('autocannon') as Autocannon;
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const failures: Record<string, Record<string, number>> = {};
    const requests = opts.requests.map((r) => ({
      ...r,
      onResponse: (status: number) => {
        if (status >= 200 && status < 300) return;
        const route = `${r.method} ${r.path}`;
        const byStatus = failures[route] ?? {};
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        failures[route] = byStatus;
      },
    }));
    const instance = autocannon(
      {
        url: opts.baseUrl,
        connections: opts.connections,
        duration: opts.seconds,
        timeout: opts.timeoutSeconds ?? 30,
        requests,
      },
      (err, result) => {
        if (err) return reject(err);
        latencies.sort((a, b) => a - b);
        resolve({
          requests: latencies.length,
          seconds: result.duration,
          statuses,
          failures,
          errors: result.errors - result.timeouts,
          timeouts: result.timeouts,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          requestsPerSecond: latencies.length / result.duration,
        });
      },
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      latencies.push(ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
}
