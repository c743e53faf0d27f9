import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadOrCreateSigningKey, mintToken } from '../../infra/local/idp';
import type { Candidate, DimensionEntry } from '../../shared/model/dimensions';
import {
  AZURE_SAMPLE,
  azureDaily,
  type CsvRow,
  CUR_SAMPLE,
  close,
  curDaily,
  expectSums,
  FOCUS_SAMPLE,
  num,
  parseCsv,
  prefixed,
  readCsv,
  SAMPLES,
  sampleEdits,
  sampleVariant,
  sumBy,
  tagsOf,
} from '../integration/warehouse/support';
import { ingestCli, orgCli, script, tokenCli } from '../support/cli';
import { api, runId, session } from '../support/session';

/**
 * docs/onboarding.md, step by step, for organisations the stack has never seen: sign in (a JWT
 * from `npm run token`), the first request registers the organisation, `npm run ingest` uploads
 * the first export, then candidates, a published dimension and explorer numbers, each checked
 * against sums computed here from the uploaded file's rows.
 */
const s = () => session();
const run = runId();

interface Point {
  date: string;
  value: number | null;
}
interface Series {
  group: Record<string, string | null>;
  total: number | null;
  points: Point[];
  other?: true;
}
interface Answer {
  queries: { name: string; series: Series[]; total: number | null }[];
  currency: string | null;
}
interface Org {
  id: string;
  name: string;
  timezone: string;
  createdAt: string;
  registeredVia?: string;
  registeredBy?: string;
}

const month = (r: CsvRow) => (r.BillingPeriodStart ?? '').slice(0, 7);
const sum = (rows: CsvRow[]) => rows.reduce((a, r) => a + num(r.BilledCost), 0);
function expectClose(actual: number | null | undefined, expected: number) {
  if (!close(actual ?? Number.NaN, expected, 1e-9)) throw new Error(`got ${actual}, expected ${expected}`);
}

/** An explorer cost query named `name`, grouped by `groupBy`. */
const costQuery = (name: string, groupBy: string) => ({
  type: 'cost',
  name,
  colorIndex: 0,
  chartType: 'BAR',
  groupBy,
});

/** `POST /queries/explorer` of `queries` for the days `start` to `end` (UTC), in `aggBy` buckets. */
function explorer(
  token: string,
  start: string,
  end: string,
  aggBy: string,
  queries: ReturnType<typeof costQuery>[],
) {
  return api<Answer>('POST', '/queries/explorer', {
    token,
    body: {
      request: { period: { startDate: `${start}T00:00:00Z`, endDate: `${end}T00:00:00Z`, aggBy }, queries },
    },
  });
}

