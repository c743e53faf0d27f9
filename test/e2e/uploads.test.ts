import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeNativeExport } from '../../infra/local/demo-data/native-generator';
import { csv, usage, valid } from '../integration/warehouse/focus-rows';
import {
  type CsvRow,
  CUR_SAMPLE,
  curDaily,
  expectSums,
  num,
  parseCsv,
  prefixed,
  sumBy,
} from '../integration/warehouse/support';
import { ingestCli, ingestOk, tokenCli } from '../support/cli';
import { api, runId, session } from '../support/session';

/**
 * No upload lost silently (docs/warehouse.md, "Parts of one export"): the parts of an export
 * given to `npm run ingest` together or through their AWS CUR manifest are one upload, whatever
 * their line ends; files that resemble a known format but lack one of its columns, and manifests
 * given as data, are refused with a sentence that says so. Figures are checked through
 * `POST /queries/explorer` against sums computed here from the raw part files.
 */
const s = () => session();
const run = runId();

interface Answer {
  queries: {
    series: { group: Record<string, string | null>; points: { date: string; value: number | null }[] }[];
  }[];
}

/** A fresh organisation, registered by its admin's first request; answers the admin's token. */
async function freshOrg(org: string): Promise<string> {
  const token = tokenCli(`user_${org}`, org, 'admin');
  expect((await api('GET', '/dimensions', { token })).status).toBe(200);
  return token;
}

/** The enclosing describe's fresh organisation `org_upl_<name>_<run>`: its id, and its admin's token from beforeAll on. */
function describeOrg(name: string): { id: string; token: string } {
  const org = { id: `org_upl_${name}_${run}`, token: '' };
  beforeAll(async () => {
    org.token = await freshOrg(org.id);
  });
  return org;
}

