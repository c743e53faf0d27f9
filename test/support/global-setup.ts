import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Starts the local stack (`infra/local/start.ts`) exactly as `npm start` does, on free ports and
 * a throwaway state folder, and hands its session to the test workers through the environment.
 */
declare global {
  var __LOCAL_STACK__: ChildProcess | undefined;
}

export default async function globalSetup(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'cms-test-'));
  const root = resolve(__dirname, '..', '..');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'infra/local/start.ts'),
      '--fresh',
      '--port',
      '0',
      '--state-dir',
      stateDir,
      '--no-ticker',
      '--exit-with-stdin',
      '--quiet',
    ],
    {
      cwd: root,
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    },
  );
  globalThis.__LOCAL_STACK__ = child;
  const sessionFile = join(stateDir, 'session.json');
  const deadline = Date.now() + 120_000;
  while (!existsSync(sessionFile)) {
    if (child.exitCode !== null) throw new Error(`local stack exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('local stack did not start within 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const session = JSON.parse(readFileSync(sessionFile, 'utf8')) as {
    endpoints: { dynamodb: string; sqs: string; ses: string; capture: string };
    queues: Record<string, { url: string; dlqUrl: string }>;
  };
  process.env.TEST_SESSION_FILE = sessionFile;
  process.env.TEST_STATE_DIR = stateDir;
  process.env.DYNAMODB_ENDPOINT = session.endpoints.dynamodb;
  process.env.SQS_ENDPOINT = session.endpoints.sqs;
  process.env.SES_ENDPOINT = session.endpoints.ses;
  process.env.CAPTURE_URL = session.endpoints.capture;
  process.env.SLACK_API_BASE_URL = `${session.endpoints.capture}/slack/api`;
  process.env.TABLE_NAME = 'cost-management';
  for (const [name, q] of Object.entries(session.queues)) {
    process.env[`QUEUE_URL_${name.toUpperCase().replaceAll('-', '_')}`] = q.url;
  }
}
