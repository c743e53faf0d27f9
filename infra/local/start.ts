/**
 * `npm start`: the whole service on this machine, with no Docker and no internet.
 * DynamoDB Local (Java), fauxqs (SQS), aws-ses-v2-local (SES), a Slack/Teams/IdP capture server,
 * the local HTTP API (same handlers as AWS), SQS pollers for every worker and
 * the schedule ticker. Writes `session.json` into the state folder once ready.
 *
 * Flags: --fresh (wipe state), --port N (default $PORT or 3000), --state-dir DIR (default
 * $LOCAL_STATE_DIR or .local), --no-ticker, --exit-with-stdin (stop when the parent goes away), --quiet,
 * --faults (POST /_local/faults, see ./faults.ts), --help. One stack per state folder (`start.lock`). Whatever happens — Ctrl-C, SIGTERM, a failed
 * start, an uncaught error — every child process started so far (DynamoDB Local's java included)
 * is stopped before the process exits.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { resetJwtVerifier } from '../../shared/auth/credentials';
import { MESSAGE_IMAGES_PREFIX } from '../../shared/cloud/message-images';
import { resetConfig } from '../../shared/config';
import { resetDb } from '../../shared/db/client';
import { queues, schedules, workers } from '../../shared/queues';
import { routes } from '../../shared/routes';
import { startCaptureServer } from './capture-server';
import { OUTBOX_PATH } from './capture-view';
import { CONSOLE_PATH } from './console-hook';
import { type Emulator, startDynamoLocal, startSesEmulator, startSqsEmulator } from './emulators';
import { type FaultControl, faultControl, startOutageProxy } from './faults';
import { localHooks } from './hooks';
import { jwks, LOCAL_AUDIENCE, LOCAL_ISSUER, loadOrCreateSigningKey } from './idp';
import { INTROSPECT_PATH, LOCAL_INTROSPECTION_SECRET } from './idp-api-keys';
import {
  acquireStateLock,
  assertPortFree,
  listen,
  parseStartArgs,
  START_USAGE,
  StartError,
} from './lifecycle';
import { type Poller, queueDepth, startPoller } from './pollers';
import { seedDemo } from './seed';
import { createLocalServer } from './server';
import { ensureQueue, ensureTable, type LocalQueue } from './setup-aws';
import { findSchedule, startTicker, tick } from './ticker';

/** What to stop on the way out, in reverse order of starting. */
const stoppers: (() => Promise<void> | void)[] = [];
let stopping = false;

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const s of stoppers.reverse()) await Promise.resolve(s()).catch(() => {});
  process.exit(code);
}

const LOCAL_VISIBILITY_SECONDS = 2;