/** A new folder for the test's files under the session's state folder. */
function workDir(name: string): string {
  const dir = join(s().stateDir, `${name}-${run}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The explorer's cost per `provider|day` over the days `start` to `end`. */
async function daily(token: string, start: string, end: string): Promise<Map<string, number>> {
  const res = await api<Answer>('POST', '/queries/explorer', {
    token,
    body: {
      request: {
        period: { startDate: `${start}T00:00:00Z`, endDate: `${end}T00:00:00Z`, aggBy: 'Day' },
        queries: [{ type: 'cost', name: 'p', colorIndex: 0, chartType: 'BAR', groupBy: 'provider' }],
      },
    },
  });
  expect(res.status).toBe(200);
  const out = new Map<string, number>();
  for (const x of res.body.queries[0]?.series ?? [])
    for (const p of x.points) if (p.value) out.set(`${x.group.provider}|${p.date}`, p.value);
  return out;
}
const november = (token: string) => daily(token, '2023-11-01', '2023-11-30');

/**
 * The CUR sample with a last column whose cells are never empty (`resourceTags/user:owner`), as
 * header and data lines: a row whose last cell is not empty is where a CRLF part showed the bug.
 */
function curLines(): { header: string; data: string[] } {
  const [header, ...data] = readFileSync(CUR_SAMPLE, 'utf8').trimEnd().split('\n') as [string, ...string[]];
  return {
    header: `${header.replace(/\r$/, '')},resourceTags/user:owner`,
    data: data.map((l, i) => `${l.replace(/\r$/, '')},owner-${i % 7}`),
  };
}
const rowsOf = (header: string, data: string[]): CsvRow[] => parseCsv(`${[header, ...data].join('\n')}\n`);

describe('npm run ingest -- part1.csv part2.csv with CRLF line ends', () => {
  const org = describeOrg('crlf');

  it.each([
    ['both parts CRLF', '\r\n', '\r\n'],
    ['an LF part and a CRLF part', '\n', '\r\n'],
    ['a CRLF part and a gzipped LF part', '\r\n', '\n'],
  ])('joins %s into one upload equal per day to the raw parts', async (label, first, second) => {
    const { header, data } = curLines();
    const cut = 600;
    const dir = join(s().stateDir, `upl-crlf-${run}-${label.replace(/\W+/g, '-')}`);
    mkdirSync(dir, { recursive: true });
    const part1 = join(dir, 'cur-1.csv');
    const part2 = join(dir, 'cur-2.csv.gz');
    writeFileSync(part1, [header, ...data.slice(0, cut)].join(first) + first);
    writeFileSync(part2, gzipSync([header, ...data.slice(cut)].join(second) + second));
    const out = ingestCli(org.id, part1, part2);
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain(`ingested ${data.length} rows (billing months 2023-11)`);
    expect(out.status).toBe(0);
    const rows = [...rowsOf(header, data.slice(0, cut)), ...rowsOf(header, data.slice(cut))];
    expect(rows).toHaveLength(data.length);
    expectSums(await november(org.token), prefixed('AWS', curDaily(rows)));
  });
});

describe('AWS CUR manifests: npm run ingest -- manifest.json', () => {
  const org = describeOrg('manifest');

  it('ingests the parts a CUR 1.0 …-Manifest.json lists (reportKeys), found beside it, as one upload', async () => {
    const { header, data } = curLines();
    const dir = workDir('upl-cur1');
    const prefix = 'cur/acme-cur/20231101-20231201/4f1a2b3c-0d9e-4c5b-8a7f-112233445566';
    const chunks = [data.slice(0, 300), data.slice(300, 800), data.slice(800)];
    for (const [i, chunk] of chunks.entries())
      writeFileSync(
        join(dir, `acme-cur-${i + 1}.csv.gz`),
        gzipSync(`${[header, ...chunk].join('\r\n')}\r\n`),
      );
    const manifest = join(dir, 'acme-cur-Manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        assemblyId: '4f1a2b3c-0d9e-4c5b-8a7f-112233445566',
        account: '123412340534',
        columns: header.split(',').map((c) => {
          const [category, name] = c.split('/');
          return { category, name, type: 'String' };
        }),
        charset: 'UTF-8',
        compression: 'GZIP',
        contentType: 'text/csv',
        reportId: 'b3f1c9a0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f2a4b6c8d0e2f4a6',
        reportName: 'acme-cur',
        billingPeriod: { start: '20231101T000000.000Z', end: '20231201T000000.000Z' },
        bucket: 'acme-billing',
        reportKeys: chunks.map((_, i) => `${prefix}/acme-cur-${i + 1}.csv.gz`),
        additionalArtifactKeys: [],
      }),
    );
    const out = ingestCli(org.id, manifest);
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('AWS CUR 1.0 manifest');
    expect(out.stdout).toContain(`ingested ${data.length} rows (billing months 2023-11)`);
    expectSums(await november(org.token), prefixed('AWS', curDaily(rowsOf(header, data))));
  });

  it('ingests the parts a CUR 2.0 / Data Exports Manifest.json lists (dataFiles, s3:// URIs) as one upload', async () => {
    const dir = workDir('upl-cur2');
    const whole = join(dir, 'whole.csv');
    await writeNativeExport(whole, 'cur2', {
      seed: 23,
      months: ['2024-07'],
      daysPerMonth: 5,
      resourcesPerProvider: 10,
      providers: ['AWS'],
      accountPrefix: `m${run}`,
    });
    const [header, ...data] = readFileSync(whole, 'utf8').trimEnd().split('\n') as [string, ...string[]];
    const half = Math.floor(data.length / 2);
    const files = [data.slice(0, half), data.slice(half)].map((chunk, i) => {
      const name = `acme-export-0000${i + 1}.csv.gz`;
      writeFileSync(join(dir, name), gzipSync(`${[header, ...chunk].join('\n')}\n`));
      return `s3://acme-billing/exports/acme-export/data/BILLING_PERIOD=2024-07/${name}`;
    });
    const manifest = join(dir, 'Manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify(
        {
          version: '1.0',
          exportArn: 'arn:aws:bcm-data-exports:us-east-1:123412340534:export/acme-export-0f1e2d3c',
          executionId: '20240705T101500Z-7c6b5a49',
          billingPeriod: { start: '2024-07-01T00:00:00.000Z', end: '2024-08-01T00:00:00.000Z' },
          dataFiles: files,
          columns: header.split(',').map((name) => ({ name, type: 'string' })),
        },
        null,
        2,
      ),
    );
    const out = ingestCli(org.id, manifest);
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('AWS CUR 2.0 / Data Exports manifest');
    expect(out.stdout).toContain(`ingested ${data.length} rows (billing months 2024-07)`);
    const rows = rowsOf(header, data);
    const cost = (r: CsvRow) =>
      r.line_item_net_unblended_cost !== null && r.line_item_net_unblended_cost !== undefined
        ? num(r.line_item_net_unblended_cost)
        : num(r.line_item_unblended_cost);
    const expected = sumBy(rows, (r) => r.line_item_usage_start_date?.slice(0, 10), cost);
    expectSums(await daily(org.token, '2024-07-01', '2024-07-31'), prefixed('AWS', expected));
  });

  it('names the parts it cannot find beside the manifest, and uploads nothing', () => {
    const dir = workDir('upl-cur1-missing');
    const manifest = join(dir, 'r-Manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        assemblyId: 'a1',
        reportName: 'r',
        bucket: 'b',
        reportKeys: ['p/r/20231101-20231201/a1/r-1.csv.gz'],
      }),
    );
    const out = ingestCli(org.id, manifest);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('not found beside it: r-1.csv.gz');
    expect(out.stdout).not.toContain('uploaded');
  });

  it('calls a manifest given as a part a manifest', () => {
    const { header, data } = curLines();
    const dir = workDir('upl-manifest-part');
    const part = join(dir, 'x-1.csv');
    writeFileSync(part, `${[header, ...data.slice(0, 10)].join('\n')}\n`);
    const manifest = join(dir, 'x-Manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({ assemblyId: 'a', reportName: 'x', bucket: 'b', reportKeys: ['x-1.csv'] }),
    );
    const out = ingestCli(org.id, part, manifest);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('x-Manifest.json is an AWS CUR 1.0 manifest');
    expect(out.stderr).not.toContain('Error when sniffing');
  });
});