describe('onboarding a brand-new organisation (docs/onboarding.md)', () => {
  const org = `org_onb_${run}`;
  const admin = 'user_onb_admin';
  const rows = readCsv(FOCUS_SAMPLE);
  const file = () => join(s().stateDir, `first-export-${run}.csv`);
  let token = '';

  beforeAll(() => {
    copyFileSync(FOCUS_SAMPLE, file());
    token = tokenCli(admin, org, 'admin');
  });

  it('rejects an upload before the organisation exists, with the reason, in one go', () => {
    expect(orgCli('show', org).status).toBe(1);
    const out = ingestCli(org, file());
    expect(out.stdout).toContain(`uploaded uploads/${org}/`);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(`ingest: rejected: Organisation ${org} is not registered`);
    expect(out.stderr).toContain(`npm run org -- create ${org}`);
    expect(out.stderr).not.toContain('no outcome');
  });

  it("registers the organisation on its admin's first request", async () => {
    const first = await api<DimensionEntry[]>('GET', '/dimensions', { token });
    expect(first.status).toBe(200);
    const shown = orgCli('show', org);
    expect(shown.status).toBe(0);
    const stored = JSON.parse(shown.stdout) as Org;
    expect(stored).toMatchObject({
      id: org,
      name: org,
      timezone: 'UTC',
      registeredVia: 'jwt',
      registeredBy: admin,
    });
    // Later sign-ins change nothing.
    const again = tokenCli('user_onb_second_admin', org, 'admin');
    expect((await api('GET', '/dimensions', { token: again })).status).toBe(200);
    expect(JSON.parse(orgCli('show', org).stdout)).toEqual(stored);
    const listed = orgCli('list');
    expect(listed.status).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Org).id),
    ).toEqual(expect.arrayContaining([org, s().orgId, s().otherOrgId]));
  });

  let ingestOut = '';
  it('ingests the first export', () => {
    const out = ingestCli(org, file());
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const months = [...new Set(rows.map(month))].sort();
    expect(out.stdout).toContain(`ingested ${rows.length} rows (billing months ${months.join(', ')})`);
    expect(out.stdout).toContain('refresh done');
    ingestOut = out.stdout;
  });

  it('prints the query that shows what it loaded (the sample is from 2024), answering the sums of its rows', async () => {
    expect(ingestOut).toContain(`see them (cost by provider, 2024-09-01 to 2024-10-31; $K a key of ${org}):`);
    const curl = ingestOut.split('\n').find((l) => l.includes('/queries/explorer')) ?? '';
    expect(curl).toMatch(/^ {2}curl -s -H "Authorization: Bearer \$K" .* \$BASE\/queries\/explorer$/);
    const body = JSON.parse(/-d '([^']+)'/.exec(curl)?.[1] ?? 'null') as Record<string, unknown>;
    const res = await api<Answer>('POST', '/queries/explorer', { token, body });
    expect(res.status).toBe(200);
    const series = res.body.queries[0]?.series ?? [];
    const providers = [...new Set(rows.map((r) => String(r.ProviderName)))].sort();
    expect(series.map((x) => x.group.provider).sort()).toEqual(providers);
    for (const x of series)
      expectClose(x.total, sum(rows.filter((r) => r.ProviderName === x.group.provider)));
    expectClose(res.body.queries[0]?.total, sum(rows));
    // The demo's default view (the last 30 days) does not show them: hence the printed query.
    const recent = await api<Answer>('POST', '/queries/explorer', {
      token,
      body: {
        request: {
          period: { datePreset: 'TRAILING_30_DAYS', aggBy: 'Period' },
          queries: [{ type: 'cost', name: 'cost' }],
        },
      },
    });
    expect(recent.status).toBe(200);
    expect(recent.body.queries[0]?.total ?? 0).toBe(0);
  });

  it('shows the candidates of the file (last three billing months)', async () => {
    const window = [...new Set(rows.map(month))].sort().slice(-3);
    const inWindow = rows.filter((r) => window.includes(month(r)));
    const res = await api<Candidate[]>('GET', '/dimensions/candidates', { token });
    expect(res.status).toBe(200);
    const expectedKeys = new Set(inWindow.flatMap((r) => Object.keys(tagsOf(r))));
    expect(new Set(res.body.map((c) => c.key))).toEqual(expectedKeys);
    const bu = res.body.find((c) => c.key === 'business_unit');
    const tagged = inWindow.filter((r) => tagsOf(r).business_unit !== undefined);
    expectClose(bu?.total_cost_key_present, sum(tagged));
    expectClose(bu?.total_cost_key_absent, sum(inWindow) - sum(tagged));
    const byValue = sumBy(
      tagged,
      (r) => tagsOf(r).business_unit,
      (r) => num(r.BilledCost),
    );
    expect(bu?.number_values).toBe(byValue.size);
    for (const v of bu?.values ?? []) expectClose(v.cost_allocated, byValue.get(v.value) ?? Number.NaN);
    expect(bu?.ingested).toBe(false);
  });

  it('publishes a dimension from a candidate and answers explorer numbers equal to the rows', async () => {
    const published = await api<{ ok: boolean; publishedLabels: boolean }>('POST', '/dimensions/publish', {
      token,
      body: {
        scope: 'labels',
        labels: [{ name: 'unit', columnsMerged: [{ name: 'business_unit', type: 'label' }], maps: [] }],
      },
    });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ ok: true, publishedLabels: true });
    expect((await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } })).status).toBe(200);

    const dims = await api<DimensionEntry[]>('GET', '/dimensions', { token });
    const unit = dims.body.find((d) => d.name === 'unit');
    const tagged = rows.filter((r) => tagsOf(r).business_unit !== undefined);
    const byUnit = sumBy(
      tagged,
      (r) => tagsOf(r).business_unit,
      (r) => num(r.BilledCost),
    );
    // The 200 costliest values, each with its share of the window's cost (the whole file here).
    expect(unit?.values).toHaveLength(Math.min(200, byUnit.size));
    const cheapestListed = Math.min(...(unit?.values ?? []).map((v) => byUnit.get(v.name) ?? Number.NaN));
    for (const v of unit?.values ?? [])
      expectClose(v.proportionCostAllocated, (byUnit.get(v.name) ?? Number.NaN) / sum(rows));
    for (const [name, cost] of byUnit) {
      if (cost > cheapestListed) expect(unit?.values.map((v) => v.name)).toContain(name);
    }

    // The file's charges are all in one month; the explorer answers for it, by provider and by the new dimension.
    const chargeMonths = [...new Set(rows.map((r) => String(r.ChargePeriodStart).slice(0, 7)))];
    expect(chargeMonths).toHaveLength(1);
    const [y, m] = (chargeMonths[0] as string).split('-').map(Number) as [number, number];
    const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    const res = await explorer(token, `${chargeMonths[0]}-01`, last, 'Period', [
      costQuery('byProvider', 'provider'),
      costQuery('byUnit', 'unit'),
    ]);
    expect(res.status).toBe(200);
    const [byProvider, byUnitAnswer] = res.body.queries;
    expectClose(byProvider?.total, sum(rows));
    const providers = sumBy(
      rows,
      (r) => r.ProviderName,
      (r) => num(r.BilledCost),
    );
    expect(byProvider?.series.map((x) => x.group.provider).sort()).toEqual([...providers.keys()].sort());
    for (const x of byProvider?.series ?? [])
      expectClose(x.total, providers.get(String(x.group.provider)) ?? Number.NaN);
    expectClose(byUnitAnswer?.total, sum(rows));
    const unitSeries = byUnitAnswer?.series ?? [];
    expectClose(
      unitSeries.reduce((a, x) => a + (x.total ?? 0), 0),
      sum(rows),
    );
    const named = unitSeries.filter((x) => !x.other && x.group.unit !== null && x.group.unit !== undefined);
    expect(named.length).toBeGreaterThan(0);
    for (const x of named) expectClose(x.total, byUnit.get(String(x.group.unit)) ?? Number.NaN);
  });

  it("keeps the new organisation's data to itself", async () => {
    const demo = await api<DimensionEntry[]>('GET', '/dimensions', { token: s().apiKeys.admin });
    expect(demo.body.map((d) => d.name)).not.toContain('unit');
  });
});

