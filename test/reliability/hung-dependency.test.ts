import { createServer, type Server, type Socket } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { resetQueueClient, sendToQueue } from '../../shared/cloud/queue';
import { resetEmailClient, sendRawEmail } from '../../shared/cloud/ses';
import { resetConfig } from '../../shared/config';
import { db, resetDb } from '../../shared/db/client';
import { errorToResult } from '../../shared/http/middlewares';

/**
 * Issue 18, item 12: a dependency that accepts connections and never answers (the hang a crash
 * can leave) must not hold a request. Every SDK client of the service (DynamoDB, SQS, SES) has a
 * bounded answer time and attempt count (shared/config.ts awsClientLimits), the call fails, and
 * the HTTP error step answers 503 `{error}`. The bound is set to 300 ms here to keep the test short.
 */
let server: Server;
const sockets = new Set<Socket>();
let endpoint = '';
let connections = 0;
const saved = { ...process.env };

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Reads the request and never answers.
    socket.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  Object.assign(process.env, {
    AWS_REQUEST_TIMEOUT_MS: '300',
    DYNAMODB_ENDPOINT: endpoint,
    SQS_ENDPOINT: endpoint,
    SES_ENDPOINT: endpoint,
    QUEUE_URL_NOTIFICATIONS: `${endpoint}/000000000000/notifications`,
  });
  resetConfig();
  resetDb();
  resetQueueClient();
  resetEmailClient();
});

afterAll(async () => {
  process.env = saved;
  resetConfig();
  resetDb();
  resetQueueClient();
  resetEmailClient();
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

const calls: [string, () => Promise<unknown>][] = [
  ['DynamoDB', () => db().send(new GetCommand({ TableName: 'cost-management', Key: { pk: 'x', sk: 'y' } }))],
  ['SQS', () => sendToQueue('notifications', '{}')],
  ['SES', () => sendRawEmail(new TextEncoder().encode('Subject: x\r\n\r\nx'))],
];

describe.each(calls)('%s that never answers', (_name, call) => {
  it('fails the call after its bounded attempts, and a route answers 503 {error}', async () => {
    connections = 0;
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'TimeoutError' });
    // Three attempts, each on a new connection after the last was given up.
    expect(connections).toBe(3);
    expect(errorToResult(error, { id: 'test' })).toEqual({
      statusCode: 503,
      body: { error: 'SERVICE_UNAVAILABLE' },
    });
  });
});
