import type { RootCauses } from '../../shared/model/alerts';
import { type CsvRow, num } from '../integration/warehouse/support';
import {
  atLeast,
  drainQueues,
  emailsTo,
  sendEvaluationMessage,
  slackTo,
  snoozeOneArchiveOther,
  teamsTo,
} from '../support/alert-messages';
import { ingestAwsFocus } from '../support/daily-focus';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';
import { DAY_MS, monthStart, suiteIds, ymd } from '../support/suite';

/**
 * Budget alerts evaluated by the scheduled sweep and the evaluator on the local stack, for a new
 * organisation whose billing rows are generated here (docs/budgets.md "Budget alerts"). Every
 * figure a message or an evaluation states is computed here from the raw rows; each threshold
 * fires once per month and line through repeated sweeps and redelivered messages; a FORECASTED
 * threshold fires while the actual is under it; a snoozed or archived alert sends nothing; a
 * budget version re-arms only the thresholds whose amount it changed; a budget in EUR over USD
 * rows converts at each day's rate and says so.
 */
const s = () => session();
const { run, orgId, userId } = suiteIds('bal');

let token = '';
let rows: CsvRow[] = [];
let rates = new Map<string, number>();
const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);

interface Figures {
  budget: number;
  actual: number;
  forecast: { value: number; lower80: number; upper80: number } | null;
}
interface Status {
  month: string;
  dataThrough: string;
  lines: (Figures & { value: string | null })[];
  total: Figures;
  conversion: { from: string[]; to: string } | null;
}
const money = (x: number, currency: string) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: Math.abs(x) >= 100 ? 0 : 2,
    maximumFractionDigits: Math.abs(x) >= 100 ? 0 : 2,
  }).format(x);

/** The Slack messages posted to a channel (not the burn chart's upload calls). */
const slackPosts = async (channel: string) =>
  (await slackTo(channel)).filter((m) => m.path.endsWith('/chat.postMessage'));
const drain = async () => {
  expect(await drainQueues()).toBe(true);
};
/** One sweep at `now` for this organisation only, then everything it enqueued is processed. */
const sweep = async (now: Date) => {
  const res = await api('POST', '/_local/tick', {
    body: { schedule: 'alert-sweep', now: now.toISOString(), detail: { orgIds: [orgId] } },
  });
  expect(res.status).toBe(200);
  await drain();
  await new Promise((r) => setTimeout(r, 500));
};

const today = Date.parse(`${ymd(Date.now())}T00:00:00Z`);
const to = `budget-${run}@example.com`;
const snoozedTo = `budget-snoozed-${run}@example.com`;
const archivedTo = `budget-archived-${run}@example.com`;
const channel = `CBUD${run.toUpperCase()}`;
const teamsHook = () => `${s().endpoints.capture}/teams/budget-${run}`;

/** The month the evaluator looks at and its last complete day, read from the status route. */
let month = '';
let through = '';
const inMonth = (r: CsvRow) => day(r).startsWith(month) && day(r) <= through;
const usd = (filter: (r: CsvRow) => boolean) =>
  rows.filter(filter).reduce((a, r) => a + num(r.BilledCost), 0);
const eur = (filter: (r: CsvRow) => boolean) =>
  rows.filter(filter).reduce((a, r) => a + num(r.BilledCost) / rateOn(rates, day(r)), 0);

const ids: Record<string, string> = {};
let total: Status;
let top: [string, string];

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await api<T>('POST', path, { token, body });
  expect({ path, status: res.status, body: res.body }).toEqual({
    path,
    status: 201,
    body: expect.anything(),
  });
  return res.body;
}
async function status(id: string): Promise<Status> {
  const res = await api<Status>('GET', `/budgets/${id}/status`, { token });
  expect(res.status).toBe(200);
  return res.body;
}
const alertBody = (name: string, budgetId: string, extra: Record<string, unknown>) => ({
  name,
  budgetId,
  notificationChannel: 'EMAIL',
  emails: [to],
  ...extra,
});

