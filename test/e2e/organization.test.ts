import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateSigningKey, mintToken } from '../../infra/local/idp';
import type { OrganizationView } from '../../shared/domain/admin/organization';
import { type CsvRow, close, FOCUS_SAMPLE, num, parseCsv, tagsOf } from '../integration/warehouse/support';
import { ingestCli, orgCli } from '../support/cli';
import { api, runId, session } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';

/**
 * The organisation's settings (issue 25 §4: name and time zone of an organisation that registered
 * itself by signing in; §1: its reporting currency): GET and PATCH /organization,
 * `npm run org -- update`, the dimension figures recomputed in a new reporting currency, and the
 * 422 of the candidates when a rate is missing.
 */
const s = () => session();
const run = runId();

const ingest = ingestCli;

async function tokenOf(org: string, role: 'admin' | 'member', user = `user_${role}_${run}`) {
  return mintToken(await loadOrCreateSigningKey(s().stateDir), { userId: user, orgId: org, role });
}

/** The FOCUS sample with its September 2024 charges moved to `month`; `edit` changes each data line. */
function sampleIn(month: string, next: string, after: string, edit: (line: string, i: number) => string) {
  const text = readFileSync(FOCUS_SAMPLE, 'utf8')
    .replace(/2024-09-(\d\d)/g, (_, d) => `${month}-${d}`)
    .replace(/2024-10-(\d\d)/g, (_, d) => `${next}-${d}`)
    .replace(/2024-11-(\d\d)/g, (_, d) => `${after}-${d}`);
  return text
    .split('\n')
    .map((l, i) => (i > 0 && l ? edit(l, i) : l))
    .join('\n');
}

/** Reads once no refresh of the organisation runs (drains the queues first). */
async function settled(token: string) {
  for (let attempt = 1; ; attempt++) {
    expect((await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } })).status).toBe(200);
    const res = await api<{ state: string; currency?: string }>('GET', '/dimensions/status', { token });
    if (res.body.state !== 'running' || attempt >= 20) return res;
  }
}

describe('GET and PATCH /organization', () => {
  const org = `org_settings_${run}`;
  let admin = '';
  let member = '';

  beforeAll(async () => {
    admin = await tokenOf(org, 'admin');
    member = await tokenOf(org, 'member');
  });

  it('answers 409 before the organisation is registered, then its defaults after the first admin sign-in', async () => {
    const before = await api('GET', '/organization', { token: member });
    expect(before).toMatchObject({ status: 409, body: { error: 'ORGANIZATION_NOT_REGISTERED' } });
    const res = await api<OrganizationView>('GET', '/organization', { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: org,
      name: org,
      timezone: 'UTC',
      reportingCurrency: 'USD',
      registeredVia: 'jwt',
      updatedAt: null,
    });
    expect((await api('GET', '/organization', { token: member })).status).toBe(200);
  });

  it('lets an admin set the name, time zone and reporting currency, keeping what is not sent', async () => {
    const res = await api<OrganizationView>('PATCH', '/organization', {
      token: admin,
      body: { name: '  Settings Inc. ', timezone: 'Europe/Paris' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Settings Inc.',
      timezone: 'Europe/Paris',
      reportingCurrency: 'USD',
    });
    expect(res.body.updatedAt).not.toBeNull();
    const cur = await api<OrganizationView>('PATCH', '/organization', {
      token: admin,
      body: { reportingCurrency: 'GBP' },
    });
    expect(cur.body).toMatchObject({
      name: 'Settings Inc.',
      timezone: 'Europe/Paris',
      reportingCurrency: 'GBP',
    });
    const read = await api<OrganizationView>('GET', '/organization', { token: member });
    expect(read.body).toEqual(cur.body);
    // The operator command shows the same record.
    expect(JSON.parse(orgCli('show', org).stdout)).toMatchObject({
      name: 'Settings Inc.',
      timezone: 'Europe/Paris',
      reportingCurrency: 'GBP',
    });
  });

  it('refuses members (403) and bad values (400 naming the field), changing nothing', async () => {
    const before = (await api<OrganizationView>('GET', '/organization', { token: admin })).body;
    const denied = await api('PATCH', '/organization', { token: member, body: { name: 'x' } });
    expect(denied).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ timezone: 'Mars/Olympus' }, /timezone/],
      [{ reportingCurrency: 'CHF' }, /reportingCurrency/],
      [{ name: '   ' }, /name/],
      [{}, /at least one/],
      [{ id: 'org_other' }, /id/],
    ];
    for (const [body, message] of cases) {
      const res = await api<{ error: string }>('PATCH', '/organization', { token: admin, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect((await api<OrganizationView>('GET', '/organization', { token: admin })).body).toEqual(before);
  });

  it('npm run org -- update changes the settings given, and refuses an unknown organisation or bad values', () => {
    const out = orgCli('update', org, '--timezone', 'America/New_York', '--reporting-currency', 'eur');
    expect(out.stderr).toContain(`updated ${org}`);
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      id: org,
      name: 'Settings Inc.',
      timezone: 'America/New_York',
      reportingCurrency: 'EUR',
    });
    expect(orgCli('update', `org_nobody_${run}`, '--name', 'x').status).toBe(1);
    const bad = orgCli('update', org, '--reporting-currency', 'XYZ');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--reporting-currency');
    expect(orgCli('update', org).status).toBe(2);
  });
});

