import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * The parts of `npm start` that decide whether it may start at all: its flags, the lock on the
 * state folder and the HTTP port. Each failure is a `StartError`, printed as one line (no stack)
 * before anything is left running.
 */
export class StartError extends Error {
  override name = 'StartError';
  constructor(
    message: string,
    /** Exit status: 2 for a usage mistake, 1 otherwise. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface StartArgs {
  fresh: boolean;
  port: number;
  stateDir: string;
  ticker: boolean;
  exitWithStdin: boolean;
  quiet: boolean;
  /** `POST /_local/faults` takes SQS or DynamoDB Local down and back (reliability tests). */
  faults: boolean;
}

export const START_USAGE = [
  'usage: npm start -- [--fresh] [--port N] [--state-dir DIR] [--no-ticker] [--quiet]',
  '  --fresh          wipe the state folder first (DynamoDB, DuckDB, demo keys)',
  '  --port N         HTTP port (default $PORT, else 3000; 0 picks a free one)',
  '  --state-dir DIR  state folder (default $LOCAL_STATE_DIR, else .local)',
  '  --no-ticker      do not fire schedules on their own (POST /_local/tick still does)',
  '  --quiet          do not print the banner (session.json is still written)',
  '  --faults         enable POST /_local/faults {service: sqs|dynamodb, state: down|up} (tests)',
].join('\n');

function parsePort(value: string | undefined, from: string): number {
  const port = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StartError(`${from} must be a port number from 0 to 65535 (got ${value ?? 'nothing'})`, 2);
  }
  return port;
}

/** The flags of `npm start`, or `'help'` for `--help`. */
export function parseStartArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): StartArgs | 'help' {
  const args: StartArgs = {
    fresh: false,
    port: env.PORT === undefined || env.PORT === '' ? 3000 : parsePort(env.PORT, 'PORT'),
    stateDir: resolve(env.LOCAL_STATE_DIR || '.local'),
    ticker: true,
    exitWithStdin: false,
    quiet: false,
    faults: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = String(argv[i]);
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '' || (inline === undefined && v.startsWith('--'))) {
        throw new StartError(`${flag} needs a value`, 2);
      }
      return v;
    };
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--fresh') args.fresh = true;
    else if (flag === '--no-ticker') args.ticker = false;
    else if (flag === '--exit-with-stdin') args.exitWithStdin = true;
    else if (flag === '--quiet') args.quiet = true;
    else if (flag === '--faults') args.faults = true;
    else if (flag === '--port') args.port = parsePort(value(), '--port');
    else if (flag === '--state-dir') args.stateDir = resolve(value());
    else throw new StartError(`Unknown flag ${a}`, 2);
  }
  return args;
}

const LOCK_FILE = 'start.lock';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes this process the only `npm start` using `stateDir`: two stacks on one folder would run two
 * DynamoDB Locals on the same files, fight over the DuckDB file and overwrite each other's
 * `session.json`. A lock left by a process that is gone is taken over. The check comes before
 * `--fresh` wipes the folder, so a second start cannot wipe a running stack's data. Returns the
 * release function.
 */
export function acquireStateLock(stateDir: string, opts: { fresh: boolean }): () => void {
  const file = join(stateDir, LOCK_FILE);
  if (existsSync(file)) {
    let pid = Number.NaN;
    try {
      pid = Number((JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid);
    } catch {
      // An unreadable lock is treated as stale.
    }
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new StartError(
        `another npm start (pid ${pid}) is using ${stateDir}. Stop it first, or give this one its own ` +
          `folder with --state-dir DIR (and another --port). If no stack runs, delete ${file}.`,
      );
    }
  }
  if (opts.fresh) rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
  return () => {
    try {
      const held = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown };
      if (held.pid === process.pid) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
}

function portInUse(port: number): StartError {
  return new StartError(
    `port ${port} is already in use (another npm start?). Pick another with PORT=${port + 1} npm start ` +
      `or npm start -- --port ${port + 1}.`,
  );
}

/** Fails fast, before any emulator starts, when the HTTP port is taken (0 always passes). */
export function assertPortFree(port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((res, rej) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      rej(error.code === 'EADDRINUSE' ? portInUse(port) : error),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => res()));
  });
}

/** `server.listen` as a promise that rejects (instead of crashing the process) when the port is taken. */
export function listen(server: Server, port: number): Promise<void> {
  return new Promise((res, rej) => {
    const onError = (error: NodeJS.ErrnoException) =>
      rej(error.code === 'EADDRINUSE' ? portInUse(port) : error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      res();
    });
  });
}
