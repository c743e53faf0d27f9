import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { num, parseCsv } from '../integration/warehouse/support';
import {
  atLeast,
  costAlertHistory,
  drainQueues,
  emailsTo,
  sendEvaluationMessage,
  slackTo,
  sweepAlertsOf,
  teamsTo,
} from '../support/alert-messages';
import { ingestOk } from '../support/cli';
import { CUR2_HEADER, csvText, curCommitmentLines, RI_ARN, SP_ARN } from '../support/commitment-exports';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { DAY_MS, suiteIds, ymd } from '../support/suite';

/**
 * Expiring-commitment alerts on the local stack (`/alerts-v2/commitmentAlerts`, docs/commitments.md):
 * a new organisation holds a generated CUR 2.0 whose Savings Plan ends in 20 days and whose RI ends
 * in 75; alerts are swept and evaluated through SQS by the local workers and delivered to the Slack
 * and Teams capture. Each commitment is announced exactly once per window however many ticks and
 * redeliveries follow; the utilisation and hourly commitment shown are computed here from the raw
 * CUR lines.
 */
const { run, orgId } = suiteIds('cxa');
const now = Date.now();
const DAYS = [6, 5, 4].map((i) => ymd(now - i * DAY_MS));
const SP_END_DAY = ymd(now + 20 * DAY_MS);
const RI_END_DAY = ymd(now + 75 * DAY_MS);
const channel = `C-cxa-${run}`;
const hook = () => `${session().endpoints.capture}/teams/cxa-${run}`;
const snoozedTo = `cxa-snoozed-${run}@example.com`;
const archivedTo = `cxa-archived-${run}@example.com`;

let token = '';
const curText = csvText(
  CUR2_HEADER,
  curCommitmentLines(DAYS, `${SP_END_DAY}T23:59:59Z`, `${RI_END_DAY}T23:59:59Z`),
);
const cur = parseCsv(curText);
const ids: Record<string, string> = {};

/** used ÷ (used + unused) of one commitment, from the raw CUR lines (the providers' meaning of each line). */
function utilisationOf(id: string): number {
  let used = 0;
  let unused = 0;
  for (const r of cur) {
    if ((r.savings_plan_savings_plan_a_r_n ?? r.reservation_reservation_a_r_n) !== id) continue;
    const type = r.line_item_line_item_type;
    if (type === 'SavingsPlanCoveredUsage') used += num(r.savings_plan_savings_plan_effective_cost);
    if (type === 'DiscountedUsage') used += num(r.reservation_effective_cost);
    if (type === 'SavingsPlanRecurringFee')
      unused += num(r.savings_plan_total_commitment_to_date) - num(r.savings_plan_used_commitment);
    if (type === 'RIFee')
      unused +=
        num(r.reservation_unused_amortized_upfront_fee_for_billing_period) +
        num(r.reservation_unused_recurring_fee);
  }
  return used / (used + unused);
}

/** The Savings Plan's hourly commitment: its fee line's commitment over the line's hours. */
function spHourly(): number {
  const fee = cur.filter((r) => r.line_item_line_item_type === 'SavingsPlanRecurringFee').at(-1)!;
  const hours =
    (Date.parse(fee.line_item_usage_end_date!) - Date.parse(fee.line_item_usage_start_date!)) / 3_600_000;
  return num(fee.savings_plan_total_commitment_to_date) / hours;
}

const pct = (u: number) => `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(u * 100)}%`;

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string; withinDays: number }>('POST', '/alerts-v2/commitmentAlerts', {
    token,
    body,
  });
  expect(res.status).toBe(201);
  expect(res.body.withinDays).toBe(body.withinDays);
  return res.body.id;
}

const tick = async (at: Date) => {
  expect(await sweepAlertsOf([orgId], at)).toBe(true);
};

