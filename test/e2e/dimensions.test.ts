import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { readSeed } from '../../infra/local/warehouse-hook';
import {
  BUILT_IN_DIMENSIONS,
  type CsvRow,
  close,
  FOCUS_SAMPLE,
  num,
  readCsv,
  sumBy,
  tagsOf,
} from '../integration/warehouse/support';
import { demoCommitmentRows } from '../support/commitment-exports';
import { api, session } from '../support/session';

interface Dimension {
  name: string;
  label: string;
  groupTitle: string;
  values: { name: string; label: string; proportionCostAllocated: number }[];
  operators: { name: string; value: string; label: string }[];
}
interface Candidate {
  key: string;
  number_values: number;
  total_cost_key_present: number;
  total_cost_key_absent: number;
  proportion_key_present: number;
  months: { month: string; cost: number }[];
  providers: string[];
  values: { value: string; cost_allocated: number }[];
  ingested: boolean;
}

const s = () => session();
const ROOT = resolve(__dirname, '..', '..');
const month = (r: CsvRow) => (r.BillingPeriodStart ?? '').slice(0, 7);

function seedRows(orgId: string): CsvRow[] {
  const org = readSeed(s().stateDir)?.orgs.find((o) => o.orgId === orgId);
  if (!org) throw new Error(`no seed for ${orgId}`);
  const rows = readCsv(join(s().stateDir, 'bucket', org.key));
  // The demo organisation also holds the generated CUR of its commitments.
  return orgId === s().orgId ? [...rows, ...demoCommitmentRows(s().stateDir)] : rows;
}

/** The candidate window the spec asks for: the last three billing months present. */
function windowOf(rows: CsvRow[]): string[] {
  return [...new Set(rows.map(month))].sort().slice(-3);
}

/** The organisation's seeded rows in the candidate window, the window's months and its total BilledCost. */
function seededWindow(orgId = s().orgId): { window: string[]; inWindow: CsvRow[]; total: number } {
  const rows = seedRows(orgId);
  const window = windowOf(rows);
  const inWindow = rows.filter((r) => window.includes(month(r)));
  return { window, inWindow, total: inWindow.reduce((sum, r) => sum + num(r.BilledCost), 0) };
}

/** Runs `npm run ingest`; without an org it must default to the session's. */
function ingestCli(
  orgId: string | undefined,
  file: string,
  sessionFile = process.env.TEST_SESSION_FILE ?? '',
) {
  return spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts/ingest.ts'),
      '--session',
      sessionFile,
      ...(orgId ? ['--org', orgId] : []),
      file,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' }, timeout: 120_000 },
  );
}

/**
 * Reads once no refresh of the organisation is running. Enrichment PUTs and DELETEs (other test
 * files, run in parallel) ask for a refresh of the demo organisation at any moment, and while one
 * runs the status is honestly `running`; so drain the queues and read again until it is not.
 */
async function settled<T>(
  path: string,
  token: string,
  state: (res: { body: T; headers: Headers }) => string | null,
) {
  for (let attempt = 1; ; attempt++) {
    expect((await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } })).status).toBe(200);
    const res = await api<T>('GET', path, { token });
    if (state(res) !== 'running' || attempt >= 20) return res;
  }
}
const refreshHeader = (res: { headers: Headers }) => res.headers.get('x-dimensions-refresh-status');

describe('GET /dimensions', () => {
  it('serves the cached list with its refresh status and time', async () => {
    const res = await settled<Dimension[]>('/dimensions', s().apiKeys.member, refreshHeader);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-dimensions-refresh-status')).toBe('succeeded');
    expect(Number.isNaN(Date.parse(res.headers.get('x-dimensions-refreshed-at') ?? ''))).toBe(false);
    const names = res.body.map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(BUILT_IN_DIMENSIONS));
    for (const d of res.body) {
      expect(Object.keys(d).sort()).toEqual(
        ['description', 'groupTitle', 'label', 'name', 'operators', 'valueEditorType', 'values'].sort(),
      );
      expect(d.operators.length).toBeGreaterThan(0);
    }
  });

  it('has provider proportions equal to plain sums over the seeded CSV (last three billing months)', async () => {
    const { window, inWindow, total } = seededWindow();
    const byProvider = sumBy(
      inWindow,
      (r) => r.ProviderName,
      (r) => num(r.BilledCost),
    );
    const res = await api<Dimension[]>('GET', '/dimensions', { token: s().apiKeys.member });
    const provider = res.body.find((d) => d.name === 'provider')!;
    expect(provider.values.map((v) => v.name).sort()).toEqual([...byProvider.keys()].sort());
    for (const v of provider.values)
      expect(close(v.proportionCostAllocated, (byProvider.get(v.name) ?? 0) / total)).toBe(true);
    const status = await settled<{ state: string; months: string[] }>(
      '/dimensions/status',
      s().apiKeys.member,
      (res) => res.body.state,
    );
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ state: 'succeeded', months: window });
  });
});

