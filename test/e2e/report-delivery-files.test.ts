import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { readSeed } from '../../infra/local/warehouse-hook';
import { simpleWidget } from '../fixtures/dashboards/realistic';
import { type CsvRow, num, readCsv } from '../integration/warehouse/support';
import { explorerPeriodTotals } from '../support/explorer-http';
import { isValidPng } from '../support/report-delivery-files';
import { api, session } from '../support/session';

/**
 * The end to end on the local stack: a WEEKLY report with every widget type (TEXT, DIGEST,
 * TOP_FLOP, GRAPH_SNAPSHOT, DASHBOARD_PDF) to one address and one Slack channel, swept by the
 * ticker at its due time. It runs in the second organisation (`org_acme`, which only the seed
 * ingests into), so the figures the e-mail states are checked both against `POST /queries/explorer`
 * and against sums computed here from the seeded CSV rows. Also: a report may name only dashboards
 * its author can see (a member cannot have a colleague's PRIVATE dashboard delivered).
 */
interface Report {
  id: string;
  nextRunAt: string | null;
  widgets: Record<string, unknown>[];
  [k: string]: unknown;
}
interface StoredAttachment {
  filename: string;
  contentType: string;
  contentDisposition: string;
  cid?: string;
  related?: boolean;
  content: string;
}
interface StoredEmail {
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
  attachments: StoredAttachment[];
}
interface Captured {
  path: string;
  body: {
    channel?: string;
    channel_id?: string;
    blocks?: unknown[];
    text?: string;
    files?: string;
    thread_ts?: string;
    initial_comment?: string;
  };
  answer?: { ts?: string };
}
interface CapturedFile {
  id: string;
  filename: string;
  length: number;
  content: string | null;
  channels: string[];
}
interface ValidationBody {
  error: string;
  reason: string;
  details: { path: string; message: string }[];
}

const s = () => session();
const acme = () => s().apiKeys.outsider;
const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ARTIFACTS = join('test', 'artifacts', 'reports');

async function emailsTo(address: string): Promise<StoredEmail[]> {
  const store = (await (await fetch(`${process.env.SES_ENDPOINT}/store`)).json()) as {
    emails: StoredEmail[];
  };
  return store.emails.filter((e) => e.destination.to.some((t) => t.includes(address)));
}

async function slackCalls(): Promise<Captured[]> {
  return (await (await fetch(`${process.env.CAPTURE_URL}/messages?kind=slack`)).json()) as Captured[];
}
const postsTo = async (channel: string) =>
  (await slackCalls()).filter((c) => c.path.endsWith('/chat.postMessage') && c.body?.channel === channel);
const filesIn = async (channel: string) =>
  (await (
    await fetch(`${process.env.CAPTURE_URL}/slack/files?channel=${encodeURIComponent(channel)}`)
  ).json()) as CapturedFile[];