async function main(): Promise<void> {
  const args = parseStartArgs(process.argv.slice(2));
  if (args === 'help') {
    process.stdout.write(`${START_USAGE}\n`);
    return;
  }
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGHUP', () => void stop(0));
  stoppers.push(acquireStateLock(args.stateDir, { fresh: args.fresh }));
  await assertPortFree(args.port);
  if (args.exitWithStdin) {
    process.stdin.on('end', () => void stop(0));
    process.stdin.on('close', () => void stop(0));
    process.stdin.resume();
  }

  const emulators: Emulator[] = [];
  const startEmu = async <T extends Emulator>(p: Promise<T>): Promise<T> => {
    const e = await p;
    // One that finishes starting after another failed (and everything was stopped) stops at once.
    if (stopping) await e.stop();
    emulators.push(e);
    stoppers.push(() => e.stop());
    return e;
  };
  const [dynamo, sqsEmu, ses, capture] = await Promise.all([
    startEmu(startDynamoLocal({ dbPath: resolve(args.stateDir, 'dynamodb') })),
    startEmu(startSqsEmulator()),
    startEmu(startSesEmulator()),
    startEmu(startCaptureServer()),
  ]);

  // With --faults, everything reaches fauxqs through a proxy that POST /_local/faults can cut.
  let sqsEndpoint = sqsEmu.endpoint;
  let faults: FaultControl | undefined;
  if (args.faults) {
    const proxy = await startOutageProxy(sqsEmu.endpoint);
    stoppers.push(() => proxy.stop());
    sqsEndpoint = proxy.endpoint;
    faults = faultControl({ sqs: proxy, dynamo, dynamoDbPath: resolve(args.stateDir, 'dynamodb') });
    const control = faults;
    stoppers.push(() => control.stop());
  }

  let ready = false;
  let sqsClient: SQSClient | undefined;
  const localQueues: LocalQueue[] = [];
  const pollers: Poller[] = [];
  const signingKey = await loadOrCreateSigningKey(args.stateDir);

  const server = createLocalServer(routes, {
    async handle(method, path, body, query, headers) {
      if (path === '/.well-known/jwks.json' && method === 'GET')
        return { status: 200, body: jwks(signingKey) };
      if (path === '/_local/health' && method === 'GET')
        return { status: ready ? 200 : 503, body: { ready } };
      if (!ready && !path.startsWith('/_local/')) return { status: 503, body: { error: 'STARTING' } };
      if (path === '/_local/tick' && method === 'POST') {
        const b = (body ?? {}) as { schedule?: unknown; now?: unknown; detail?: unknown };
        const known = schedules.map((x) => x.name).join(', ');
        if (typeof b.schedule !== 'string' || !b.schedule)
          return { status: 400, body: { error: `schedule is required: one of ${known}` } };
        if (!findSchedule(b.schedule))
          return { status: 400, body: { error: `Unknown schedule ${b.schedule}: one of ${known}` } };
        if (b.now !== undefined && typeof b.now !== 'string')
          return { status: 400, body: { error: 'now must be an ISO date-time' } };
        const now = b.now ? new Date(b.now) : new Date();
        if (Number.isNaN(now.getTime()))
          return { status: 400, body: { error: 'now must be an ISO date-time' } };
        if (
          b.detail !== undefined &&
          (typeof b.detail !== 'object' || b.detail === null || Array.isArray(b.detail))
        )
          return { status: 400, body: { error: 'detail must be an object' } };
        const result = await tick(b.schedule, now, (b.detail ?? {}) as Record<string, unknown>);
        return {
          status: 200,
          body: { schedule: b.schedule, now: now.toISOString(), result: result ?? null },
        };
      }
      if (path === '/_local/faults' && method === 'POST' && faults) return faults.handle(body);
      if (path === '/_local/drain' && method === 'POST') {
        const timeoutMs = (body as { timeoutMs?: unknown } | undefined)?.timeoutMs ?? 30_000;
        if (
          typeof timeoutMs !== 'number' ||
          !Number.isFinite(timeoutMs) ||
          timeoutMs < 0 ||
          timeoutMs > 600_000
        )
          return {
            status: 400,
            body: { error: 'timeoutMs must be a number of milliseconds from 0 to 600000' },
          };
        const drained = await drain(timeoutMs);
        return { status: drained ? 200 : 504, body: { drained } };
      }
      for (const hook of localHooks) {
        const answer = await hook.handle?.(method, path, body, query, headers);
        if (answer) return answer;
      }
      return undefined;
    },
  });
  const drain = async (timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    let quietRounds = 0;
    while (Date.now() < deadline) {
      const depths = sqsClient
        ? await Promise.all(localQueues.map((q) => queueDepth(sqsClient as SQSClient, q.url)))
        : [];
      const busy = pollers.some((p) => p.busy);
      if (!busy && depths.every((d) => d === 0)) {
        // Two quiet looks in a row: a worker may enqueue follow-up work just as it finishes.
        if (++quietRounds >= 2) return true;
      } else quietRounds = 0;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };

  await listen(server, args.port);
  stoppers.push(
    () =>
      new Promise<void>((res) => {
        server.closeAllConnections();
        server.close(() => res());
      }),
  );
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : args.port;
  const baseUrl = `http://127.0.0.1:${port}`;

  Object.assign(process.env, {
    STAGE: 'local',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: 'cost-management',
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    SQS_ENDPOINT: sqsEndpoint,
    SES_ENDPOINT: ses.endpoint,
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    JWKS_URI: `${baseUrl}/.well-known/jwks.json`,
    SLACK_API_BASE_URL: `${capture.endpoint}/slack/api`,
    // Teams webhooks must be https on an allowed host; the capture server's exact origin is the one
    // local exception (see docs/alerts.md). The CDK stack never sets this variable.
    TEAMS_LOCAL_CAPTURE_ORIGIN: capture.endpoint,
    IDP_API_BASE_URL: `${capture.endpoint}/idp`,
    // API keys made in the identity provider: the local stand-in's introspection endpoint
    // (infra/local/idp-api-keys.ts; docs/auth.md#api-keys-from-the-identity-provider).
    API_KEY_INTROSPECTION_URL: `${baseUrl}${INTROSPECT_PATH}`,
    API_KEY_INTROSPECTION_SECRET: LOCAL_INTROSPECTION_SECRET,
    API_KEY_INTROSPECTION_TIMEOUT_MS: '10000',
    MAIL_FROM: 'FinOps Local <finops@local.test>',
    APP_BASE_URL: baseUrl,
    // The console is served under /console/ here (infra/local/console-hook.ts): message links point there.
    CONSOLE_BASE_URL: `${baseUrl}${CONSOLE_PATH}`,
    // Images a Teams card shows by URL, served by this server as CloudFront serves them in AWS.
    MESSAGE_IMAGES_URL: `${baseUrl}/${MESSAGE_IMAGES_PREFIX}`,
    MESSAGE_IMAGES_DIR: resolve(args.stateDir, MESSAGE_IMAGES_PREFIX),
    DUCKDB_PATH: resolve(args.stateDir, 'warehouse.duckdb'),
    LOCAL_STATE_DIR: args.stateDir,
    // The emulators share this machine and answer slowly under load (see awsClientLimits).
    AWS_REQUEST_TIMEOUT_MS: process.env.AWS_REQUEST_TIMEOUT_MS ?? '10000',
  });
  resetConfig();
  resetDb();
  resetJwtVerifier();

  const dynamoClient = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTable(dynamoClient, 'cost-management');
  sqsClient = new SQSClient({
    endpoint: sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  for (const q of queues) {
    const created = await ensureQueue(sqsClient, q, LOCAL_VISIBILITY_SECONDS);
    localQueues.push(created);
    process.env[`QUEUE_URL_${q.name.toUpperCase().replaceAll('-', '_')}`] = created.url;
  }
  resetConfig();

  const seed = await seedDemo(args.stateDir);
  for (const hook of localHooks) await hook.start?.({ stateDir: args.stateDir, seed, stoppers });

  for (const w of workers) {
    const q = localQueues.find((lq) => lq.name === w.queue);
    if (!q) throw new Error(`Worker ${w.name} reads unknown queue ${w.queue}`);
    const poller = startPoller(sqsClient, w, q, { retryDelaySeconds: LOCAL_VISIBILITY_SECONDS });
    pollers.push(poller);
    stoppers.push(() => poller.stop());
  }
  if (args.ticker) stoppers.push(startTicker());

  const session = {
    baseUrl,
    orgId: seed.orgId,
    otherOrgId: seed.otherOrgId,
    apiKeys: seed.apiKeys,
    users: { admin: seed.users.admin, member: seed.users.member, outsider: seed.users.outsider },
    emails: seed.emails,
    teams: seed.teams,
    consoleUrl: `${baseUrl}${CONSOLE_PATH}`,
    mailUrl: `${ses.endpoint}/store`,
    // The same e-mails in the SES emulator's own viewer (self-contained, no outside resources).
    mailboxUrl: `${ses.endpoint}/`,
    chatUrl: `${capture.endpoint}/messages`,
    // The same messages as a page (infra/local/capture-view.ts); chatUrl stays the JSON record.
    outboxUrl: `${capture.endpoint}${OUTBOX_PATH}`,
    jwksUrl: `${baseUrl}/.well-known/jwks.json`,
    endpoints: {
      dynamodb: dynamo.endpoint,
      sqs: sqsEndpoint,
      ses: ses.endpoint,
      capture: capture.endpoint,
    },
    tableName: 'cost-management',
    queues: Object.fromEntries(localQueues.map((q) => [q.name, { url: q.url, dlqUrl: q.dlqUrl }])),
    stateDir: args.stateDir,
    pid: process.pid,
  };
  ready = true;
  for (const hook of localHooks) await hook.ready?.({ stateDir: args.stateDir, seed, baseUrl });
  // Written whole, then renamed into place: a reader polling for the file never sees half of it.
  const sessionFile = resolve(args.stateDir, 'session.json');
  writeFileSync(`${sessionFile}.tmp`, JSON.stringify(session, null, 2));
  renameSync(`${sessionFile}.tmp`, sessionFile);
  if (!args.quiet) {
    process.stdout.write(
      [
        '',
        `Cost management service is running at ${baseUrl}`,
        `  web console    ${session.consoleUrl} (sign in as a demo user, or with a key below)`,
        `  organisation   ${seed.orgId} (second organisation: ${seed.otherOrgId})`,
        `  admin key      ${seed.apiKeys.admin}`,
        `  member key     ${seed.apiKeys.member}`,
        `  org key        ${seed.apiKeys.org}`,
        `  outsider key   ${seed.apiKeys.outsider}`,
        `  team           ${seed.teams.map((t) => `${t.name} (${t.id})`).join(', ')}`,
        `  sent email     ${session.mailboxUrl} (JSON: ${session.mailUrl})`,
        `  Slack/Teams    ${session.outboxUrl} (JSON: ${session.chatUrl})`,
        `  session file   ${resolve(args.stateDir, 'session.json')}`,
        '',
        ...tryItCommands({ baseUrl, adminKey: seed.apiKeys.admin, admin: seed.users.admin, ...args }),
        '',
      ].join('\n'),
    );
  }
}

/** Lines to paste into a shell, with this stack's real address, key and state folder. */
function tryItCommands(o: { baseUrl: string; adminKey: string; admin: string; stateDir: string }): string[] {
  const stateDir = o.stateDir === resolve('.local') ? [] : [`  export LOCAL_STATE_DIR=${o.stateDir}`];
  return [
    'Try it (paste into another shell):',
    `  export BASE=${o.baseUrl}`,
    `  export K=${o.adminKey}`,
    ...stateDir,
    '  curl -s -H "Authorization: Bearer $K" $BASE/reports',
    '  curl -s -H "Authorization: Bearer $K" $BASE/dimensions',
    `  TOKEN=$(npm run -s token -- --user ${o.admin}); curl -s -H "Authorization: Bearer $TOKEN" $BASE/dashboard-v2`,
    '  npm run ingest -- test/fixtures/billing/focus_sample.csv',
    "  # that sample is from September 2024, before the demo's last three months: paste the query it prints",
  ];
}

function fail(error: unknown): void {
  if (error instanceof StartError) {
    process.stderr.write(`npm start: ${error.message}\n${error.exitCode === 2 ? `${START_USAGE}\n` : ''}`);
  } else {
    process.stderr.write(`npm start failed: ${(error as Error)?.stack ?? error}\n`);
  }
  void stop(error instanceof StartError ? error.exitCode : 1);
}

process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
main().catch(fail);
