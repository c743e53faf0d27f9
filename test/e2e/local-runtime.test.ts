import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm start` as a user meets it: a second stack in its own state folder. Data survives a
 * restart, `--fresh` wipes it, SIGTERM stops every child process (DynamoDB Local's java too) —
 * also when sent to `npm start` itself — a start that cannot proceed leaves nothing running, and
 * the local-only control routes answer.
 */
const root = resolve(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  session: { baseUrl: string; apiKeys: { admin: string }; pid: number };
}

const flags = (stateDir: string, port = 0) => [
  '--port',
  String(port),
  '--state-dir',
  stateDir,
  '--no-ticker',
  '--quiet',
];

/** Runs `npm start` (or start.ts directly) expecting it to refuse to start; answers its exit and stderr. */
function startExpectingFailure(
  args: string[],
  opts: { viaNpm?: boolean } = {},
): Promise<{ code: number | null; stderr: string }> {
  const child = opts.viaNpm
    ? spawn('npm', ['start', '--', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(process.execPath, ['--import', 'tsx', join(root, 'infra/local/start.ts'), ...args], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, LOG_LEVEL: 'silent' },
      });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((res) => child.once('exit', (code) => res({ code, stderr })));
}

/** `npm start` itself, as a user runs it; stopping it means signalling the npm process. */
async function startWithNpm(stateDir: string): Promise<Started> {
  rmSync(join(stateDir, 'session.json'), { force: true });
  const child = spawn('npm', ['start', '--', ...flags(stateDir)], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent', npm_config_loglevel: 'error' },
  });
  const file = join(stateDir, 'session.json');
  const deadline = Date.now() + 90_000;
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('npm start did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  spawned.add(child);
  return { child, session: JSON.parse(readFileSync(file, 'utf8')) };
}

/** Every stack a test started, so that a failing assertion cannot leave one running. */
const spawned = new Set<ChildProcess>();

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
  spawned.add(child);
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
  afterAll(async () => {
    for (const child of spawned) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const line of javaProcessesFor(stateDir))
      process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('keeps data across a restart, stops its children on SIGTERM, and wipes on --fresh', async () => {
    const first = await start(stateDir, true);
    const created = await call(first, 'POST', '/reports', { name: 'survives restarts' });
    expect(created.status).toBe(201);
    const firstKey = first.session.apiKeys.admin;

    expect(javaProcessesFor(stateDir)).toHaveLength(1);

    // A second stack on the same folder is refused before it starts anything (and --fresh does not
    // wipe the running one's data); one on a port in use fails fast and leaves nothing behind.
    const twice = await startExpectingFailure([...flags(stateDir), '--fresh']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`another npm start (pid ${first.session.pid}) is using ${stateDir}`);
    expect(javaProcessesFor(stateDir)).toHaveLength(1);
    expect((await call(first, 'GET', `/reports/${created.body.id}`)).status).toBe(200);
    const otherDir = join(stateDir, 'other');
    const port = Number(new URL(first.session.baseUrl).port);
    const busy = await startExpectingFailure(flags(otherDir, port));
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`port ${port} is already in use`);
    expect(busy.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    expect(javaProcessesFor(otherDir)).toHaveLength(0);

    expect(await stop(first)).toBe(0);
    expect(javaProcessesFor(stateDir)).toHaveLength(0);

    // A start that fails once DynamoDB Local is up (here: an unreadable IdP key) stops it again.
    const brokenDir = join(stateDir, 'broken');
    mkdirSync(brokenDir, { recursive: true });
    writeFileSync(join(brokenDir, 'idp-key.json'), '{not json');
    const broken = await startExpectingFailure(flags(brokenDir));
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('npm start failed');
    expect(javaProcessesFor(brokenDir)).toHaveLength(0);

    // Usage mistakes are told in one line with the usage, before anything starts.
    const badPort = await startExpectingFailure(['--port', 'abc', '--state-dir', brokenDir], {
      viaNpm: true,
    });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port must be a port number from 0 to 65535 (got abc)');

    // SIGTERM to `npm start` (what a supervisor, an IDE or `kill` sends) stops the whole stack.
    const viaNpm = await startWithNpm(stateDir);
    expect(viaNpm.session.apiKeys.admin).toBe(firstKey);
    expect(javaProcessesFor(stateDir)).toHaveLength(1);
    await stop(viaNpm);
    const deadline = Date.now() + 15_000;
    while (javaProcessesFor(stateDir).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(javaProcessesFor(stateDir)).toHaveLength(0);
    expect(existsSync(join(stateDir, 'start.lock'))).toBe(false);

    const second = await start(stateDir, false);
    expect(second.session.apiKeys.admin).toBe(firstKey);
    const read = await call(second, 'GET', `/reports/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('survives restarts');

    const tick = await call(second, 'POST', '/_local/tick', { schedule: 'no-such-schedule' });
    expect(tick.status).toBe(400);
    expect(tick.body.error).toMatch(/^Unknown schedule no-such-schedule: one of .*outbox-sweep/);
    const noSchedule = await call(second, 'POST', '/_local/tick', {});
    expect(noSchedule).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^schedule is required/) },
    });
    const drain = await call(second, 'POST', '/_local/drain', {});
    expect(drain).toEqual({ status: 200, body: { drained: true } });
    for (const timeoutMs of [-1, 'soon', 10_000_000]) {
      const bad = await call(second, 'POST', '/_local/drain', { timeoutMs });
      expect(bad.status).toBe(400);
    }
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
