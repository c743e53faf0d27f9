/**
 * `npm run ingest -- --org <orgId> <file>`: ingests a billing export (FOCUS, or a provider-native
 * CUR / Azure / Google Cloud / OCI export, converted on ingestion) into the running local stack, the way an S3 upload does in AWS: the file is copied into the
 * local billing bucket (`<state>/bucket/uploads/<orgId>/…`) and an S3 `ObjectCreated` event is
 * put on the stack's `billing-ingest` queue. The stack's worker ingests it (the stack process
 * owns the DuckDB file) and enqueues the refresh. The command waits for the outcome and the
 * refresh unless `--no-wait` is given; a rejected upload (an unregistered organisation, a file that
 * is not an accepted export) exits 1 with the reason the worker recorded. The stack is checked
 * (`GET /_local/health`) before anything is copied, so a stopped stack leaves no file behind.
 *
 * Several files are the parts of one export (a CUR delivered in several files): they are joined
 * into one upload (shared/warehouse/ingest/parts.ts), since uploads replace by billing source and parts
 * uploaded one by one would replace each other.
 *
 * Flags: --org ID (default: the running session's organisation, `orgId` of session.json),
 * --state-dir DIR (default $LOCAL_STATE_DIR or .local),
 * --session FILE (default <state-dir>/session.json), --no-wait, --timeout SECONDS (default 300).
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { ConformanceReport } from '../shared/model/uploads';
import { conformanceSummary } from '../shared/warehouse/conformance/report';
import { MANIFEST_LABEL, partFileName, readManifestFile } from '../shared/warehouse/ingest/manifest';
import { joinParts } from '../shared/warehouse/ingest/parts';
import { printedHelp } from './lib/cli';

const USAGE = [
  'usage: npm run ingest -- [--org ORG_ID] [--state-dir DIR] [--session FILE] [--no-wait] [--timeout SECONDS] FILE [PART…]',
  '  Ingests a billing export into the running local stack (npm start), as an',
  '  upload to the billing bucket does in AWS, then waits for the ingestion and the refresh. A rejected',
  '  upload (e.g. an organisation not registered yet: see npm run org) exits 1 with the reason.',
  '  Accepted: FOCUS 1.0+ (CSV, .csv.gz, Parquet), AWS CUR 1.0 / CUR 2.0, Azure EA/MCA cost exports,',
  '  the Google Cloud BigQuery billing export (CSV or JSON lines, .gz) and OCI cost reports.',
  '  --org        organisation (default: orgId of the running session, e.g. org_demo)',
  "  --state-dir  the stack's state folder (default: $LOCAL_STATE_DIR or .local)",
  '  --session    its session file (default: <state-dir>/session.json)',
  '  --no-wait    return once the file is queued',
  '  --timeout    seconds to wait for the outcome (default: 300)',
  '  Several files are the parts of one export (a CUR in several files): joined into one upload',
  '  (CSV parts with the same header line, or JSON lines; gzipped or not; CRLF or LF line ends).',
  '  An AWS CUR manifest (CUR 1.0 …-Manifest.json, CUR 2.0 / Data Exports Manifest.json) given alone',
  '  stands for the parts it lists, found beside it by their file names, joined into one upload.',
  '  e.g. npm run ingest -- test/fixtures/billing/focus_sample.csv',
].join('\n');

interface Args {
  org?: string;
  files: string[];
  stateDir: string;
  session?: string;
  wait: boolean;
  timeoutSeconds: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    stateDir: resolve(process.env.LOCAL_STATE_DIR ?? '.local'),
    wait: true,
    timeoutSeconds: 300,
    files: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--org') args.org = argv[++i];
    else if (a === '--state-dir') args.stateDir = resolve(String(argv[++i]));
    else if (a === '--session') args.session = resolve(String(argv[++i]));
    else if (a === '--no-wait') args.wait = false;
    else if (a === '--timeout') args.timeoutSeconds = Number(argv[++i]);
    else if (a.startsWith('--')) fail(`unknown flag ${a}\n${USAGE}`, 2);
    else args.files.push(a);
  }
  return args;
}

interface Session {
  baseUrl: string;
  orgId?: string;
  stateDir: string;
  endpoints: { sqs: string };
  queues: Record<string, { url: string }>;
}

function fail(message: string, status = 1): never {
  process.stderr.write(`ingest: ${message}\n`);
  process.exit(status);
}

async function post(
  baseUrl: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Fails with a plain sentence (no stack trace) when the stack of the session does not answer. */
