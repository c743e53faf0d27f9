/**
 * The load benchmark (`npm run bench -- load`, issue 18 item 13): autocannon at 50 connections for
 * 30 s on a fresh local stack over the mix of test/support/load.ts (dashboard, report and alert
 * lists and records, explorer queries, widget data, one create in ten). Records p50/p99 latency,
 * requests per second, the answers by status (test/reliability/outage-and-load.test.ts asserts
 * they are all 2xx) and the machine's load average before and after, since every process of the
 * stack (API, DuckDB, DynamoDB Local's JVM) and autocannon itself share its cores.
 * Figures only: nothing here is asserted by a test.
 */
import { loadavg } from 'node:os';
import { prepareLoadMix, runLoad } from '../test/support/load';
import { round, startStack } from './support';

const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 30);

export default async function loadBench(): Promise<Record<string, unknown>> {
  const stack = await startStack();
  try {
    const { baseUrl, apiKeys } = stack.session;
    const requests = await prepareLoadMix(baseUrl, apiKeys.admin);
    const loadBefore = loadavg().map((l) => round(l, 2));
    const result = await runLoad({ baseUrl, requests, connections: CONNECTIONS, seconds: SECONDS });
    return {
      connections: CONNECTIONS,
      durationSeconds: round(result.seconds, 1),
      mix: requests.map((r) => `${r.method} ${r.path.replace(/\/(dash|rep|alrt)_[0-9a-z]+/g, '/{id}')}`),
      requests: result.requests,
      requestsPerSecond: round(result.requestsPerSecond, 1),
      p50Ms: round(result.p50Ms, 1),
      p99Ms: round(result.p99Ms, 1),
      statuses: result.statuses,
      errors: result.errors,
      timeouts: result.timeouts,
      loadAverage1m: { before: loadBefore[0], after: round(loadavg()[0] ?? 0, 2) },
    };
  } finally {
    await stack.stop();
  }
}
