import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { costQuery } from '../support/explorer';
import { explorerPeriodTotals } from '../support/explorer-http';
import { api, session } from '../support/session';

/**
 * Scheduled delivery on the local stack: the report-sweep ticked with a clock, the report-delivery
 * worker, the SES emulator's store and the capture server's Slack calls. Figures are checked
 * against `POST /queries/explorer` answered for the period the report states.
 */
interface Report {
  id: string;
  nextRunAt: string | null;
  [k: string]: unknown;
}
interface StoredEmail {
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
}
interface Captured {
  path: string;
  headers: Record<string, string>;
  body: { channel?: string; blocks?: unknown[]; text?: string };
}

const s = () => session();
const admin = () => s().apiKeys.admin;
const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function emailsTo(address: string): Promise<StoredEmail[]> {
  const res = await fetch(`${process.env.SES_ENDPOINT}/store`);
  const store = (await res.json()) as { emails: StoredEmail[] };
  return store.emails.filter((e) => e.destination.to.some((t) => t.includes(address)));
}

async function slackPostsTo(channel: string): Promise<Captured[]> {
  const res = await fetch(`${process.env.CAPTURE_URL}/messages?kind=slack`);
  const calls = (await res.json()) as Captured[];
  return calls.filter((c) => c.path.endsWith('/chat.postMessage') && c.body?.channel === channel);
}

async function tick(now: string) {
  const res = await api<{ result: { due: number; enqueued: number } }>('POST', '/_local/tick', {
    body: { schedule: 'report-sweep', now },
  });
  expect(res.status).toBe(200);
  const drained = await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } });
  expect(drained.status).toBe(200);
  return res.body.result;
}

const _cost = (name: string, extra: Record<string, unknown> = {}) =>
  costQuery(name, { chartType: 'BAR', ...extra });

const explorerTotals = (start: string, end: string, groupBy: string[]) =>
  explorerPeriodTotals(admin(), start, end, groupBy);