describe('a brand-new organisation whose first exports are provider-native (CUR 1.0 and Azure EA in CAD)', () => {
  const org = `org_onb_native_${run}`;
  const cur = readCsv(join(SAMPLES, 'aws_cur_sample-anonymous-aws-export-dataset.csv'));
  const azure = readCsv(join(SAMPLES, 'azure_ea_sample-anonymous-ea-export-dataset.csv'));

  it('registers on the first admin request, ingests both files, and answers per billing currency equal to the raw cost columns', async () => {
    const token = tokenCli('user_onb_native', org, 'admin');
    expect((await api('GET', '/dimensions', { token })).status).toBe(200);
    for (const [name, rows] of [
      ['aws_cur_sample-anonymous-aws-export-dataset.csv', cur],
      ['azure_ea_sample-anonymous-ea-export-dataset.csv', azure],
    ] as const) {
      const file = join(s().stateDir, `${run}-${name}`);
      copyFileSync(join(SAMPLES, name), file);
      const out = ingestCli(org, file);
      expect(out.stderr).toBe('');
      expect(out.status).toBe(0);
      expect(out.stdout).toContain(`ingested ${rows.length} rows`);
    }
    const res = await explorer(token, '2023-09-01', '2023-11-30', 'Period', [costQuery('p', 'provider')]);
    expect(res.status).toBe(200);
    // Two billing currencies and none asked: one series per (provider, currency), no grand total.
    expect(res.body.currency).toBeNull();
    const [answer] = res.body.queries;
    expect(answer?.total).toBeNull();
    const totals = new Map(
      (answer?.series ?? []).map((x) => [`${x.group.provider}|${x.group.BillingCurrency}`, x.total]),
    );
    expect([...totals.keys()].sort()).toEqual(['AWS|USD', 'Microsoft|CAD']);
    expectClose(
      totals.get('AWS|USD'),
      cur.reduce((a, r) => a + num(r['lineItem/UnblendedCost']), 0),
    );
    expectClose(
      totals.get('Microsoft|CAD'),
      azure.reduce((a, r) => a + num(r.CostInBillingCurrency), 0),
    );
  });
});