describe('GET /dimensions/candidates', () => {
  it("computes the second organisation's candidates as plain sums over its seeded CSV", async () => {
    const { window, inWindow, total } = seededWindow(s().otherOrgId);
    const res = await api<Candidate[]>('GET', '/dimensions/candidates', { token: s().apiKeys.outsider });
    expect(res.status).toBe(200);
    const keys = [...new Set(inWindow.flatMap((r) => Object.keys(tagsOf(r))))].sort();
    expect(res.body.map((c) => c.key).sort()).toEqual(keys);
    for (const c of res.body) {
      const withKey = inWindow.filter((r) => tagsOf(r)[c.key] !== undefined);
      const present = withKey.reduce((sum, r) => sum + num(r.BilledCost), 0);
      expect(close(c.total_cost_key_present, present)).toBe(true);
      expect(close(c.total_cost_key_absent, total - present)).toBe(true);
      expect(c.number_values).toBe(new Set(withKey.map((r) => tagsOf(r)[c.key])).size);
      expect(c.providers).toEqual([...new Set(withKey.map((r) => r.ProviderName as string))].sort());
      const perMonth = sumBy(withKey, month, (r) => num(r.BilledCost));
      expect(c.months.map((m) => m.month)).toEqual(window);
      for (const m of c.months) expect(close(m.cost, perMonth.get(m.month) ?? 0)).toBe(true);
      const byValue = sumBy(
        withKey,
        (r) => tagsOf(r)[c.key],
        (r) => num(r.BilledCost),
      );
      for (const v of c.values)
        expect(close(v.cost_allocated, byValue.get(v.value) ?? Number.NaN)).toBe(true);
    }
    expect(res.body.map((c) => c.key)).toContain('acme-division');
  });

  it("never shows one organisation's keys or values to another", async () => {
    const demo = await api<Candidate[]>('GET', '/dimensions/candidates', { token: s().apiKeys.member });
    expect(demo.status).toBe(200);
    expect(demo.body.map((c) => c.key)).not.toContain('acme-division');
    const demoDims = await api<Dimension[]>('GET', '/dimensions', { token: s().apiKeys.admin });
    const acmeDims = await api<Dimension[]>('GET', '/dimensions', { token: s().apiKeys.outsider });
    const accounts = (list: Dimension[]) =>
      list.find((d) => d.name === 'billing_account')?.values.map((v) => v.name) ?? [];
    expect(accounts(acmeDims.body).every((a) => a.startsWith('2000'))).toBe(true);
    expect(accounts(demoDims.body).some((a) => a.startsWith('2000'))).toBe(false);
  });
});

