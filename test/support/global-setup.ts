import { join } from 'node:path';
import { type SpawnedStack, spawnLocalStack } from '../../infra/local/spawn-stack';

/**
 * Starts the local stack (`infra/local/start.ts`) exactly as `npm start` does, on free ports and
 * a throwaway state folder, and hands its session to the test workers through the environment.
 */
interface StackSession {
  endpoints: { dynamodb: string; sqs: string; ses: string; capture: string };
  queues: Record<string, { url: string; dlqUrl: string }>;
  tableName: string;
}

declare global {
  var __LOCAL_STACK__: SpawnedStack<StackSession> | undefined;
}

export default async function globalSetup(): Promise<void> {
  const stack = await spawnLocalStack<StackSession>({ prefix: 'cms-test-' });
  globalThis.__LOCAL_STACK__ = stack;
  const { session, stateDir } = stack;
  process.env.TEST_SESSION_FILE = join(stateDir, 'session.json');
  process.env.TEST_STATE_DIR = stateDir;
  process.env.DYNAMODB_ENDPOINT = session.endpoints.dynamodb;
  process.env.SQS_ENDPOINT = session.endpoints.sqs;
  process.env.SES_ENDPOINT = session.endpoints.ses;
  process.env.CAPTURE_URL = session.endpoints.capture;
  process.env.SLACK_API_BASE_URL = `${session.endpoints.capture}/slack/api`;
  process.env.TABLE_NAME = session.tableName;
  for (const [name, q] of Object.entries(session.queues)) {
    process.env[`QUEUE_URL_${name.toUpperCase().replaceAll('-', '_')}`] = q.url;
  }
}