async function tick(now: string) {
  const res = await api<{ result: { due: number; enqueued: number } }>('POST', '/_local/tick', {
    body: { schedule: 'report-sweep', now },
  });
  expect(res.status).toBe(200);
  expect((await api('POST', '/_local/drain', { body: { timeoutMs: 90_000 } })).status).toBe(200);
  return res.body.result;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG: signature, CRC-correct chunks ending in IEND, an 8-bit IHDR, and IDAT data that inflates to every scanline. */
function expectPng(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(isValidPng(bytes)).toBe(true);
  expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const [depth, colourType] = [bytes[24]!, bytes[25]!];
  expect(depth).toBe(8);
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colourType];
  expect(channels).toBeDefined();
  const idat: Buffer[] = [];
  for (let at = 8; at < bytes.length; ) {
    const len = bytes.readUInt32BE(at);
    if (bytes.subarray(at + 4, at + 8).toString('ascii') === 'IDAT')
      idat.push(bytes.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe(height * (1 + width * (channels ?? 0)));
  return { width, height };
}

/**
 * A PDF: header, `%%EOF`, a `startxref` pointing at a cross-reference table whose every in-use entry
 * points at its own `N 0 obj`, a trailer naming the catalog, and a page tree with as many pages as
 * `/Type /Page` objects.
 */
function expectPdf(bytes: Buffer): { pages: number; objects: number } {
  const text = bytes.toString('latin1');
  expect(text.startsWith('%PDF-1.')).toBe(true);
  const tail = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text);
  expect(tail).not.toBeNull();
  const xref = Number(tail![1]);
  expect(text.slice(xref, xref + 4)).toBe('xref');
  const head = /^xref\s+(\d+)\s+(\d+)\s+/.exec(text.slice(xref));
  expect(head).not.toBeNull();
  const first = Number(head![1]);
  const count = Number(head![2]);
  const entries = text
    .slice(xref + head![0].length)
    .split(/\r?\n|\r/)
    .slice(0, count);
  let objects = 0;
  entries.forEach((line, i) => {
    const m = /^(\d{10}) (\d{5}) ([nf])/.exec(line.trim());
    expect(m).not.toBeNull();
    if (m![3] !== 'n') return;
    const offset = Number(m![1]);
    expect(text.slice(offset, offset + 20)).toMatch(new RegExp(`^${first + i} ${Number(m![2])} obj\\b`));
    objects++;
  });
  const trailer = text.slice(text.lastIndexOf('trailer'));
  expect(trailer).toMatch(/\/Root \d+ 0 R/);
  expect(trailer).toMatch(new RegExp(`/Size ${first + count}\\b`));
  const pages = (text.match(/\/Type \/Page\b(?!s)/g) ?? []).length;
  const declared = /\/Type \/Pages[\s\S]*?\/Count (\d+)/.exec(text);
  expect(declared).not.toBeNull();
  expect(Number(declared![1])).toBe(pages);
  expect(pages).toBeGreaterThan(0);
  return { pages, objects };
}

const money = (x: number) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    maximumFractionDigits: Math.abs(x) >= 100 ? 0 : 2,
  }).format(x);

const explorerByGroup = (start: string, end: string, groupBy: string[]) =>
  explorerPeriodTotals(acme(), start, end, groupBy);