describe('a CUR that lacks one of its detection columns', () => {
  const org = describeOrg('detect');

  it('is refused with the format it resembles and the column it lacks', () => {
    const text = readFileSync(CUR_SAMPLE, 'utf8').replace('lineItem/UsageStartDate', 'lineItem/UsageStart');
    const file = join(s().stateDir, `upl-cur-no-start-${run}.csv`);
    writeFileSync(file, text);
    const out = ingestCli(org.id, file);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(
      'rejected: The file resembles the AWS Cost and Usage Report (CUR 1.0) format but lacks its column lineItem/UsageStartDate',
    );
    expect(out.stderr).not.toContain('matches none of the known formats');
  });
});

describe('parts of one CUR uploaded one at a time (a replacement with markedly less)', () => {
  const org = describeOrg('replace');
  const { header, data } = curLines();
  const first = data.slice(0, 900);
  const second = data.slice(900);
  const usd = (lines: string[]) =>
    rowsOf(header, lines).reduce((a, r) => a + num(r['lineItem/UnblendedCost']), 0);
  const money = (n: number) =>
    n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  let uploadId = '';

  it("says so on the CLI with both versions' rows and cost, and names the upload to restore", async () => {
    const dir = workDir('upl-replace');
    const [p1, p2] = [join(dir, 'cur-1.csv'), join(dir, 'cur-2.csv')] as [string, string];
    writeFileSync(p1, `${[header, ...first].join('\n')}\n`);
    writeFileSync(p2, `${[header, ...second].join('\n')}\n`);
    const one = ingestCli(org.id, p1);
    expect(one.status).toBe(0);
    expect(one.stderr).toBe('');
    const two = ingestCli(org.id, p2);
    expect(two.status).toBe(0);
    expect(two.stderr).toContain('ingest: warning: this upload replaced billing data with markedly less');
    expect(two.stderr).toContain(
      `AWS account 123412340534, 2023-11: ${money(usd(second))} USD (was ${money(usd(first))} USD`,
    );
    expect(two.stderr).toContain(`in ${second.length} rows (was ${first.length}, `);
    uploadId = /POST \/billing\/uploads\/(upl_[a-f0-9]{26})\/restore/.exec(two.stderr)?.[1] ?? '';
    expect(uploadId).toMatch(/^upl_/);
    expect(two.stdout).toContain(`upload ${uploadId}`);
    expectSums(await november(org.token), prefixed('AWS', curDaily(rowsOf(header, second))));
  });

  it('POST /billing/uploads/{id}/restore puts the replaced version back (admins only, once)', async () => {
    const memberToken = tokenCli(`user_m_${run}`, org.id, 'member');
    const forbidden = await api('POST', `/billing/uploads/${uploadId}/restore`, { token: memberToken });
    expect(forbidden.status).toBe(403);
    const unknown = await api('POST', '/billing/uploads/upl_00000000000000000000000000/restore', {
      token: org.token,
    });
    expect(unknown.status).toBe(404);
    const res = await api<{ id: string; status: string; sources: unknown[] }>(
      'POST',
      `/billing/uploads/${uploadId}/restore`,
      { token: org.token },
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      id: uploadId,
      status: 'restoring',
      sources: [{ month: '2023-11', provider: 'AWS', account: '123412340534' }],
    });
    expect((await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } })).status).toBe(200);
    expectSums(await november(org.token), prefixed('AWS', curDaily(rowsOf(header, first))));
    // The upload record says what was replaced and what the restore put back, from the raw parts.
    const record = await api<Record<string, unknown>>('GET', `/billing/uploads/${uploadId}`, {
      token: org.token,
    });
    expect(record.status).toBe(200);
    const figures = (lines: string[]) => ({
      rows: lines.length,
      cost: { USD: expect.closeTo(usd(lines), 6) },
    });
    const source = { month: '2023-11', provider: 'AWS', account: '123412340534' };
    expect(record.body).toMatchObject({
      id: uploadId,
      status: 'succeeded',
      file: expect.stringContaining('cur-2.csv'),
      rows: second.length,
      months: ['2023-11'],
      replaced: [{ ...source, before: figures(first), after: figures(second) }],
      warnings: [expect.stringContaining('AWS account 123412340534, 2023-11')],
      restored: [{ ...source, before: figures(second), after: figures(first) }],
    });
    const again = await api('POST', `/billing/uploads/${uploadId}/restore`, { token: org.token });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'ALREADY_RESTORED' });
  });
});

