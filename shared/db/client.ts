import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config, emulatedClientConfig } from '../config';

let doc: DynamoDBDocumentClient | undefined;

/** The process-wide DocumentClient; created on first use so cold starts pay only when needed. */
export function db(): DynamoDBDocumentClient {
  if (!doc) {
    const client = new DynamoDBClient(emulatedClientConfig(config().dynamoEndpoint));
    doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return doc;
}

export function tableName(): string {
  return config().tableName;
}

/** For tests and the local runtime, which point the client at a fresh endpoint. */
export function resetDb(): void {
  doc = undefined;
}

export function isConditionalCheckFailed(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === 'ConditionalCheckFailedException';
}

export function isTransactionCanceled(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'TransactionCanceledException';
}

/** The cancellation reasons of a failed transaction, e.g. ['None', 'ConditionalCheckFailed']. */
export function cancellationCodes(error: unknown): string[] {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] } | null)?.CancellationReasons ?? [];
  return reasons.map((r) => r.Code ?? 'None');
}

/** Base64url cursor for paginated queries. */
export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

export function decodeCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  return undefined;
}
