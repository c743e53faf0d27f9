import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of the bundle-size and import-time benchmarks: the least a Lambda that reads one
 * DynamoDB item can be. One DocumentClient, created at module scope as the AWS examples do, and
 * one GetItem. Bundled with the same esbuild options as every function of the service.
 */
const doc = DynamoDBDocumentClient.from(
  new DynamoDBClient(process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {}),
);

interface Event {
  pathParameters?: { pk?: string; sk?: string };
}

export async function handler(event: Event): Promise<{ statusCode: number; body: string }> {
  const res = await doc.send(
    new GetCommand({
      TableName: process.env.TABLE_NAME,
      Key: { pk: event.pathParameters?.pk, sk: event.pathParameters?.sk },
    }),
  );
  return { statusCode: res.Item ? 200 : 404, body: JSON.stringify(res.Item ?? { error: 'NOT_FOUND' }) };
}
