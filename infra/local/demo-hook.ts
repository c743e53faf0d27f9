import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { budgetMonths } from '../../shared/domain/budgets/rules';
import type { LocalHook } from './local-hook';
import type { DemoSeed } from './seed';

/**
 * The demo organisation's product content (`npm start`, once the stack is ready: after the
 * warehouse's billing seed, before the session file is written), so the
 * first sign-in opens on real screens: a starter dashboard, a weekly report, two cost alerts
 * (one of which has fired and has history) and a monthly budget by provider with a budget alert. Made as a user would, through the HTTP API with the
 * demo admin's key (the same validation, the same records), and once per state folder: the
 * marker `demo-content.json` is written when all of it exists, and an item already there by name
 * is not made twice (a start interrupted half-way completes on the next one). Removing an item
 * later does not bring it back.
 *
 * The fired alert: a daily spend threshold just under the last complete day's spend (read from the
 * explorer at seed time), so the first sweep, asked for here and run by the alert workers, fires it
 * on that day and records it; the other alert (a spike against the 28-day median) is evaluated by
 * the same sweep and stays quiet on ordinary days.
 */
export const DEMO_CONTENT_FILE = 'demo-content.json';
export const DEMO_NAMES = {
  dashboard: 'Cloud spend overview',
  report: 'Weekly cloud spend',
  firedAlert: 'Daily spend over limit',
  quietAlert: 'Daily spend spike',
  budget: 'Monthly cloud budget',
  budgetAlert: 'Monthly budget watch',
} as const;

/** Months of amounts in the demo budget: last month and the three after it. */
export const DEMO_BUDGET_MONTHS = 4;

/**
 * A demo budget line's monthly amount: last month's spend of its provider plus 10 %, rounded up to
 * the next 10 (a plan a team would write down, not a figure to the cent).
 */
export const demoBudgetAmount = (lastMonth: number): number => Math.ceil((lastMonth * 1.1) / 10) * 10;

type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;

