/**
 * The bare comparison server of the foundation benchmark: `node:http` and the DocumentClient calls
 * a request needs, with no gateway emulation, no authorizer, no middleware, no validation.
 * - any GET: one GetItem of the item ITEM_PK/ITEM_SK;
 * - PATCH /reports/{id} with `{name}`: GetItem, then a PutItem conditional on the read `version`
 *   (the DynamoDB work of the service's PATCH), for the ids whose keys PATCH_KEYS maps.
 * Also reads DYNAMODB_ENDPOINT and TABLE_NAME; prints `{"port":N}` once listening and stops when
 * its stdin closes (the benchmark that started it went away).
 */
import { createServer, type IncomingMessage } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`bench/bare/server.ts needs ${name}`);
  return value;
};

type Key = { pk: string; sk: string };

const doc = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: need('DYNAMODB_ENDPOINT'),
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }),
);
const TableName = need('TABLE_NAME');
const getKey: Key = { pk: need('ITEM_PK'), sk: need('ITEM_SK') };
const patchKeys = JSON.parse(process.env.PATCH_KEYS ?? '{}') as Record<string, Key>;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function answer(req: IncomingMessage): Promise<[number, unknown]> {
  if (req.method === 'PATCH') {
    const key = patchKeys[(req.url ?? '').split('/').pop() ?? ''];
    if (!key) return [404, { error: 'NOT_FOUND' }];
    const { name } = JSON.parse(await readBody(req)) as { name: string };
    const current = (await doc.send(new GetCommand({ TableName, Key: key }))).Item;
    if (!current) return [404, { error: 'NOT_FOUND' }];
    const next = {
      ...current,
      name,
      version: Number(current.version) + 1,
      updatedAt: new Date().toISOString(),
    };
    await doc.send(
      new PutCommand({
        TableName,
        Item: next,
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': current.version },
      }),
    );
    return [200, next];
  }
  const out = await doc.send(new GetCommand({ TableName, Key: getKey }));
  return out.Item ? [200, out.Item] : [404, { error: 'NOT_FOUND' }];
}

const server = createServer(async (req, res) => {
  let status = 500;
  let body: unknown = { error: 'INTERNAL_SERVER_ERROR' };
  try {
    [status, body] = await answer(req);
  } catch {
    // answered as a 500 below
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