describe('the reporting currency of the dimension figures', () => {
  const now = new Date();
  const ym = (d: Date) => d.toISOString().slice(0, 7);
  const month = (shift: number) => ym(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + shift, 1)));

  it('recomputes the candidates in a new reporting currency, converted per charge day', async () => {
    const org = `org_repcur_${run}`;
    const admin = await tokenOf(org, 'admin');
    expect((await api('GET', '/organization', { token: admin })).status).toBe(200);
    // Two months ago, so that every day has a seeded rate; every third line billed in EUR.
    const text = sampleIn(month(-2), month(-1), month(0), (l, i) =>
      i % 3 === 0 ? l.replace(',"USD",', ',"EUR",') : l,
    );
    const file = join(s().stateDir, `repcur-${run}.csv`);
    writeFileSync(file, text);
    expect(ingest(org, file).status).toBe(0);
    const rows: CsvRow[] = parseCsv(text);
    const usdPerEur = seedUsdPerEur();
    const rate = (d: string) => rateOn(usdPerEur, d);
    const inEur = (r: CsvRow) =>
      r.BillingCurrency === 'EUR'
        ? num(r.BilledCost)
        : num(r.BilledCost) / rate(String(r.ChargePeriodStart).slice(0, 10));
    const tagged = rows.filter((r) => tagsOf(r).business_unit !== undefined);
    const expected = tagged.reduce((a, r) => a + inEur(r), 0);

    const patched = await api<OrganizationView>('PATCH', '/organization', {
      token: admin,
      body: { reportingCurrency: 'EUR' },
    });
    expect(patched.body.reportingCurrency).toBe('EUR');
    const status = await settled(admin);
    expect(status.body).toMatchObject({ state: 'succeeded', currency: 'EUR' });
    const res = await api<{ key: string; total_cost_key_present: number }[]>(
      'GET',
      '/dimensions/candidates',
      {
        token: admin,
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-dimensions-currency')).toBe('EUR');
    const bu = res.body.find((c) => c.key === 'business_unit')!;
    expect(close(bu.total_cost_key_present, expected, 1e-9)).toBe(true);
  }, 180_000);

  it('answers the candidates with a 422 naming the missing rate, never a 1:1 sum', async () => {
    const org = `org_norate_${run}`;
    const admin = await tokenOf(org, 'admin');
    expect((await api('GET', '/organization', { token: admin })).status).toBe(200);
    // June 2019: no rate is loaded for it (the seed's rates start with the demo's months).
    const text = sampleIn('2019-06', '2019-07', '2019-08', (l, i) =>
      i % 2 === 0 ? l.replace(',"USD",', ',"EUR",') : l,
    );
    const file = join(s().stateDir, `norate-${run}.csv`);
    writeFileSync(file, text);
    ingest(org, file);
    const status = await settled(admin);
    expect(status.body.state).toBe('failed');
    const res = await api<{ error: string }>('GET', '/dimensions/candidates', { token: admin });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^No exchange rate for EUR to USD on 2019-06-\d\d/);
  }, 180_000);
});