describe('a weekly report with every widget type, end to end', () => {
  const email = `weekly+${tag}@acme.example`;
  const channel = `CW${tag.toUpperCase()}`;
  const inactiveChannel = `CX${tag.toUpperCase()}`;
  let rows: CsvRow[] = [];
  let dashboardId = '';
  let report: Report;

  const widgets = () => [
    { type: 'TEXT', contentMarkdown: '## Weekly cloud spend\n\nNumbers for **last month**, by provider.' },
    {
      type: 'DIGEST',
      additionalGroupBy: ['service'],
      display: 'tree',
      minAbsoluteDiff: 1,
      minRelativeDiff: 1,
    },
    { type: 'TOP_FLOP', groupBy: 'service', topN: 3, flopN: 3 },
    {
      type: 'GRAPH_SNAPSHOT',
      title: 'Daily cost by provider',
      groupBy: 'provider',
      aggBy: 'Day',
      chartType: 'BAR',
    },
    { type: 'DASHBOARD_PDF', dashboardId },
  ];

  beforeAll(async () => {
    const seed = readSeed(s().stateDir)?.orgs.find((o) => o.orgId === s().otherOrgId);
    if (!seed) throw new Error('no seed for the second organisation');
    rows = readCsv(join(s().stateDir, 'bucket', seed.key));
    const d = await api<{ id: string }>('POST', '/dashboard-v2', {
      token: acme(),
      body: {
        name: `Acme spend ${tag}`,
        type: 'PUBLIC',
        widgets: [
          {
            ...simpleWidget('daily', {
              period: { aggBy: 'Day', datePreset: 'LAST_MONTH' },
              queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'BAR', groupBy: ['provider'] }],
            }),
            title: 'Daily cost by provider',
            w: 12,
          },
          {
            ...simpleWidget('services', {
              period: { aggBy: 'Period', datePreset: 'LAST_MONTH' },
              queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'TABLE', groupBy: ['service'] }],
            }),
            title: 'Cost by service',
            y: 4,
            w: 12,
          },
        ],
      },
    });
    expect(d.status).toBe(201);
    dashboardId = d.body.id;
    const res = await api<Report>('POST', '/reports', {
      token: acme(),
      body: {
        name: `Acme weekly ${tag}`,
        description: 'Week over week, every widget type',
        scheduledPeriod: 'WEEKLY',
        scheduledWeekday: 1,
        context: { metricId: 'cost', groupBy: 'provider', datePreset: 'LAST_MONTH', currency: 'USD' },
        widgets: widgets(),
        destinations: [
          { destinationType: 'EMAIL', destinationValues: [email] },
          { destinationType: 'SLACK', destinationValues: [channel] },
        ],
      },
    });
    expect(res.status).toBe(201);
    report = res.body;
    const inactive = await api<Report>('POST', '/reports', {
      token: acme(),
      body: {
        name: `Acme inactive ${tag}`,
        status: 'INACTIVE',
        scheduledPeriod: 'WEEKLY',
        scheduledWeekday: 1,
        widgets: widgets(),
        destinations: [{ destinationType: 'SLACK', destinationValues: [inactiveChannel] }],
      },
    });
    expect(inactive.status).toBe(201);
    expect(inactive.body.nextRunAt).toBeNull();
  }, 60_000);

  it('delivers one e-mail with a PNG inline and a PDF attached, one Slack post with both files, once', async () => {
    const due = report.nextRunAt as string;
    await tick(new Date(new Date(due).getTime() - 60_000).toISOString());
    expect(await emailsTo(email)).toHaveLength(0);
    expect(await postsTo(channel)).toHaveLength(0);

    await tick(due);
    const emails = await emailsTo(email);
    expect(emails).toHaveLength(1);
    const mail = emails[0]!;
    const html = mail.body.html ?? '';
    const text = mail.body.text ?? '';

    // The e-mail: the PNG is inline, referenced by its Content-ID; the PDF is attached.
    expect(mail.attachments.map((a) => a.contentType).sort()).toEqual(['application/pdf', 'image/png']);
    const png = mail.attachments.find((a) => a.contentType === 'image/png')!;
    const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf')!;
    expect(png.filename).toMatch(/^chart-4-daily-cost-by-provider\.png$/);
    expect(png.contentDisposition).toBe('inline');
    expect(png.cid).toBe(png.filename);
    // The emulator's parser (mailparser) replaces each `cid:` the HTML uses by its part's bytes, so
    // the image in the stored HTML is there only because the HTML referenced the PNG's Content-ID.
    expect(png.related).toBe(true);
    expect(html).toContain(`src="data:image/png;base64,${png.content}"`);
    expect(pdf.filename).toMatch(/^dashboard-5-.+\.pdf$/);
    expect(pdf.contentDisposition).toBe('attachment');
    expect(html).not.toContain(`cid:${pdf.filename}`);
    const pngBytes = Buffer.from(png.content, 'base64');
    const pdfBytes = Buffer.from(pdf.content, 'base64');
    const size = expectPng(pngBytes);
    expect(size.width).toBeGreaterThanOrEqual(600);
    expect(size.height).toBeGreaterThanOrEqual(300);
    expect(expectPdf(pdfBytes).pages).toBeGreaterThanOrEqual(1);

    // Slack: one message, then both files uploaded by the external flow and shared in its thread.
    const posts = await postsTo(channel);
    expect(posts).toHaveLength(1);
    const files = await filesIn(channel);
    expect(files.map((f) => f.filename).sort()).toEqual([pdf.filename, png.filename].sort());
    for (const f of files) {
      const bytes = Buffer.from(f.content ?? '', 'base64');
      expect(bytes.length).toBe(f.length);
      if (f.filename.endsWith('.png')) expect(bytes.equals(pngBytes)).toBe(true);
      else expect(bytes.equals(pdfBytes)).toBe(true);
    }
    const completes = (await slackCalls()).filter(
      (c) => c.path.endsWith('/files.completeUploadExternal') && c.body?.channel_id === channel,
    );
    expect(completes).toHaveLength(1);
    const ts = posts[0]!.answer?.ts;
    expect(ts).toEqual(expect.any(String));
    expect(completes[0]!.body?.thread_ts).toBe(ts);
    expect(completes[0]!.body?.initial_comment).toBe(
      `Files of ${mail.subject}: ${mail.attachments.map((a) => a.filename).join(', ')}`,
    );

    // Kept to look at (test/artifacts is ignored by git): the e-mail, its image already a data: URI.
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'weekly-email.html'), html);
    writeFileSync(join(ARTIFACTS, 'weekly-email.txt'), text);
    writeFileSync(join(ARTIFACTS, png.filename), pngBytes);
    writeFileSync(join(ARTIFACTS, pdf.filename), pdfBytes);
    writeFileSync(join(ARTIFACTS, 'weekly-slack.json'), JSON.stringify(posts[0]!.body, null, 2));

    // Figures: the digest's total for the period it states equals the explorer's and the seeded rows'.
    const stated = /to (\$[\d,.]+) for (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})\./.exec(text);
    expect(stated).not.toBeNull();
    const [, amount, start, end] = stated as RegExpMatchArray;
    const inPeriod = rows.filter((r) => {
      const day = String(r.ChargePeriodStart).slice(0, 10);
      return day >= start! && day <= end!;
    });
    expect(inPeriod.length).toBeGreaterThan(0);
    const fromRows = inPeriod.reduce((a, r) => a + num(r.BilledCost), 0);
    const byProvider = await explorerByGroup(start!, end!, ['provider']);
    expect(byProvider.total).toBeCloseTo(fromRows, 6);
    expect(amount).toBe(money(fromRows));
    // Every provider row of the digest's tree in the HTML carries the seeded rows' sum.
    for (const provider of new Set(inPeriod.map((r) => String(r.ProviderName)))) {
      const sum = inPeriod
        .filter((r) => r.ProviderName === provider)
        .reduce((a, r) => a + num(r.BilledCost), 0);
      const series = byProvider.series.find((x) => x.group.provider === provider);
      expect(series?.total).toBeCloseTo(sum, 6);
    }

    // TOP_FLOP: each service line states the explorer's figure for that service and period.
    const topFlop = text.slice(text.indexOf('Top movers by service'));
    const lines = [...topFlop.matchAll(/^- (.+): (-?\$[\d,.]+) \(/gm)].slice(0, 6);
    expect(lines.length).toBeGreaterThan(0);
    const byService = await explorerByGroup(start!, end!, ['service']);
    for (const [, service, figure] of lines) {
      const series = byService.series.find((x) => (x.group.service ?? '(none)') === service);
      expect(series).toBeDefined();
      expect(figure).toBe(money(series!.total ?? 0));
    }

    // Tick again, on time and late: nothing more anywhere.
    await tick(due);
    await tick(new Date(new Date(due).getTime() + 3_600_000).toISOString());
    expect(await emailsTo(email)).toHaveLength(1);
    expect(await postsTo(channel)).toHaveLength(1);
    expect(await filesIn(channel)).toHaveLength(2);
    // The INACTIVE report with the same widgets and schedule delivered nothing.
    expect(await postsTo(inactiveChannel)).toHaveLength(0);
    expect(await filesIn(inactiveChannel)).toHaveLength(0);
  }, 240_000);
});