function caller(baseUrl: string, key: string): Call {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`demo content: ${method} ${path} answered ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };
}

const widget = (
  key: string,
  place: { x: number; y: number; w: number; h: number },
  title: string,
  request: Record<string, unknown>,
) => ({ key, ...place, title, source: { type: 'advancedExplorer', request } });

const costQuery = (chartType: string, groupBy: string | null) => ({
  type: 'cost',
  name: 'spend',
  alias: 'Spend',
  colorIndex: 0,
  chartType,
  groupBy,
});

export function demoDashboardBody() {
  return {
    name: DEMO_NAMES.dashboard,
    description: 'Where the money goes: by provider and service, day by day, and the top services.',
    type: 'PUBLIC',
    widgets: [
      widget('provider', { x: 0, y: 0, w: 6, h: 4 }, 'Spend by provider', {
        period: { datePreset: 'LAST_3_MONTHS', aggBy: 'Month' },
        queries: [costQuery('BAR', 'provider')],
      }),
      widget('service', { x: 6, y: 0, w: 6, h: 4 }, 'Spend by service', {
        period: { datePreset: 'LAST_3_MONTHS', aggBy: 'Month' },
        queries: [costQuery('BAR', 'service')],
        displayOptions: { topN: 6 },
      }),
      widget('trend', { x: 0, y: 4, w: 12, h: 4 }, 'Daily trend', {
        period: { datePreset: 'TRAILING_30_DAYS', aggBy: 'Day' },
        queries: [costQuery('LINE', null)],
      }),
      widget('top', { x: 0, y: 8, w: 12, h: 5 }, 'Top services', {
        period: { datePreset: 'TRAILING_30_DAYS', aggBy: 'Period' },
        queries: [costQuery('TABLE', 'service')],
        displayOptions: { topN: 10, showTotal: true, precision: 2 },
      }),
    ],
  };
}

interface Listed {
  items: { id: string; name: string }[];
}
interface Explored {
  dataThrough: string | null;
  period: { startDate: string };
  queries: {
    series: {
      group: Record<string, string | null>;
      points: { date: string; value: number | null }[];
      total: number | null;
    }[];
  }[];
}

/** Makes what is missing of the demo content; answers the ids (existing or new). */
export async function seedDemoContent(
  seed: DemoSeed,
  opts: { baseUrl: string; stateDir: string },
): Promise<Record<keyof typeof DEMO_NAMES, string> | null> {
  const marker = join(opts.stateDir, DEMO_CONTENT_FILE);
  if (existsSync(marker)) return null;
  const call = caller(opts.baseUrl, seed.apiKeys.admin);
  const byName = (list: Listed) => new Map(list.items.map((i) => [i.name, i.id]));

  const dashboards = byName(await call<Listed>('GET', '/dashboard-v2?limit=100'));
  const dashboard =
    dashboards.get(DEMO_NAMES.dashboard) ??
    (await call<{ id: string }>('POST', '/dashboard-v2', demoDashboardBody())).id;

  const reports = byName(await call<Listed>('GET', '/reports?limit=100'));
  const report =
    reports.get(DEMO_NAMES.report) ??
    (
      await call<{ id: string }>('POST', '/reports', {
        name: DEMO_NAMES.report,
        description: 'Last week against the week before, by provider and service.',
        type: 'PUBLIC',
        scheduledPeriod: 'WEEKLY',
        scheduledWeekday: 1,
        context: { metricId: 'cost', groupBy: 'provider', datePreset: 'LAST_WEEK', currency: 'USD' },
        widgets: [
          { type: 'DIGEST', display: 'summary' },
          { type: 'DIGEST', additionalGroupBy: ['service'], display: 'tree' },
          { type: 'GRAPH_SNAPSHOT', title: 'Daily trend', dashboardId: dashboard, widgetKey: 'trend' },
          { type: 'TOP_FLOP', groupBy: 'service', topN: 5, flopN: 5 },
        ],
        destinations: [{ destinationType: 'EMAIL', destinationValues: [seed.emails.admin] }],
      })
    ).id;

  const alerts = byName(await call<Listed>('GET', '/alerts-v2/costAlerts?limit=100'));
  const common = {
    currency: 'USD',
    notificationChannel: 'EMAIL',
    emails: [seed.emails.admin],
    dedup: { kind: 'CALENDAR', calendarUnit: 'WEEK' },
  };
  let fired = alerts.get(DEMO_NAMES.firedAlert);
  if (!fired) {
    // The last complete day's spend, as the alert will read it: the threshold is 90 % of it.
    const day = await call<Explored>('POST', '/queries/explorer', {
      request: {
        period: { datePreset: 'TRAILING_7_DAYS', aggBy: 'Day' },
        queries: [{ type: 'cost', name: 'spend' }],
      },
    });
    const last = day.queries[0]?.series[0]?.points.find((p) => p.date === day.dataThrough)?.value ?? 0;
    const threshold = Math.max(1, Math.floor(last * 0.9));
    fired = (
      await call<{ id: string }>('POST', '/alerts-v2/costAlerts', {
        ...common,
        name: DEMO_NAMES.firedAlert,
        description: 'Total daily spend over the daily limit.',
        urlState: 'groupBy=provider&chart=BAR',
        queries: [{ type: 'cost', name: 'spend', alias: 'Total spend', colorIndex: 0, chartType: 'BAR' }],
        thresholds: [
          {
            value: threshold,
            severityLevel: 'WARNING',
            metricMode: 'ABSOLUTE_SPEND',
            changeBasis: 'ABSOLUTE_DELTA',
          },
        ],
        thresholdType: 'ABOVE',
        evaluationPeriod: 'DAILY',
      })
    ).id;
  }
  const quiet =
    alerts.get(DEMO_NAMES.quietAlert) ??
    (
      await call<{ id: string }>('POST', '/alerts-v2/costAlerts', {
        ...common,
        name: DEMO_NAMES.quietAlert,
        description: 'Daily spend far above its usual level.',
        urlState: 'groupBy=service&chart=LINE',
        queries: [{ type: 'cost', name: 'spend', alias: 'Total spend', colorIndex: 0, chartType: 'LINE' }],
        condition: 'spend > rollingMedian(spend, 28, DAY) * 1.5',
        thresholds: [],
      })
    ).id;

  const budget = await demoBudget(call, seed);
  const budgetAlerts = byName(await call<Listed>('GET', '/alerts-v2/budgetAlerts?limit=100'));
  const budgetAlert =
    budgetAlerts.get(DEMO_NAMES.budgetAlert) ??
    (
      await call<{ id: string }>('POST', '/alerts-v2/budgetAlerts', {
        name: DEMO_NAMES.budgetAlert,
        budgetId: budget,
        thresholds: [
          { value: 80, severityLevel: 'INFO', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' },
          { value: 100, severityLevel: 'WARNING', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'FORECASTED' },
        ],
        notificationChannel: 'EMAIL',
        emails: [seed.emails.admin],
      })
    ).id;

  const made = { dashboard, report, firedAlert: fired, quietAlert: quiet, budget, budgetAlert };
  writeFileSync(marker, JSON.stringify({ createdAt: new Date().toISOString(), ...made }, null, 2));
  return made;
}

/**
 * The demo budget (found by name, or made): one line per provider of last month's spend, each
 * owned by the demo admin, `demoBudgetAmount` of that spend for last month and the three after.
 */
async function demoBudget(call: Call, seed: DemoSeed): Promise<string> {
  const existing = (await call<Listed>('GET', '/budgets?limit=100')).items.find(
    (b) => b.name === DEMO_NAMES.budget,
  );
  if (existing) return existing.id;
  const last = await call<Explored>('POST', '/queries/explorer', {
    request: {
      period: { datePreset: 'LAST_MONTH', aggBy: 'Period' },
      queries: [{ type: 'cost', name: 'spend', groupBy: 'provider' }],
    },
  });
  const startMonth = last.period.startDate.slice(0, 7);
  const months = budgetMonths(startMonth).slice(0, DEMO_BUDGET_MONTHS);
  const lines = (last.queries[0]?.series ?? [])
    .filter((s) => s.group.provider && (s.total ?? 0) > 0)
    .map((s) => {
      const amount = demoBudgetAmount(s.total ?? 0);
      return {
        value: s.group.provider,
        owner: seed.emails.admin,
        amounts: Object.fromEntries(months.map((m) => [m, amount])),
      };
    });
  const created = await call<{ id: string }>('POST', '/budgets', {
    name: DEMO_NAMES.budget,
    description: "Each provider's monthly spend: last month's plus 10 %.",
    currency: 'USD',
    metricId: 'cost',
    groupBy: 'provider',
    startMonth,
    lines,
  });
  return created.id;
}

export const demoHook: LocalHook = {
  name: 'demo',
  async ready({ seed, stateDir, baseUrl }) {
    const made = await seedDemoContent(seed, { baseUrl, stateDir });
    // The first evaluation of the new alerts (the alert workers run it): their history.
    if (made)
      await fetch(`${baseUrl}/_local/tick`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ schedule: 'alert-sweep', detail: { orgIds: [seed.orgId] } }),
      });
  },
};