describe('npm run ingest against the running stack', () => {
  it('ingests through the billing-ingest queue and the refresh it triggers, without a restart', async () => {
    const before = await api<{ lastSucceededAt: string }>('GET', '/dimensions/status', {
      token: s().apiKeys.member,
    });
    // No --org: the session's organisation (org_demo) is the default.
    const out = ingestCli(undefined, FOCUS_SAMPLE);
    expect(out.stderr).not.toContain('ingest:');
    expect(out.stdout).toContain(`uploaded uploads/${s().orgId}/`);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('ingested 1000 rows (billing months 2024-09, 2024-10)');
    const after = await api<{ lastSucceededAt: string; reason: string }>('GET', '/dimensions/status', {
      token: s().apiKeys.member,
    });
    expect(after.body.lastSucceededAt > before.body.lastSucceededAt).toBe(true);
    // Units only the real sample has are now usage metrics of the demo organisation.
    const units = await api<{ consumed_unit: string }[]>('GET', '/queries/usage-metrics', {
      token: s().apiKeys.member,
    });
    const sampleUnits = new Set(readCsv(FOCUS_SAMPLE).map((r) => r.ConsumedUnit));
    expect(units.body.map((u) => u.consumed_unit)).toEqual(expect.arrayContaining(['ACU-Hours', 'Alarms']));
    expect(sampleUnits.has('ACU-Hours')).toBe(true);
    const acme = await api<{ consumed_unit: string }[]>('GET', '/queries/usage-metrics', {
      token: s().apiKeys.outsider,
    });
    expect(acme.body.map((u) => u.consumed_unit)).not.toContain('ACU-Hours');
  });

  it('says a stopped stack is not running, without a stack trace, and copies nothing', async () => {
    const fs = await import('node:fs');
    const dir = fs.mkdtempSync(join(s().stateDir, 'stopped-'));
    const sessionFile = join(dir, 'session.json');
    const live = JSON.parse(fs.readFileSync(process.env.TEST_SESSION_FILE ?? '', 'utf8'));
    // A session left by a stack that has stopped: a port that was free a moment ago.
    const net = await import('node:net');
    const server = net.createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    await new Promise((done) => server.close(done));
    const baseUrl = `http://127.0.0.1:${port}`;
    fs.writeFileSync(sessionFile, JSON.stringify({ ...live, baseUrl, stateDir: dir }));
    const out = ingestCli(undefined, FOCUS_SAMPLE, sessionFile);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(`ingest: the stack at ${baseUrl} does not answer (ECONNREFUSED)`);
    expect(out.stderr).toContain('is it running (npm start)?');
    expect(out.stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(join(dir, 'bucket'))).toBe(false);
  });

  it('reports a malformed file with its row and column and exits 1', async () => {
    const bad = join(s().stateDir, 'bad-upload.csv');
    const lines = (await import('node:fs')).readFileSync(FOCUS_SAMPLE, 'utf8').split('\n');
    lines[37] = (lines[37] as string).replace(/^NULL,[^,]+,/, 'NULL,"12,5x",');
    (await import('node:fs')).writeFileSync(bad, lines.join('\n'));
    const out = ingestCli(s().orgId, bad);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('rejected: Row 37 (line 38), column BilledCost: "12,5x" is not a number');
  });
});