describe('the conformance report of an upload (docs/focus-conformance.md)', () => {
  const org = describeOrg('conf');

  it('npm run ingest prints the summary; GET /billing/uploads lists it to members; the record has the failed rows by line', async () => {
    const dir = workDir('upl-conf');
    const rows = valid();
    rows[2] = { ...usage(3), ChargeCategory: 'Refund', ConsumedQuantity: null, ConsumedUnit: null };
    const file = join(dir, 'focus-refund.csv');
    writeFileSync(file, csv(rows));
    const out = ingestCli(org.id, file);
    expect(out.status).toBe(0);
    const line = out.stdout.split('\n').find((l) => l.startsWith('FOCUS 1.2 conformance:')) ?? '';
    expect(line).toMatch(/^FOCUS 1\.2 conformance: MUST \d+\/\d+ met, SHOULD \d+\/\d+ met/);
    expect(line).toContain('(failed MUST: ChargeCategory-C-003-M)');
    const uploadId = /GET \/billing\/uploads\/(upl_[a-f0-9]{26})/.exec(out.stdout)?.[1] ?? '';
    expect(uploadId).toMatch(/^upl_/);

    const memberToken = tokenCli(`user_cm_${run}`, org.id, 'member');
    const list = await api<{ items: Record<string, unknown>[]; nextCursor: string | null }>(
      'GET',
      '/billing/uploads',
      {
        token: memberToken,
      },
    );
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    const listed = list.body.items[0] as { id: string; rows: number; conformance: Record<string, unknown> };
    expect(listed).toMatchObject({ id: uploadId, status: 'succeeded', rows: rows.length });
    expect(listed.conformance).not.toHaveProperty('requirements');
    const must = (listed.conformance.score as { MUST: { met: number; applicable: number } }).MUST;
    expect(must.applicable - must.met).toBe(1);

    const record = await api<{
      conformance: {
        requirements: { id: string; status: string; violations: number; samples?: { line: number }[] }[];
      };
    }>('GET', `/billing/uploads/${uploadId}`, { token: memberToken });
    expect(record.status).toBe(200);
    const failed = record.body.conformance.requirements.filter((r) => r.status === 'fail');
    expect(failed.map((r) => [r.id, r.violations, r.samples?.map((x) => x.line)])).toEqual([
      ['ChargeCategory-C-003-M', 1, [4]],
    ]);
    // Its rows are stored all the same: the explorer's total is the file's.
    const total = [...(await daily(org.token, '2025-03-01', '2025-03-31')).values()].reduce(
      (a, b) => a + b,
      0,
    );
    expect(total).toBeCloseTo(
      rows.reduce((a, r) => a + Number(r.BilledCost), 0),
      6,
    );
  });

  it("another organisation's list holds none of its uploads", async () => {
    const other = await freshOrg(`org_upl_conf_other_${run}`);
    const list = await api<{ items: unknown[] }>('GET', '/billing/uploads', { token: other });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([]);
  });
});