describe('dashboards a report names must be visible to its author', () => {
  const admin = () => s().apiKeys.admin;
  const member = () => s().apiKeys.member;
  let privateId = '';
  let publicId = '';

  const create = (token: string, widgets: Record<string, unknown>[]) =>
    api<Report | ValidationBody>('POST', '/reports', {
      token,
      body: {
        name: `Dashboards ${tag}`,
        widgets,
        destinations: [{ destinationType: 'EMAIL', destinationValues: [`member+${tag}@demo.example`] }],
      },
    });

  beforeAll(async () => {
    const priv = await api<{ id: string }>('POST', '/dashboard-v2', {
      token: admin(),
      body: { name: `Admin private ${tag}`, widgets: [simpleWidget('w1')] },
    });
    const pub = await api<{ id: string }>('POST', '/dashboard-v2', {
      token: admin(),
      body: { name: `Admin public ${tag}`, type: 'PUBLIC', widgets: [simpleWidget('w1')] },
    });
    expect([priv.status, pub.status]).toEqual([201, 201]);
    privateId = priv.body.id;
    publicId = pub.body.id;
    // The member indeed cannot see the private one.
    expect((await api('GET', `/dashboard-v2/${privateId}`, { token: member() })).status).toBe(404);
  });

  it("refuses a colleague's private dashboard exactly as an unknown one, at create", async () => {
    const priv = await create(member(), [{ type: 'DASHBOARD_PDF', dashboardId: privateId }]);
    const unknown = await create(member(), [{ type: 'DASHBOARD_PDF', dashboardId: 'dash_doesnotexist' }]);
    for (const res of [priv, unknown]) {
      expect(res.status).toBe(400);
      const body = res.body as ValidationBody;
      expect(body.error).toBe('VALIDATION_ERROR');
      expect(body.details).toEqual([{ path: 'widgets.0.dashboardId', message: 'unknown dashboard' }]);
    }
    const snap = await create(member(), [
      { type: 'TEXT', contentMarkdown: 'x' },
      { type: 'GRAPH_SNAPSHOT', dashboardId: privateId, widgetKey: 'w1' },
    ]);
    expect(snap.status).toBe(400);
    expect((snap.body as ValidationBody).details).toEqual([
      { path: 'widgets.1.dashboardId', message: 'unknown dashboard' },
    ]);
    const missingKey = await create(member(), [
      { type: 'GRAPH_SNAPSHOT', dashboardId: publicId, widgetKey: 'nope' },
    ]);
    expect(missingKey.status).toBe(400);
    expect((missingKey.body as ValidationBody).details[0]!.path).toBe('widgets.0.widgetKey');
    // Visible ones are accepted: a public dashboard for the member, the private one for its admin.
    expect((await create(member(), [{ type: 'DASHBOARD_PDF', dashboardId: publicId }])).status).toBe(201);
    expect((await create(admin(), [{ type: 'DASHBOARD_PDF', dashboardId: privateId }])).status).toBe(201);
  });

  it('refuses it at PATCH too and leaves the report as it was', async () => {
    const ok = await create(member(), [{ type: 'DASHBOARD_PDF', dashboardId: publicId }]);
    expect(ok.status).toBe(201);
    const stored = ok.body as Report;
    const bad = await api<ValidationBody>('PATCH', `/reports/${stored.id}`, {
      token: member(),
      body: { widgets: [{ type: 'GRAPH_SNAPSHOT', dashboardId: privateId, widgetKey: 'w1' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: 'widgets.0.dashboardId', message: 'unknown dashboard' }]);
    const after = await api<Report>('GET', `/reports/${stored.id}`, { token: member() });
    expect(after.body.widgets).toEqual(stored.widgets);
    expect(after.body.version).toBe(stored.version);

    // A PUBLIC report the admin built on their private dashboard: the member may duplicate it (the
    // copy is theirs, INACTIVE) but cannot point the copy at themselves.
    const shared = await api<Report>('POST', '/reports', {
      token: admin(),
      body: {
        name: `Shared ${tag}`,
        type: 'PUBLIC',
        widgets: [{ type: 'DASHBOARD_PDF', dashboardId: privateId }],
        destinations: [{ destinationType: 'EMAIL', destinationValues: [`admin+${tag}@demo.example`] }],
      },
    });
    expect(shared.status).toBe(201);
    const dup = await api<{ reportId: string }>('POST', `/reports/${shared.body.id}/duplicate`, {
      token: member(),
      body: { name: `Copy ${tag}` },
    });
    expect(dup.status).toBe(201);
    const copy = await api<Report>('GET', `/reports/${dup.body.reportId}`, { token: member() });
    const redirect = await api<ValidationBody>('PATCH', `/reports/${dup.body.reportId}`, {
      token: member(),
      body: {
        status: 'ACTIVE',
        destinations: [{ destinationType: 'EMAIL', destinationValues: [`member+${tag}@demo.example`] }],
      },
    });
    expect(redirect.status).toBe(400);
    expect(redirect.body.details).toEqual([{ path: 'widgets.0.dashboardId', message: 'unknown dashboard' }]);
    const unchanged = await api<Report>('GET', `/reports/${dup.body.reportId}`, { token: member() });
    expect(unchanged.body.version).toBe(copy.body.version);
    expect(unchanged.body.destinations).toEqual(copy.body.destinations);
    // A change that neither adds widgets nor recipients is not blocked (renaming the copy).
    const rename = await api<Report>('PATCH', `/reports/${dup.body.reportId}`, {
      token: member(),
      body: { name: `Renamed ${tag}` },
    });
    expect(rename.status).toBe(200);
  });
});