beforeAll(async () => {
  rates = seedUsdPerEur();
  // Every generated day has a euro rate (the seed's rates start a month before the demo's data).
  expect([...rates.keys()].sort()[0]! <= monthStart(new Date(today), 3)).toBe(true);
  token = await freshOrg(orgId, userId, `budget alerts ${run}`);
  const months = [3, 2, 1, 0].map((o) => monthStart(new Date(today), o).slice(0, 7));
  rows = ingestAwsFocus(
    orgId,
    { seed: 2828, months, resourcesPerProvider: 3, accountPrefix: `ba${run}` },
    'focus_budget_alerts.csv',
  );

  // The month and its last complete day, as the engine sees them (a budget with no amount yet).
  const probe = await post<{ id: string }>('/budgets', {
    name: `probe ${run}`,
    startMonth: months[0],
    lines: [{ value: null, owner: null, amounts: { [months[0]!]: 1 } }],
  });
  const st = await status(probe.id);
  through = st.dataThrough;
  // The evaluator looks at the month of the last complete day when that is still the previous one.
  month = [through.slice(0, 7), st.month].sort()[0]!;
  const byService = new Map<string, number>();
  for (const r of rows.filter(inMonth))
    byService.set(String(r.ServiceName), (byService.get(String(r.ServiceName)) ?? 0) + num(r.BilledCost));
  const ranked = [...byService].sort((a, b) => b[1] - a[1]);
  top = [ranked[0]![0], ranked[1]![0]];

  const actual = usd(inMonth);
  ids.total = (
    await post<{ id: string }>('/budgets', {
      name: `Cloud total ${run}`,
      startMonth: month,
      lines: [{ value: null, owner: 'finops@example.com', amounts: { [month]: Math.round(actual * 1.5) } }],
    })
  ).id;
  total = await status(ids.total);
  const [a, b] = top;
  ids.lines = (
    await post<{ id: string }>('/budgets', {
      name: `By service ${run}`,
      groupBy: 'service',
      startMonth: month,
      lines: [
        {
          value: a,
          owner: 'ops@example.com',
          amounts: { [month]: Math.round(usd((r) => inMonth(r) && r.ServiceName === a) * 1.5) },
        },
        {
          value: b,
          owner: null,
          amounts: { [month]: Math.round(usd((r) => inMonth(r) && r.ServiceName === b) * 10) },
        },
      ],
    })
  ).id;
  ids.eur = (
    await post<{ id: string }>('/budgets', {
      name: `EUR total ${run}`,
      currency: 'EUR',
      startMonth: month,
      lines: [{ value: null, owner: null, amounts: { [month]: Math.round(eur(inMonth) * 1.5) } }],
    })
  ).id;

  // Between the actual and the forecast: a FORECASTED threshold there fires, an ACTUAL one not.
  const midway = Math.round((total.total.actual + total.total.forecast!.lower80) / 2);
  ids.totalAlert = (
    await post<{ id: string }>(
      '/alerts-v2/budgetAlerts',
      alertBody(`Total ${run}`, ids.total, {
        thresholds: [
          { value: 50, severityLevel: 'WARNING', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' },
          { value: 90, severityLevel: 'CRITICAL', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' },
          { value: midway, severityLevel: 'WARNING', metricMode: 'ABSOLUTE_SPEND', basis: 'FORECASTED' },
          { value: midway, severityLevel: 'CRITICAL', metricMode: 'ABSOLUTE_SPEND', basis: 'ACTUAL' },
        ],
      }),
    )
  ).id;
  ids.linesAlert = (
    await post<{ id: string }>(
      '/alerts-v2/budgetAlerts',
      alertBody(`Each service ${run}`, ids.lines, {
        line: '*',
        notificationChannel: 'SLACK',
        emails: [],
        slackChannelId: channel,
        thresholds: [{ value: 50, metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' }],
      }),
    )
  ).id;
  ids.eurAlert = (
    await post<{ id: string }>(
      '/alerts-v2/budgetAlerts',
      alertBody(`EUR ${run}`, ids.eur, {
        notificationChannel: 'TEAMS',
        emails: [],
        teamsChannelId: teamsHook(),
        thresholds: [{ value: 50, metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' }],
      }),
    )
  ).id;
  const quiet = { thresholds: [{ value: 1, metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' }] };
  ids.snoozed = (
    await post<{ id: string }>(
      '/alerts-v2/budgetAlerts',
      alertBody(`Snoozed ${run}`, ids.total, { ...quiet, emails: [snoozedTo] }),
    )
  ).id;
  ids.archived = (
    await post<{ id: string }>(
      '/alerts-v2/budgetAlerts',
      alertBody(`Archived ${run}`, ids.total, { ...quiet, emails: [archivedTo] }),
    )
  ).id;
  await snoozeOneArchiveOther('budgetAlerts', token, { snoozed: ids.snoozed, archived: ids.archived }, 30);
}, 600_000);

jest.setTimeout(300_000);

describe('budget alerts through the sweep and the evaluator', () => {
  it('the crossed thresholds fire once each, with figures computed from the raw rows', async () => {
    const actual = usd(inMonth);
    expect(Math.abs(total.total.actual - actual)).toBeLessThan(1e-6);
    const f = total.total.forecast!;
    await sweep(new Date());
    const mails = await atLeast(() => emailsTo(to), 2);
    // 50 % of budget (actual at ~67 %) and the FORECASTED amount between actual and forecast fire;
    // 90 % and the same amount on the ACTUAL do not: the forecast crossed before the actual did.
    expect(mails).toHaveLength(2);
    const texts = mails.map((m) => m.body.text ?? '');
    const forecasted = texts.find((t) => t.includes('month-end forecast of the budget total'))!;
    const actualFired = texts.find((t) => t.includes('actual spend of the budget total'))!;
    expect(forecasted).toBeDefined();
    expect(actualFired).toBeDefined();
    for (const text of texts) {
      expect(text).toContain(`Budget: Cloud total ${run}`);
      expect(text).toContain('Owner: finops@example.com');
      expect(text).toContain(`Actual to date (through ${through}): ${money(actual, 'USD')}`);
      expect(text).toContain(
        `Month-end forecast: ${money(f.value, 'USD')} (80% interval ${money(f.lower80, 'USD')} – ${money(f.upper80, 'USD')})`,
      );
      expect(text).toContain(`Budget for ${month}: ${money(total.total.budget, 'USD')}`);
      const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0));
      expect(text).toContain(
        `Days left in the month: ${Math.round((last.getTime() - Date.parse(`${through}T00:00:00Z`)) / DAY_MS)}`,
      );
      // The top three services behind the month's spend, biggest first, with their sums.
      const bySvc = new Map<string, number>();
      for (const r of rows.filter(inMonth))
        bySvc.set(String(r.ServiceName), (bySvc.get(String(r.ServiceName)) ?? 0) + num(r.BilledCost));
      const three = [...bySvc].sort((a, b) => b[1] - a[1]).slice(0, 3);
      expect(text).toContain(
        `Top service values this month: ${three.map(([v, x]) => `${v} ${money(x, 'USD')}`).join(', ')}`,
      );
      // The link opens the budget's page on the month fired (the console's round trip: test/browser).
      expect(text).toMatch(
        new RegExp(`Open the budget: http\\S*/#/budgets/${ids.total}\\?month=${month}(\\s|$)`),
      );
    }
    // The burn chart: inline in each e-mail (its Content-ID used by the HTML), and shared in Slack.
    for (const m of mails) {
      expect(
        (m.attachments ?? []).map((a) => [a.filename, a.contentType, a.contentDisposition, a.cid]),
      ).toEqual([['burn-chart.png', 'image/png', 'inline', 'burn-chart.png']]);
      const png = Buffer.from(m.attachments![0]!.content, 'base64');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(m.body.html).toContain(`src="data:image/png;base64,${m.attachments![0]!.content}"`);
    }
    expect(forecasted).toContain('Threshold crossed: WARNING: forecast ≥');
    expect(actualFired).toContain('Threshold crossed: WARNING: actual ≥ 50% of budget');

    const slack = await atLeast(() => slackPosts(channel), 1);
    expect(slack).toHaveLength(1);
    const slackText = JSON.stringify(slack[0]!.body);
    expect(slackText).toContain(`service ${top[0]}`);
    expect(slackText).toContain(
      money(
        usd((r) => inMonth(r) && r.ServiceName === top[0]),
        'USD',
      ),
    );

    const eurHistory = await api<{
      items: { checks: { crossed: boolean; measured: number; notificationId: string | null }[] }[];
    }>('GET', `/alerts-v2/budgetAlerts/${ids.eurAlert}/history`, { token });
    expect(eurHistory.body.items).toHaveLength(1);
    expect(eurHistory.body.items[0]!.checks[0]).toMatchObject({
      crossed: true,
      notificationId: expect.any(String),
    });
    expect(Math.abs(eurHistory.body.items[0]!.checks[0]!.measured - eur(inMonth))).toBeLessThan(1e-6);
    const files = (await (
      await fetch(`${process.env.CAPTURE_URL}/slack/files?channel=${encodeURIComponent(channel)}`)
    ).json()) as { filename: string; content: string | null }[];
    expect(files.map((f) => f.filename)).toEqual(['burn-chart.png']);
    expect(
      Buffer.from(files[0]!.content ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const teams = await atLeast(() => teamsTo(teamsHook()), 1);
    expect(teams).toHaveLength(1);
    const card = JSON.stringify(teams[0]!.body);
    expect(card).toContain(money(eur(inMonth), 'EUR'));
    expect(card).toContain("converted from USD to EUR at each day's rate");

    expect(await emailsTo(snoozedTo)).toHaveLength(0);
    expect(await emailsTo(archivedTo)).toHaveLength(0);

    const history = await api<{
      items: {
        month: string;
        checks: { crossed: boolean; measured: number; notificationId: string | null; basis: string }[];
      }[];
    }>('GET', `/alerts-v2/budgetAlerts/${ids.totalAlert}/history`, { token });
    expect(history.body.items).toHaveLength(1);
    const checks = history.body.items[0]!.checks;
    expect(history.body.items[0]!.month).toBe(month);
    expect(checks.map((c) => c.crossed)).toEqual([true, false, true, false]);
    expect(checks.filter((c) => c.notificationId).length).toBe(2);
    expect(Math.abs(checks[0]!.measured - actual)).toBeLessThan(1e-6);
    // Root causes: service × sub-account × region, the month to date against the same days of the
    // previous month, summed here from the raw rows; stored in the history and shown in the e-mail.
    const rc = (history.body.items[0] as unknown as { rootCauses: RootCauses }).rootCauses;
    const prevFirst = ymd(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 2, 1));
    const prevLast = ymd(Date.parse(`${month}-01T00:00:00Z`) - DAY_MS);
    const sameDay = ymd(Date.parse(`${prevFirst}T00:00:00Z`) + (Number(through.slice(8, 10)) - 1) * DAY_MS);
    const prevEnd = [sameDay, prevLast].sort()[0]!;
    const label = (r: CsvRow) =>
      [r.ServiceName, r.SubAccountId, r.RegionId].map((v) => String(v ?? '') || '(no value)').join(' / ');
    const sums = (f: (r: CsvRow) => boolean) => {
      const m = new Map<string, number>();
      for (const r of rows.filter(f)) m.set(label(r), (m.get(label(r)) ?? 0) + num(r.BilledCost));
      return m;
    };
    const before = sums((r) => day(r) >= prevFirst && day(r) <= prevEnd);
    const after = sums(inMonth);
    const totalOf = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    expect(rc.dimension).toBe('service / sub-account / region');
    expect(rc.baseline).toMatchObject({ start: prevFirst, end: prevEnd });
    expect(Math.abs(rc.before - totalOf(before))).toBeLessThan(1e-6);
    expect(Math.abs(rc.after - actual)).toBeLessThan(1e-6);
    const changes = [...new Set([...before.keys(), ...after.keys()])]
      .map((k) => [k, (after.get(k) ?? 0) - (before.get(k) ?? 0)] as const)
      .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
    expect(rc.top.length).toBe(Math.min(5, changes.filter(([, c]) => c !== 0).length));
    rc.top.forEach((c, i) => {
      expect(c.label).toBe(changes[i]![0]);
      expect(Math.abs(c.change - changes[i]![1])).toBeLessThan(1e-6);
      expect(Math.abs(c.share! - (changes[i]![1] / (rc.after - rc.before)) * 100)).toBeLessThan(1e-6);
    });
    const explained = rc.top.reduce((a, c) => a + c.change, 0) / (actual - totalOf(before));
    expect(Math.abs(rc.explained! - explained * 100)).toBeLessThan(1e-6);
    expect(actualFired).toContain(`Top contributors by service / sub-account / region`);
    expect(actualFired).toContain(
      `${rc.top[0]!.label}: ${money(rc.top[0]!.before, 'USD')} → ${money(rc.top[0]!.after, 'USD')}`,
    );
    const snoozedHistory = await api<{
      items: { checks: { crossed: boolean; suppressedBy: string | null }[] }[];
    }>('GET', `/alerts-v2/budgetAlerts/${ids.snoozed}/history`, { token });
    expect(snoozedHistory.body.items[0]!.checks[0]).toMatchObject({ crossed: true, suppressedBy: 'SNOOZE' });
  });

  it('more sweeps and redelivered messages send nothing more', async () => {
    await sweep(new Date(Date.now() + DAY_MS));
    await sweep(new Date(Date.now() + 2 * DAY_MS));
    for (let i = 0; i < 2; i++)
      await sendEvaluationMessage({
        kind: 'budget',
        orgId,
        budgetAlertIds: [ids.totalAlert, ids.linesAlert, ids.eurAlert, ids.snoozed, ids.archived],
        scheduledFor: new Date().toISOString(),
      });
    await drain();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await emailsTo(to)).toHaveLength(2);
    expect(await slackPosts(channel)).toHaveLength(1);
    expect(await teamsTo(teamsHook())).toHaveLength(1);
    expect(await emailsTo(snoozedTo)).toHaveLength(0);
    expect(await emailsTo(archivedTo)).toHaveLength(0);
    const history = await api<{ items: unknown[] }>(
      'GET',
      `/alerts-v2/budgetAlerts/${ids.totalAlert}/history`,
      { token },
    );
    expect(history.body.items.length).toBeGreaterThanOrEqual(3);
  });

  it('a budget version re-arms only the thresholds whose amount it changed', async () => {
    const read = await api<Record<string, unknown>>('GET', `/budgets/${ids.total}`, { token });
    const body = (changes: Record<string, unknown>) => ({
      name: read.body.name,
      startMonth: read.body.startMonth,
      lines: read.body.lines,
      ...changes,
    });
    // A new name only: nothing re-armed.
    expect(
      (await api('PUT', `/budgets/${ids.total}`, { token, body: body({ name: `Cloud total ${run}` }) }))
        .status,
    ).toBe(200);
    await sweep(new Date(Date.now() + 3 * DAY_MS));
    expect(await emailsTo(to)).toHaveLength(2);
    // A new amount: the 50 % threshold means another amount and fires again; the absolute one not.
    const amount = Math.round(usd(inMonth) * 1.2);
    const lines = [{ value: null, owner: 'finops@example.com', amounts: { [month]: amount } }];
    expect((await api('PUT', `/budgets/${ids.total}`, { token, body: body({ lines }) })).status).toBe(200);
    await sweep(new Date(Date.now() + 4 * DAY_MS));
    const mails = await atLeast(() => emailsTo(to), 3);
    expect(mails).toHaveLength(3);
    const latest = mails
      .map((m) => m.body.text ?? '')
      .find((t) => t.includes(`Budget for ${month}: ${money(amount, 'USD')}`));
    expect(latest).toContain('Threshold crossed: WARNING: actual ≥ 50% of budget');
  });
});
