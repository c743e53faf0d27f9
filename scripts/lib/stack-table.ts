import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How the command-line tools that write the table (`keys`, `fx`, the migrations) find it: the
 * running local stack's `session.json`, unless `DYNAMODB_ENDPOINT` or `TABLE_NAME` already name one.
 * The shared DynamoDB client reads the configuration on first use, so this runs before any import
 * of repository code.
 */
export interface TableSession {
  endpoints?: { dynamodb?: string };
  tableName?: string;
}

/** Points the shared DynamoDB client at the session's table (local credentials for DynamoDB Local). */
export function pointAtTable(session: TableSession | undefined, env: NodeJS.ProcessEnv = process.env): void {
  if (!env.DYNAMODB_ENDPOINT && session?.endpoints?.dynamodb)
    env.DYNAMODB_ENDPOINT = session.endpoints.dynamodb;
  if (env.DYNAMODB_ENDPOINT) {
    env.AWS_ACCESS_KEY_ID ??= 'local';
    env.AWS_SECRET_ACCESS_KEY ??= 'local';
    env.AWS_REGION ??= 'us-east-1';
  }
  if (!env.TABLE_NAME && session?.tableName) env.TABLE_NAME = session.tableName;
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
}

/** The session file of a state folder, `<state-dir>/session.json`. */
export function sessionFile(stateDir: string): string {
  return join(stateDir, 'session.json');
}

/** The running local stack's session, or undefined when the file is missing or unreadable. */
export function readStackSession<T extends TableSession = TableSession>(stateDir: string): T | undefined {
  const file = sessionFile(stateDir);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The one sentence every tool says when it finds no stack to write to. */
export function noStackMessage(
  stateDir: string,
  otherwise = 'or set DYNAMODB_ENDPOINT or TABLE_NAME to use another table',
): string {
  return `no running stack found (${sessionFile(stateDir)} is missing): start it with npm start, ${otherwise}`;
}