beforeAll(async () => {
  token = await freshOrg(orgId, `user_cxa${run}`, `commitment alerts ${run}`);
  const dir = mkdtempSync(join(tmpdir(), 'cxa-'));
  writeFileSync(join(dir, 'cur.csv'), curText);
  ingestOk(orgId, join(dir, 'cur.csv'));
  ids.slack = await create({
    name: `renewals ${run}`,
    withinDays: 90,
    notificationChannel: 'SLACK',
    slackChannelId: channel,
  });
  ids.teams = await create({
    name: `last month ${run}`,
    withinDays: 30,
    notificationChannel: 'TEAMS',
    teamsChannelId: hook(),
  });
  ids.snoozed = await create({
    name: 'snoozed',
    withinDays: 90,
    notificationChannel: 'EMAIL',
    emails: [snoozedTo],
  });
  ids.archived = await create({
    name: 'archived',
    withinDays: 90,
    notificationChannel: 'EMAIL',
    emails: [archivedTo],
  });
  const until = new Date(now + 30 * DAY_MS).toISOString();
  expect(
    (await api('POST', `/alerts-v2/commitmentAlerts/${ids.snoozed}/snooze`, { token, body: { until } }))
      .status,
  ).toBe(200);
  expect((await api('DELETE', `/alerts-v2/commitmentAlerts/${ids.archived}`, { token })).status).toBe(200);
}, 180_000);

describe('expiring-commitment alerts on the local stack', () => {
  test('the first tick announces each commitment once, named with its figures', async () => {
    await tick(new Date());
    const slack = await atLeast(() => slackTo(channel), 1);
    expect(slack).toHaveLength(1);
    const posted = JSON.stringify(slack[0]!.body);
    expect(posted).toContain('2 commitments ending within 90 days');
    expect(posted).toContain(`(${SP_ARN}): AWS, Savings Plan, ends ${SP_END_DAY} (20 days left)`);
    expect(posted).toContain(
      `hourly commitment ${spHourly()}/h, utilisation ${pct(utilisationOf(SP_ARN))} (last 30 days)`,
    );
    expect(posted).toContain(`(${RI_ARN}): AWS, Reservation, ends ${RI_END_DAY} (75 days left)`);
    expect(posted).toContain(`utilisation ${pct(utilisationOf(RI_ARN))} (last 30 days)`);
    expect(posted).toContain('/#/commitments');

    const cards = await atLeast(() => teamsTo(hook()), 1);
    expect(cards).toHaveLength(1);
    const card = JSON.stringify(cards[0]!.body);
    expect(card).toContain('1 commitment ending within 30 days');
    expect(card).toContain(SP_ARN);
    expect(card).not.toContain(RI_ARN);

    expect(await emailsTo(snoozedTo)).toHaveLength(0);
    expect(await emailsTo(archivedTo)).toHaveLength(0);
  });

  test('later ticks and a redelivered evaluation send nothing more', async () => {
    await tick(new Date(now + DAY_MS));
    await tick(new Date(now + 2 * DAY_MS));
    await sendEvaluationMessage({
      orgId,
      alertIds: [ids.slack!, ids.teams!, ids.snoozed!],
      scheduledFor: new Date().toISOString(),
    });
    expect(await drainQueues()).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await slackTo(channel)).toHaveLength(1);
    expect(await teamsTo(hook())).toHaveLength(1);
    expect(await emailsTo(snoozedTo)).toHaveLength(0);
    expect(await emailsTo(archivedTo)).toHaveLength(0);

    const listed = await api<{ items: { id: string }[] }>('GET', '/alerts-v2/commitmentAlerts', { token });
    expect(listed.body.items.map((a) => a.id).sort()).toEqual([ids.slack, ids.teams, ids.snoozed].sort());
    const costAlerts = await api<{ items: unknown[] }>('GET', '/alerts-v2/costAlerts', { token });
    expect(costAlerts.body.items).toEqual([]);
    const widget = await api('GET', `/alerts-v2/costAlerts/${ids.slack}/widgetData`, { token });
    expect(widget.status).toBe(404);
    const history = await costAlertHistory(ids.slack!, token);
    // The first tick announced; every later evaluation found nothing new.
    expect(history.body.items.filter((e) => e.notificationId !== null)).toHaveLength(1);
    expect(history.body.items.filter((e) => e.triggered)).toHaveLength(1);
  });

  test('the notification target is checked like the cost alerts’ (400 naming the field)', async () => {
    const bad = async (body: Record<string, unknown>) =>
      api<{ message?: string }>('POST', '/alerts-v2/commitmentAlerts', { token, body });
    expect(
      (await bad({ name: 'x', withinDays: 45, notificationChannel: 'SLACK', slackChannelId: 'C1' })).status,
    ).toBe(400);
    const ssrf = await bad({
      name: 'x',
      withinDays: 30,
      notificationChannel: 'TEAMS',
      teamsChannelId: 'http://169.254.169.254/x',
    });
    expect(ssrf.status).toBe(400);
    expect(JSON.stringify(ssrf.body)).toContain('teamsChannelId');
  });
});
