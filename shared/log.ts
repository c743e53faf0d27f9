/**
 * Structured JSON logs on stdout/stderr (CloudWatch reads them as-is). Error objects are reduced to
 * name, message and stack here, in the log only: responses never carry them.
 *
 * The level is read from LOG_LEVEL once, at the first line written (debug, info (default), warn,
 * error or silent). Every line written while a Lambda invocation runs carries its ids: wrap the
 * handler with `withInvocationLogContext` (the HTTP middleware chain does; so must every worker), or
 * any block with `withLogContext`. The context follows the async calls of the request
 * (AsyncLocalStorage), so concurrent requests of the local stack, which share one process, keep their
 * own ids.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Fields = Record<string, unknown>;

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

let threshold: number | undefined;

function minimumLevel(): number {
  if (threshold === undefined) {
    const name = (process.env.LOG_LEVEL ?? '').toLowerCase();
    threshold = name in LEVELS ? LEVELS[name as keyof typeof LEVELS] : LEVELS.info;
  }
  return threshold;
}

/** Reads LOG_LEVEL again at the next line (for tests and tools that change it after a first line). */
export function resetLogConfig(): void {
  threshold = undefined;
}

const context = new AsyncLocalStorage<Fields>();

/** Runs `fn` with `fields` added to every line it logs, directly or through the calls it awaits. */
export function withLogContext<T>(fields: Fields, fn: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, fn);
}

/**
 * The ids of one invocation: `awsRequestId` (the Lambda's, or the local runtime's stand-in) and,
 * for HTTP events, `apiRequestId` (API Gateway's request id; locally the local gateway's).
 */
export function invocationIds(event: unknown, lambdaContext: unknown): Fields {
  const ids: Fields = {};
  const awsRequestId = (lambdaContext as { awsRequestId?: unknown } | null | undefined)?.awsRequestId;
  if (typeof awsRequestId === 'string' && awsRequestId) ids.awsRequestId = awsRequestId;
  const apiRequestId = (event as { requestContext?: { requestId?: unknown } } | null | undefined)
    ?.requestContext?.requestId;
  if (typeof apiRequestId === 'string' && apiRequestId) ids.apiRequestId = apiRequestId;
  return ids;
}

/** Wraps a Lambda handler so that every line logged during an invocation carries its ids. */
export function withInvocationLogContext<E, C, R>(
  handler: (event: E, lambdaContext: C) => Promise<R>,
): (event: E, lambdaContext?: C) => Promise<R> {
  return (event, lambdaContext) =>
    withLogContext(invocationIds(event, lambdaContext), () => handler(event, lambdaContext as C));
}

function serialise(fields: Fields): Fields {
  const out: Fields = {};
  for (const [k, val] of Object.entries(fields)) {
    out[k] = val instanceof Error ? { name: val.name, message: val.message, stack: val.stack } : val;
  }
  return out;
}

function write(level: Level, message: string, fields: Fields = {}): void {
  if (LEVELS[level] < minimumLevel()) return;
  const line = JSON.stringify({
    level,
    message,
    time: new Date().toISOString(),
    ...context.getStore(),
    ...serialise(fields),
  });
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields?: Fields) => write('debug', message, fields),
  info: (message: string, fields?: Fields) => write('info', message, fields),
  warn: (message: string, fields?: Fields) => write('warn', message, fields),
  error: (message: string, fields?: Fields) => write('error', message, fields),
};