describe('scheduled report delivery', () => {
  const email = `finops+${tag}@example.com`;
  const channel = `C${tag.toUpperCase()}`;
  let report: Report;

  beforeAll(async () => {
    const res = await api<Report>('POST', '/reports', {
      token: admin(),
      body: {
        name: `Weekly spend ${tag}`,
        description: 'Cloud cost, week over week <b>not bold</b>',
        scheduledPeriod: 'WEEKLY',
        scheduledWeekday: 1,
        context: { metricId: 'cost', groupBy: 'provider', datePreset: 'LAST_MONTH', currency: 'USD' },
        widgets: [
          { type: 'TEXT', contentMarkdown: '## Hello\n\nThis is **our** weekly report. <script>x</script>' },
          {
            type: 'DIGEST',
            additionalGroupBy: ['service'],
            display: 'tree',
            minAbsoluteDiff: 1,
            minRelativeDiff: 1,
          },
          { type: 'DIGEST', display: 'summary' },
          // The first release's names are still accepted.
          { type: 'TOP_FLOP', groupBy: 'service', limit: 3 },
        ],
        destinations: [
          { destinationType: 'EMAIL', destinationValues: [email] },
          { destinationType: 'SLACK', destinationValues: [channel] },
        ],
      },
    });
    expect(res.status).toBe(201);
    report = res.body;
  });

  it('stores the next run on Monday 08:00 and the widgets with the reference names', () => {
    expect(report.nextRunAt).not.toBeNull();
    const next = new Date(report.nextRunAt as string);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(7 * 86_400_000 + 3_600_000 * 14);
    expect(report.widgets).toContainEqual({ type: 'TOP_FLOP', groupBy: 'service', topN: 3, flopN: 3 });
  });

  it('delivers exactly once at the due time, with figures equal to the explorer', async () => {
    const due = report.nextRunAt as string;
    await tick(new Date(new Date(due).getTime() - 60_000).toISOString());
    expect(await emailsTo(email)).toHaveLength(0);

    await tick(due);
    const emails = await emailsTo(email);
    const posts = await slackPostsTo(channel);
    expect(emails).toHaveLength(1);
    expect(posts).toHaveLength(1);
    const mail = emails[0]!;
    expect(mail.subject).toBe(`Weekly spend ${tag} (${due.slice(0, 10)})`);
    expect(mail.body.html).toContain('<strong>our</strong>');
    expect(mail.body.html).not.toContain('<script>');
    expect(mail.body.html).not.toContain('<b>not bold</b>');
    mkdirSync('test-artifacts', { recursive: true });
    writeFileSync(join('test-artifacts', 'report-email.html'), mail.body.html ?? '');
    writeFileSync(join('test-artifacts', 'report-email.txt'), mail.body.text ?? '');
    writeFileSync(join('test-artifacts', 'report-slack.json'), JSON.stringify(posts[0]!.body, null, 2));

    // The total the email states equals the explorer's for the period the email states.
    const text = mail.body.text ?? '';
    const stated = text.match(/to (\$[\d,.]+) for (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})\./);
    expect(stated).not.toBeNull();
    const [, amount, start, end] = stated as RegExpMatchArray;
    const q = await explorerTotals(start!, end!, ['provider']);
    const sum = q.series.reduce((a, x) => a + (x.total ?? 0), 0);
    const fmt = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      maximumFractionDigits: 0,
    });
    expect(amount).toBe(fmt.format(sum));

    // Each provider line of the Slack digest carries the explorer's figure for that provider.
    const blocksText = JSON.stringify(posts[0]!.body.blocks);
    let checked = 0;
    for (const series of q.series) {
      const line = `• ${series.group.provider}: `;
      if (!blocksText.includes(line)) continue;
      const total = series.total ?? 0;
      const f = new Intl.NumberFormat('en-US', {
        style: 'currency',
        currency: 'USD',
        maximumFractionDigits: Math.abs(total) >= 100 ? 0 : 2,
      });
      expect(blocksText).toContain(`${line}${f.format(total)} (`);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);

    // Tick again (a second sweep, and a late one): nothing more.
    await tick(due);
    await tick(new Date(new Date(due).getTime() + 3_600_000).toISOString());
    expect(await emailsTo(email)).toHaveLength(1);
    expect(await slackPostsTo(channel)).toHaveLength(1);

    const after = await api<Report>('GET', `/reports/${report.id}`, { token: admin() });
    expect(
      new Date(after.body.nextRunAt as string).getTime() - new Date(due).getTime(),
    ).toBeGreaterThanOrEqual(6 * 86_400_000);

    const log = await api<{
      items: { runAt: string; destination: string; status: string; error: null }[];
      nextCursor: string | null;
    }>('GET', `/reports/${report.id}/deliveries?limit=1`, { token: admin() });
    expect(log.status).toBe(200);
    expect(log.body.items).toHaveLength(1);
    expect(log.body.nextCursor).not.toBeNull();
    const page2 = await api<{ items: { runAt: string; destination: string; status: string }[] }>(
      'GET',
      `/reports/${report.id}/deliveries?limit=5&cursor=${encodeURIComponent(log.body.nextCursor as string)}`,
      { token: admin() },
    );
    const all = [...log.body.items, ...page2.body.items];
    expect(all.map((d) => [d.runAt, d.destination, d.status]).sort()).toEqual(
      [
        [due, channel, 'SENT'],
        [due, email, 'SENT'],
      ].sort(),
    );
  }, 180_000);

  it('delivers nothing for an INACTIVE report and keeps it off the due index', async () => {
    const inactiveChannel = `CI${tag.toUpperCase()}`;
    const res = await api<Report>('POST', '/reports', {
      token: admin(),
      body: {
        name: `Inactive ${tag}`,
        status: 'INACTIVE',
        scheduledPeriod: 'DAILY',
        widgets: [{ type: 'TEXT', contentMarkdown: 'x' }],
        destinations: [{ destinationType: 'SLACK', destinationValues: [inactiveChannel] }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.nextRunAt).toBeNull();
    await tick(new Date(Date.now() + 3 * 86_400_000).toISOString());
    expect(await slackPostsTo(inactiveChannel)).toHaveLength(0);
    // Activated, it gets a next run.
    const on = await api<Report>('PATCH', `/reports/${res.body.id}`, {
      token: admin(),
      body: { status: 'ACTIVE' },
    });
    expect(on.body.nextRunAt).not.toBeNull();
  }, 120_000);

  it('POST /reports/{id}/send delivers now', async () => {
    const sendChannel = `CS${tag.toUpperCase()}`;
    const { body: r } = await api<Report>('POST', '/reports', {
      token: admin(),
      body: {
        name: `On demand ${tag}`,
        widgets: [{ type: 'TEXT', contentMarkdown: 'now' }],
        destinations: [{ destinationType: 'SLACK', destinationValues: [sendChannel] }],
      },
    });
    expect(r.nextRunAt).toBeNull();
    const sent = await api<{ runAt: string; destinations: number }>('POST', `/reports/${r.id}/send`, {
      token: admin(),
    });
    expect(sent.status).toBe(202);
    expect(sent.body.destinations).toBe(1);
    await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } });
    expect(await slackPostsTo(sendChannel)).toHaveLength(1);
    const other = await api('POST', `/reports/${r.id}/send`, { token: s().apiKeys.outsider });
    expect(other.status).toBe(404);
  }, 120_000);

  it('POST /reports/preview-widget answers the digest tree, equal to the explorer for its periods', async () => {
    const res = await api<{
      period: { startDate: string; endDate: string };
      comparisonPeriod: { startDate: string; endDate: string };
      totals: { current: number; previous: number };
      tree: {
        value: string | null;
        current: number;
        previous: number;
        children: { value: string | null; current: number }[];
      }[];
    }>('POST', '/reports/preview-widget', {
      token: admin(),
      body: {
        context: { groupBy: 'provider', datePreset: 'LAST_MONTH' },
        widget: { type: 'DIGEST', additionalGroupBy: ['service'] },
      },
    });
    expect(res.status).toBe(200);
    const { period, comparisonPeriod, tree, totals } = res.body;
    const cur = await explorerTotals(period.startDate, period.endDate, ['provider', 'service']);
    const prev = await explorerTotals(comparisonPeriod.startDate, comparisonPeriod.endDate, [
      'provider',
      'service',
    ]);
    const sumWhere = (q: typeof cur, f: (g: Record<string, string | null>) => boolean) =>
      q.series.filter((x) => f(x.group)).reduce((a, x) => a + (x.total ?? 0), 0);
    expect(tree.length).toBeGreaterThan(0);
    for (const node of tree) {
      expect(node.current).toBeCloseTo(
        sumWhere(cur, (g) => g.provider === node.value),
        4,
      );
      expect(node.previous).toBeCloseTo(
        sumWhere(prev, (g) => g.provider === node.value),
        4,
      );
      for (const child of node.children)
        expect(child.current).toBeCloseTo(
          sumWhere(cur, (g) => g.provider === node.value && g.service === child.value),
          4,
        );
    }
    expect(totals.current).toBeCloseTo(
      sumWhere(cur, () => true),
      4,
    );
    const bad = await api<{ error: string }>('POST', '/reports/preview-widget', {
      token: admin(),
      body: { widget: { type: 'DIGEST', display: 'table', additionalGroupBy: ['a', 'b'] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_ERROR');
  }, 120_000);
});