describe('POST /dimensions/publish', () => {
  const admin = () => s().apiKeys.admin;

  it('is for admins only', async () => {
    const res = await api('POST', '/dimensions/publish', {
      token: s().apiKeys.member,
      body: { scope: 'all' },
    });
    expect(res.status).toBe(403);
  });

  it('answers 400 {ok:false, errors} for a request invalid as a whole, and promotes nothing', async () => {
    const labelsBefore = await api('GET', '/dimensions/labels', { token: admin() });
    const badScope = await api('POST', '/dimensions/publish', {
      token: admin(),
      body: { scope: 'everything', labels: [] },
    });
    expect(badScope.status).toBe(400);
    expect(badScope.body).toEqual({
      ok: false,
      errors: [{ kind: 'request', message: 'scope: must be one of all, labels, vdims' }],
    });
    const badLabels = await api<{ ok: boolean; errors: { kind: string; message: string }[] }>(
      'POST',
      '/dimensions/publish',
      {
        token: admin(),
        body: { scope: 'labels', labels: [{ name: 'x', columnsMerged: 'env' }] },
      },
    );
    expect(badLabels.status).toBe(400);
    expect(badLabels.body.ok).toBe(false);
    expect(badLabels.body.errors[0]?.message).toMatch(/^labels\.0\.columnsMerged: /);
    const mixed = await api('POST', '/dimensions/publish', {
      token: admin(),
      body: {
        scope: 'vdims',
        labels: [{ name: 'x', columnsMerged: [{ name: 'team', type: 'label' }], maps: [] }],
      },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body).toMatchObject({ ok: false, errors: [{ kind: 'request' }] });
    expect((await api('GET', '/dimensions/labels', { token: admin() })).body).toEqual(labelsBefore.body);
  });

  it('answers 400 {ok:false, errors} to a body that is missing, malformed or not an object, and leaves a pending draft pending', async () => {
    const draft = await api<{ id: string; pending: boolean }>('POST', '/dimensions/vdims', {
      token: admin(),
      body: {
        name: 'e2e_not_an_object',
        description: '',
        rules: [
          {
            value: 'aws',
            whereClause: {
              combinator: 'and',
              rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }],
            },
          },
        ],
        defaultValue: 'other',
      },
    });
    expect(draft.status).toBe(201);
    const labelsBefore = await api('GET', '/dimensions/labels', { token: admin() });
    const json = { 'content-type': 'application/json' };
    const cases: [string, string | undefined, string][] = [
      ['an array', '[]', '(body): must be a JSON object'],
      ['a string', '"all"', '(body): must be a JSON object'],
      ['null', 'null', '(body): must be a JSON object'],
      ['malformed JSON', '{"scope":', 'Malformed JSON body'],
      ['an empty body', '', 'Request body is required'],
      ['no body', undefined, 'Request body is required'],
    ];
    for (const [name, rawBody, message] of cases) {
      const res = await api('POST', '/dimensions/publish', {
        token: admin(),
        headers: json,
        ...(rawBody !== undefined ? { rawBody } : {}),
      });
      expect({ name, status: res.status, body: res.body }).toEqual({
        name,
        status: 400,
        body: { ok: false, errors: [{ kind: 'request', message }] },
      });
    }
    const after = await api<{ pending: boolean; published: unknown }>(
      'GET',
      `/dimensions/vdims/${draft.body.id}`,
      {
        token: admin(),
      },
    );
    expect([after.body.pending, after.body.published]).toEqual([true, null]);
    expect((await api('GET', '/dimensions/labels', { token: admin() })).body).toEqual(labelsBefore.body);
    expect((await api('DELETE', `/dimensions/vdims/${draft.body.id}`, { token: admin() })).status).toBe(204);
  });

  it('publishes valid labels, lists the invalid ones, and the refresh makes them dimensions', async () => {
    const res = await api<{
      ok: boolean;
      publishedLabels: boolean;
      publishedVdimIds: string[];
      unpublished: { kind: string; name: string; errors: { kind: string; message: string }[] }[];
    }>('POST', '/dimensions/publish', {
      token: admin(),
      body: {
        scope: 'labels',
        labels: [
          {
            name: 'team_label',
            columnsMerged: [{ name: 'team', type: 'label' }],
            maps: [{ value: 'payments', to: 'Payments' }],
          },
          { name: 'ghost', columnsMerged: [{ name: 'no-such-key', type: 'label' }], maps: [] },
          { name: 'Service', columnsMerged: [{ name: 'team', type: 'label' }], maps: [] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, publishedLabels: true, publishedVdimIds: [] });
    expect(res.body.unpublished.map((u) => [u.kind, u.name, u.errors.map((e) => e.kind)])).toEqual([
      ['label', 'ghost', ['unknown_source']],
      ['label', 'Service', ['clash']],
    ]);
    const drained = await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } });
    expect(drained.status).toBe(200);

    const { inWindow, total } = seededWindow();
    const expected = sumBy(
      inWindow,
      (r) => {
        const team = tagsOf(r).team;
        return team === 'payments' ? 'Payments' : team;
      },
      (r) => num(r.BilledCost),
    );
    const dims = await api<Dimension[]>('GET', '/dimensions', { token: s().apiKeys.member });
    const label = dims.body.find((d) => d.name === 'team_label');
    expect(label).toMatchObject({ label: 'team_label', groupTitle: 'Labels' });
    expect(label?.values.map((v) => v.name).sort()).toEqual([...expected.keys()].sort());
    for (const v of label?.values ?? [])
      expect(close(v.proportionCostAllocated, (expected.get(v.name) ?? 0) / total)).toBe(true);
    const candidates = await api<Candidate[]>('GET', '/dimensions/candidates', { token: s().apiKeys.member });
    expect(candidates.body.find((c) => c.key === 'team')?.ingested).toBe(true);
    // The other organisation has no such label.
    const acme = await api<Dimension[]>('GET', '/dimensions', { token: s().apiKeys.outsider });
    expect(acme.body.map((d) => d.name)).not.toContain('team_label');
  });
});

describe('virtual-dimension drafts', () => {
  const admin = () => s().apiKeys.admin;
  const body = {
    name: 'e2e_tier',
    description: 'Big spenders',
    rules: [
      {
        value: 'cloud-a',
        whereClause: { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] },
      },
    ],
    defaultValue: 'other',
  };

  it('creates, lists, reads, updates and deletes a draft; members read; other orgs see nothing', async () => {
    const created = await api<{ id: string; pending: boolean; published: unknown; version: number }>(
      'POST',
      '/dimensions/vdims',
      {
        token: admin(),
        body,
      },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      ...body,
      pending: true,
      published: null,
      pendingDelete: false,
      version: 1,
    });
    const id = created.body.id;
    expect((await api('POST', '/dimensions/vdims', { token: s().apiKeys.member, body })).status).toBe(403);
    const list = await api<{ items: { id: string }[]; nextCursor: string | null }>(
      'GET',
      '/dimensions/vdims?limit=100',
      { token: s().apiKeys.member },
    );
    expect(list.status).toBe(200);
    expect(list.body.items.map((v) => v.id)).toContain(id);
    expect((await api('GET', `/dimensions/vdims/${id}`, { token: s().apiKeys.outsider })).status).toBe(404);
    const updated = await api('PUT', `/dimensions/vdims/${id}`, {
      token: admin(),
      body: { ...body, defaultValue: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ defaultValue: null, version: 2, pending: true });
    const invalid = await api('PUT', `/dimensions/vdims/${id}`, {
      token: admin(),
      body: { ...body, rules: 'x' },
    });
    expect(invalid.status).toBe(400);
    expect((await api('DELETE', `/dimensions/vdims/${id}`, { token: admin() })).status).toBe(204);
    expect((await api('GET', `/dimensions/vdims/${id}`, { token: admin() })).status).toBe(404);
  });
});