describe('GET /billing/uploads: newest first, a page at a time, each with its detected format', () => {
  const org = describeOrg('order');

  it('lists three uploads (FOCUS, OCI, an unrecognised file) newest first over two pages', async () => {
    const dir = workDir('upl-order');
    const focus = join(dir, 'focus.csv');
    writeFileSync(focus, csv(valid()));
    const oci = join(dir, 'oci.csv');
    await writeNativeExport(oci, 'oci', {
      seed: 3,
      months: ['2025-04'],
      resourcesPerProvider: 2,
      daysPerMonth: 2,
    });
    const unknown = join(dir, 'notes.csv');
    writeFileSync(unknown, 'when,what\n2025-04-01,nothing billed\n');
    // One at a time, in this order: each is delivered after the one before.
    ingestOk(org.id, focus);
    ingestOk(org.id, oci);
    expect(ingestCli(org.id, unknown).status).not.toBe(0);

    type Listed = { file: string; format: string; status: string; startedAt: string };
    const first = await api<{ items: Listed[]; nextCursor: string | null }>(
      'GET',
      '/billing/uploads?limit=2',
      { token: org.token },
    );
    expect(first.status).toBe(200);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await api<{ items: Listed[]; nextCursor: string | null }>(
      'GET',
      `/billing/uploads?limit=2&cursor=${encodeURIComponent(first.body.nextCursor ?? '')}`,
      { token: org.token },
    );
    expect(second.status).toBe(200);
    expect(second.body.nextCursor).toBeNull();
    const all = [...first.body.items, ...second.body.items];
    // `npm run ingest` names each object `<time>-<file>`.
    expect(all.map((u) => [u.file.replace(/^\d{8}T\d{6}-/, ''), u.format, u.status])).toEqual([
      ['notes.csv', 'unknown', 'rejected'],
      ['oci.csv', 'oci', 'succeeded'],
      ['focus.csv', 'focus', 'succeeded'],
    ]);
    const times = all.map((u) => u.startedAt);
    expect([...times].sort().reverse()).toEqual(times);
    // Three CLI ingests, one after the other (each up to ingestCli's own 240 s bound).
  }, 600_000);
});
