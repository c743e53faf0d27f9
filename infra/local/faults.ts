import { connect, createServer, type Server, type Socket } from 'node:net';
import { type Emulator, startDynamoLocal } from './emulators';

/**
 * Fault injection for the reliability tests (`npm start -- --faults`, `POST /_local/faults`): takes
 * a dependency of the running stack down and brings it back, to show that nothing hangs and no
 * message is lost across an outage.
 *
 * - `dynamodb`: DynamoDB Local's JVM is killed (SIGKILL, no shutdown) and later started again on
 *   the same port and data folder, as after a crash.
 * - `sqs`: fauxqs keeps its queues in this process's memory, so killing it would also destroy
 *   every stored message, which SQS (replicated and durable) never does. The outage is made by a
 *   TCP proxy in front of it instead: every open connection is reset and new ones are refused
 *   until it is brought back; the queues' contents survive, as SQS's would.
 */

export interface OutageProxy {
  endpoint: string;
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

/** A TCP proxy on a free loopback port that forwards to `target` (`http://host:port`). */
export async function startOutageProxy(target: string): Promise<OutageProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const srv = createServer((client) => {
        const upstream = connect(Number(targetPort), hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => {
        const address = srv.address();
        port = typeof address === 'object' && address ? address.port : port;
        server = srv;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      const srv = server;
      server = undefined;
      for (const s of sockets) s.destroy();
      if (!srv) return resolve();
      srv.close(() => resolve());
    });
  await listen();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    down,
    up: async () => {
      if (!server) await listen();
    },
    stop: down,
  };
}

export type FaultService = 'sqs' | 'dynamodb';

/** What `POST /_local/faults` acts on. */
export interface FaultTargets {
  sqs: OutageProxy;
  /** The running DynamoDB Local (replaced when brought back) and its data folder. */
  dynamo: Emulator;
  dynamoDbPath: string;
}

export interface FaultControl {
  /** `{service, state: 'down' | 'up'}` → 200 `{service, state}`, or 400 `{error}`. */
  handle(body: unknown): Promise<{ status: number; body: unknown }>;
  /** Stops the DynamoDB Local started by a restart, if any. */
  stop(): Promise<void>;
}

export function faultControl(targets: FaultTargets): FaultControl {
  let dynamo: Emulator | undefined = targets.dynamo;
  let restarted: Emulator | undefined;
  const port = Number(new URL(targets.dynamo.endpoint).port);
  return {
    async handle(body) {
      const b = (body ?? {}) as { service?: unknown; state?: unknown };
      if ((b.service !== 'sqs' && b.service !== 'dynamodb') || (b.state !== 'down' && b.state !== 'up'))
        return { status: 400, body: { error: "service must be 'sqs' or 'dynamodb', state 'down' or 'up'" } };
      if (b.service === 'sqs') await (b.state === 'down' ? targets.sqs.down() : targets.sqs.up());
      else if (b.state === 'down') {
        await dynamo?.kill?.();
        dynamo = undefined;
      } else if (!dynamo) {
        restarted = await startDynamoLocal({ dbPath: targets.dynamoDbPath, port });
        dynamo = restarted;
      }
      return { status: 200, body: { service: b.service, state: b.state } };
    },
    stop: async () => {
      await restarted?.stop();
    },
  };
}