describe('virtual-dimension drafts are checked when written', () => {
  const admin = () => s().apiKeys.admin;
  const rule = (field: string) => ({
    value: 'v',
    whereClause: { combinator: 'and', rules: [{ field, operator: 'in', value: ['x'] }] },
  });
  const valid = { name: 'e2e_checked', rules: [rule('provider')], defaultValue: null };

  it('answers 400 {error} naming the field for a draft that could never publish, and writes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'bad name!', rules: [], defaultValue: 'x' }, 'name: name "bad name!" must start with'],
      [{ ...valid, name: 'region' }, 'name: "region" is a built-in dimension'],
      [{ ...valid, rules: [] }, 'rules: a virtual dimension needs at least one rule or a default value'],
      [{ ...valid, defaultValue: ' ' }, 'defaultValue: defaultValue must not be empty'],
      [
        { ...valid, rules: [{ ...rule('provider'), value: '' }] },
        'rules.0.value: rule 0 maps to an empty value',
      ],
      [{ ...valid, rules: [rule('no_such_dimension')] }, 'rules.0.whereClause: rule 0: Unknown dimension'],
    ];
    for (const [body, message] of cases) {
      const res = await api<{ error: string }>('POST', '/dimensions/vdims', { token: admin(), body });
      expect([res.status, res.body.error?.startsWith(message)]).toEqual([400, true]);
    }
    const list = await api<{ items: { name: string }[] }>('GET', '/dimensions/vdims?limit=100', {
      token: admin(),
    });
    expect(list.body.items.map((v) => v.name)).not.toContain('bad name!');
  });

  it('refuses a second draft of the same name and an update that breaks a draft', async () => {
    const first = await api<{ id: string }>('POST', '/dimensions/vdims', { token: admin(), body: valid });
    expect(first.status).toBe(201);
    const twin = await api('POST', '/dimensions/vdims', {
      token: admin(),
      body: { ...valid, name: 'E2E_checked' },
    });
    expect(twin.status).toBe(400);
    expect(twin.body).toEqual({ error: 'name: virtual dimension "E2E_checked" already exists' });
    const broken = await api('PUT', `/dimensions/vdims/${first.body.id}`, {
      token: admin(),
      body: { ...valid, name: 'bad name!' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ error: expect.stringMatching(/^name: /) });
    // Saving the draft under its own name again is not a duplicate of itself.
    const same = await api('PUT', `/dimensions/vdims/${first.body.id}`, { token: admin(), body: valid });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ name: 'e2e_checked', version: 2 });
    expect((await api('DELETE', `/dimensions/vdims/${first.body.id}`, { token: admin() })).status).toBe(204);
  });
});

describe('GET /dimensions/vdims', () => {
  it('answers {items, nextCursor} a page at a time, like every other list', async () => {
    const admin = s().apiKeys.admin;
    const ids: string[] = [];
    for (const name of ['e2e_page_a', 'e2e_page_b', 'e2e_page_c']) {
      const res = await api<{ id: string }>('POST', '/dimensions/vdims', {
        token: admin,
        body: { name, rules: [], defaultValue: name },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: { items: { id: string }[]; nextCursor: string | null } } = await api(
        'GET',
        `/dimensions/vdims?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token: s().apiKeys.member },
      );
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((v) => v.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 200);
    expect(pages).toBeGreaterThanOrEqual(2);
    // Creation order; each one once.
    expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
    expect(new Set(seen).size).toBe(seen.length);

    const other = await api('GET', `/dimensions/vdims?limit=1`, { token: s().apiKeys.outsider });
    expect(other.body).toEqual({ items: [], nextCursor: null });
    const bad = await api('GET', '/dimensions/vdims?limit=0', { token: admin });
    expect(bad.status).toBe(400);
    const forged = await api('GET', '/dimensions/vdims?cursor=bm90LWEtY3Vyc29y', { token: admin });
    expect([forged.status, forged.body]).toEqual([400, { error: 'Invalid cursor' }]);
    for (const id of ids)
      expect((await api('DELETE', `/dimensions/vdims/${id}`, { token: admin })).status).toBe(204);
  });
});