async function assertReachable(baseUrl: string, sessionFile: string): Promise<void> {
  try {
    await fetch(`${baseUrl}/_local/health`, { signal: AbortSignal.timeout(5000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    fail(
      `the stack at ${baseUrl} does not answer (${cause}); is it running (npm start)? ` +
        `${sessionFile} may be left from a stopped one. Nothing was uploaded.`,
    );
  }
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const argv = process.argv.slice(2);
  if (printedHelp(argv, USAGE)) return;
  const args = parseArgs(argv);
  if (!args.files.length) fail(`give the file to ingest\n${USAGE}`, 2);
  const files = args.files.map((f) => resolve(f));
  for (const file of files) if (!existsSync(file) || !statSync(file).isFile()) fail(`no such file: ${file}`);
  const file = files[0] as string;
  // A CUR manifest: the parts it lists, found beside it by their file names, are the upload.
  const manifest = files.length === 1 ? readManifestFile(file) : undefined;
  if (manifest) {
    const parts = manifest.parts.map((ref) => join(dirname(file), partFileName(ref)));
    if (!parts.length)
      fail(`${basename(file)} is an ${MANIFEST_LABEL[manifest.kind]} that lists no data files`);
    const absent = parts.filter((p) => !existsSync(p));
    if (absent.length)
      fail(
        `${basename(file)} is an ${MANIFEST_LABEL[manifest.kind]} listing ${parts.length} part(s); ` +
          `not found beside it: ${absent.map((p) => basename(p)).join(', ')}. Nothing was uploaded.`,
      );
    files.splice(0, 1, ...parts);
    process.stdout.write(`${basename(file)}: ${MANIFEST_LABEL[manifest.kind]}, ${parts.length} part(s)\n`);
  }
  const sessionFile = args.session ?? join(args.stateDir, 'session.json');
  if (!existsSync(sessionFile))
    fail(`no running stack found (${sessionFile} is missing): start it with npm start`);
  const session = JSON.parse(readFileSync(sessionFile, 'utf8')) as Session;
  const org = args.org ?? session.orgId;
  if (!org || !/^[A-Za-z0-9_.:-]{1,128}$/.test(org))
    fail('--org <orgId> is required (letters, digits, _ . : -) when session.json names no orgId');
  const queue = session.queues['billing-ingest']?.url;
  if (!queue) fail('the running stack has no billing-ingest queue');
  await assertReachable(session.baseUrl, sessionFile);

  const name =
    `${basename(file)}${files.length > 1 || manifest ? `-joined-${files.length}-parts` : ''}`.replace(
      /[^A-Za-z0-9_.-]+/g,
      '_',
    );
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  const key = `uploads/${org}/${stamp}-${name}`;
  const dest = join(session.stateDir, 'bucket', key);
  mkdirSync(dirname(dest), { recursive: true });
  if (files.length > 1 || manifest) {
    try {
      joinParts(files, dest);
    } catch (error) {
      rmSync(dest, { force: true });
      fail(`${(error as Error).message}; nothing was uploaded`);
    }
  } else copyFileSync(file, dest);
  const version = randomUUID();
  const event = {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'us-east-1',
        eventTime: new Date().toISOString(),
        eventName: 'ObjectCreated:Put',
        s3: {
          s3SchemaVersion: '1.0',
          bucket: { name: 'local-billing', arn: 'arn:aws:s3:::local-billing' },
          object: {
            key: encodeURIComponent(key).replaceAll('%2F', '/'),
            size: statSync(dest).size,
            eTag: version,
          },
        },
      },
    ],
  };
  const sqs = new SQSClient({
    endpoint: session.endpoints.sqs,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: JSON.stringify(event) }));
  } catch (error) {
    rmSync(dest, { force: true });
    fail(`could not queue the upload (${(error as Error).message}); is the stack running (npm start)?`);
  }
  process.stdout.write(`uploaded ${key}\n`);
  if (!args.wait) return;

  const deadline = Date.now() + args.timeoutSeconds * 1000;
  let ingestedMonths: string[] = [];
  for (;;) {
    if (Date.now() > deadline) fail(`no outcome within ${args.timeoutSeconds} s`);
    const res = await post(session.baseUrl, '/_local/warehouse/ingestion', { orgId: org, key, version });
    const record = res.body as {
      status?: string;
      rows?: number;
      months?: string[];
      error?: string;
      uploadId?: string;
      replaced?: unknown[];
      warnings?: string[];
      restorableUntil?: string;
      conformance?: ConformanceReport;
    } | null;
    if (res.status === 200 && record?.status === 'rejected') fail(`rejected: ${record.error}`);
    if (res.status === 200 && record?.status === 'succeeded') {
      process.stdout.write(
        `ingested ${record.rows} rows (billing months ${record.months?.join(', ')}), upload ${record.uploadId}\n`,
      );
      if (record.conformance)
        process.stdout.write(
          `${conformanceSummary(record.conformance)}; per requirement: GET /billing/uploads/${record.uploadId}\n`,
        );
      if (record.replaced?.length)
        process.stdout.write(`replaced ${record.replaced.length} billing source month(s) held before\n`);
      if (record.warnings?.length)
        process.stderr.write(
          `ingest: warning: this upload replaced billing data with markedly less:\n${record.warnings.map((w) => `  ${w}\n`).join('')}` +
            `  If parts of one export were uploaded one at a time, upload them together (all parts, or the CUR manifest).\n` +
            `  The replaced version is kept until ${record.restorableUntil}: POST /billing/uploads/${record.uploadId}/restore puts it back.\n`,
        );
      ingestedMonths = record.months ?? [];
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const drained = await post(session.baseUrl, '/_local/drain', {
    timeoutMs: Math.max(1000, deadline - Date.now()),
  });
  process.stdout.write(drained.status === 200 ? 'refresh done\n' : 'refresh still running\n');
  if (ingestedMonths.length) process.stdout.write(seeItLines(org, ingestedMonths).join('\n') + '\n');
}

/**
 * What to paste to see the rows just ingested: an explorer request over the file's billing months
 * (rows count on the day of their charge, which lies in its billing month), by provider. A sample
 * from another time than the demo's last three months (e.g. the bundled September 2024 one) would
 * otherwise stay out of every default view.
 */
function seeItLines(org: string, months: readonly string[]): string[] {
  const sorted = [...months].sort();
  const first = `${sorted[0]}-01`;
  const [y, m] = String(sorted.at(-1)).split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  const body = JSON.stringify({
    request: {
      period: { startDate: first, endDate: last, aggBy: 'Month' },
      queries: [{ type: 'cost', name: 'cost', groupBy: 'provider' }],
    },
  });
  return [
    `see them (cost by provider, ${first} to ${last}; $K a key of ${org}):`,
    `  curl -s -H "Authorization: Bearer $K" -H 'content-type: application/json' -d '${body}' $BASE/queries/explorer`,
  ];
}

main().catch((error) => fail((error as Error).message));
