import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm start` as a user meets it: a second stack in its own state folder. Data survives a
 * restart, `--fresh` wipes it, SIGTERM stops every child process (DynamoDB Local's java too),
 * and the local-only control routes answer.
 */
const root = resolve(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  session: { baseUrl: string; apiKeys: { admin: string }; pid: number };
}

async function start(stateDir: string, fresh: boolean): Promise<Started> {
  rmSync(join(stateDir, 'session.json'), { force: true });
  const args = [
    '--import',
    'tsx',
    join(root, 'infra/local/start.ts'),
    '--port',
    '0',
    '--state-dir',
    stateDir,
    '--no-ticker',
    '--quiet',
  ];
  if (fresh) args.push('--fresh');
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  const file = join(stateDir, 'session.json');
  const deadline = Date.now() + 90_000;
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`stack exited ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('stack did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, session: JSON.parse(readFileSync(file, 'utf8')) };
}

async function stop(s: Started): Promise<number | null> {
  return new Promise((res) => {
    s.child.once('exit', (code) => res(code));
    s.child.kill('SIGTERM');
  });
}

function javaProcessesFor(stateDir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes('DynamoDBLocal.jar') && line.includes(stateDir));
}

const call = async (s: Started, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${s.session.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.session.apiKeys.admin}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('npm start lifecycle', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'cms-lifecycle-'));
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it('keeps data across a restart, stops its children on SIGTERM, and wipes on --fresh', async () => {
    const first = await start(stateDir, true);
    const created = await call(first, 'POST', '/reports', { name: 'survives restarts' });
    expect(created.status).toBe(201);
    const firstKey = first.session.apiKeys.admin;

    expect(javaProcessesFor(stateDir)).toHaveLength(1);
    expect(await stop(first)).toBe(0);
    expect(javaProcessesFor(stateDir)).toHaveLength(0);

    const second = await start(stateDir, false);
    expect(second.session.apiKeys.admin).toBe(firstKey);
    const read = await call(second, 'GET', `/reports/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('survives restarts');

    const tick = await call(second, 'POST', '/_local/tick', { schedule: 'no-such-schedule' });
    expect(tick.status).toBe(400);
    const drain = await call(second, 'POST', '/_local/drain', {});
    expect(drain).toEqual({ status: 200, body: { drained: true } });
    await stop(second);

    const third = await start(stateDir, true);
    const gone = await fetch(`${third.session.baseUrl}/reports/${created.body.id}`, {
      headers: { authorization: `Bearer ${third.session.apiKeys.admin}` },
    });
    expect(gone.status).toBe(404);
    await stop(third);
    expect(javaProcessesFor(stateDir)).toHaveLength(0);
  }, 240_000);
});