describe('a brand-new organisation with a CUR and an Azure export of the same month (billing sources)', () => {
  const org = `org_onb_sources_${run}`;

  /** The explorer's November cost per `provider|day`, from `npm run ingest`ed files. */
  async function novemberDaily(token: string): Promise<Map<string, number>> {
    const res = await explorer(token, '2023-11-01', '2023-11-30', 'Day', [costQuery('p', 'provider')]);
    expect(res.status).toBe(200);
    const out = new Map<string, number>();
    for (const x of res.body.queries[0]?.series ?? [])
      for (const p of x.points) if (p.value) out.set(`${x.group.provider}|${p.date}`, p.value);
    return out;
  }

  it('keeps both, each equal per day to its raw file; a corrected CUR then replaces the AWS rows only', async () => {
    const token = tokenCli('user_onb_sources', org, 'admin');
    expect((await api('GET', '/dimensions', { token })).status).toBe(200);
    const cur = sampleVariant(s().stateDir, `${run}-cur.csv`, CUR_SAMPLE);
    const azure = sampleVariant(
      s().stateDir,
      `${run}-azure-nov.csv`,
      AZURE_SAMPLE,
      sampleEdits.azureInNovember,
    );
    const corrected = sampleVariant(
      s().stateDir,
      `${run}-cur-fix.csv`,
      CUR_SAMPLE,
      sampleEdits.curFirstRows(400),
    );
    for (const file of [cur, azure]) {
      const out = ingestCli(org, file.path);
      expect(out.stderr).toBe('');
      expect(out.stdout).toContain(`ingested ${file.rows.length} rows (billing months 2023-11)`);
    }
    expectSums(await novemberDaily(token), [
      ...prefixed('AWS', curDaily(cur.rows)),
      ...prefixed('Microsoft', azureDaily(azure.rows)),
    ]);
    const out = ingestCli(org, corrected.path);
    expect(out.status).toBe(0);
    expectSums(await novemberDaily(token), [
      ...prefixed('AWS', curDaily(corrected.rows)),
      ...prefixed('Microsoft', azureDaily(azure.rows)),
    ]);
  }, 300_000);

  it('ingests the parts of one CUR given together as one upload (parts uploaded alone would replace each other)', async () => {
    const token = tokenCli('user_onb_sources', org, 'admin');
    const lines = readFileSync(CUR_SAMPLE, 'utf8').trimEnd().split('\n');
    const [header, ...data] = lines as [string, ...string[]];
    const part1 = join(s().stateDir, `${run}-cur-part1.csv`);
    const part2 = join(s().stateDir, `${run}-cur-part2.csv.gz`);
    writeFileSync(part1, `${[header, ...data.slice(0, 700)].join('\n')}\n`);
    writeFileSync(part2, gzipSync(`${[header, ...data.slice(700)].join('\n')}\n`));
    const out = ingestCli(org, part1, part2);
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain(`ingested ${data.length} rows (billing months 2023-11)`);
    const cur = readCsv(CUR_SAMPLE);
    const azure = parseCsv(sampleEdits.azureInNovember(readFileSync(AZURE_SAMPLE, 'utf8')));
    expectSums(await novemberDaily(token), [
      ...prefixed('AWS', curDaily(cur)),
      ...prefixed('Microsoft', azureDaily(azure)),
    ]);
    // Parts with different header lines are refused before anything is uploaded.
    const other = join(s().stateDir, `${run}-azure-part.csv`);
    copyFileSync(AZURE_SAMPLE, other);
    const refused = ingestCli(org, part1, other);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('has another header line than the first part; nothing was uploaded');
  }, 300_000);
});

describe('registration by sign-in', () => {
  it('registers once when an organisation’s first admin requests arrive together, and none fails', async () => {
    const org = `org_onb_race_${run}`;
    const key = await loadOrCreateSigningKey(s().stateDir);
    const tokens = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        mintToken(key, { userId: `user_race_${i}`, orgId: org, role: 'admin' }),
      ),
    );
    const answers = await Promise.all(tokens.map((token) => api('GET', '/dimensions/candidates', { token })));
    expect(answers.map((a) => a.status)).toEqual(tokens.map(() => 200));
    const stored = JSON.parse(orgCli('show', org).stdout) as Org;
    expect(stored).toMatchObject({ id: org, registeredVia: 'jwt' });
    expect(tokens.map((_, i) => `user_race_${i}`)).toContain(stored.registeredBy);
  });

  it('is not done by a member, and an unregistered organisation gets no API key', async () => {
    const org = `org_onb_member_${run}`;
    const key = await loadOrCreateSigningKey(s().stateDir);
    const member = await mintToken(key, { userId: 'user_onb_member', orgId: org, role: 'member' });
    expect((await api('GET', '/dimensions/candidates', { token: member })).status).toBe(200);
    const shown = orgCli('show', org);
    expect(shown.status).toBe(1);
    expect(shown.stderr).toContain(`no organisation ${org}`);
    // API keys belong to registered organisations only.
    const keys = script('keys.ts', ['create', '--principal', org, '--org', org, '--state-dir', s().stateDir]);
    expect(keys.status).toBe(1);
    expect(keys.stdout).toBe('');
    expect(keys.stderr).toContain(`${org} is not a registered organisation`);
  });

  it('npm run org -- create registers one explicitly, idempotently, and its uploads are ingested', () => {
    const org = `org_onb_cli_${run}`;
    const created = orgCli('create', org, '--name', 'Onboarding CLI', '--timezone', 'Europe/Paris');
    expect(created.status).toBe(0);
    expect(created.stderr).toContain(`registered ${org}`);
    expect(JSON.parse(created.stdout)).toMatchObject({
      id: org,
      name: 'Onboarding CLI',
      timezone: 'Europe/Paris',
      registeredVia: 'cli',
    });
    const again = orgCli('create', org, '--name', 'Other');
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('already exists');
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'Onboarding CLI' });
    const out = ingestCli(org, FOCUS_SAMPLE);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain(`ingested ${readCsv(FOCUS_SAMPLE).length} rows`);
  });
});
