import { enqueue } from '../../../cloud/queue';
import { config } from '../../../config';
import { consoleLink } from '../../../links';
import type { RootCauses } from '../../../model/alerts';
import type { Budget } from '../../../model/budgets';
import { QUEUE } from '../../../queues';
import type { Notification } from '../../alerts/notification';
import { dimensionWords } from '../../alerts/root-cause-source';
import { rootCausesOf } from '../../alerts/root-causes';
import { addDays } from '../../alerts/schedule';
import { burnSeries, monthDays } from '../status';
import { budgetAlertMessage } from './burn-chart';
import type { BudgetFiring } from './render';
import { causeDimensions, causeWindow } from './top';

/**
 * A budget-alert test send on its way to the worker that draws burn charts (`alert-evaluate`, as
 * budget alerts are): the notification addressed and checked by the route, without its message.
 * The route's function stays free of the chart renderer; the worker renders the sample and puts
 * the notification on `notifications`.
 */
export interface BudgetTestMessage {
  kind: 'budget-test';
  notification: Omit<Notification, 'message'>;
}

export function isBudgetTestMessage(m: unknown): m is BudgetTestMessage {
  const x = m as Partial<BudgetTestMessage> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    x.kind === 'budget-test' &&
    typeof x.notification === 'object' &&
    x.notification !== null
  );
}

/** The worker's half: render the sample (its burn chart drawn here) and enqueue the notification. */
export async function sendBudgetTest(
  m: BudgetTestMessage,
  deps: { enqueue?: (n: Notification) => Promise<void> } = {},
): Promise<void> {
  const n = m.notification;
  const message = await budgetAlertMessage(
    sampleBudgetFiring(new Date(n.createdAt), config().consoleBaseUrl),
  );
  await (deps.enqueue ?? ((x) => enqueue(QUEUE.notifications, x)))({ ...n, message });
}

/**
 * The sample a budget-alert test send renders (`POST /alerts-v2/budgetAlerts/sendTest`): a
 * FORECASTED WARNING at 90 % of a $4,000 monthly budget on the EC2 line (`SAMPLE_LINE`) of a budget by service,
 * over the month of the last complete day (yesterday), marked as a test. The daily amounts are made
 * up (a weekly pattern of $130 to $142, so the forecast crosses 90 % on any day of any month); the month-to-date actual is their sum, the month-end forecast
 * that actual plus the same average for each day left (±10 % as its interval), so the message's
 * figures and its burn chart agree with each other. It names no budget, so its link is the
 * console's Budgets list (as a cost-alert test send links the alerts list).
 */
/** The sample's line: EC2 as billing data names it. */
export const SAMPLE_LINE = 'Amazon Elastic Compute Cloud';

export function sampleBudgetFiring(now: Date, appUrl: string): BudgetFiring {
  const dataThrough = addDays(now.toISOString().slice(0, 10), -1);
  const month = dataThrough.slice(0, 7);
  const { first, last } = monthDays(month);
  const daily = new Map<string, number>();
  for (let day = first, i = 0; day <= dataThrough; day = addDays(day, 1), i++)
    daily.set(day, 130 + (i % 7) * 2);
  const amounts = [...daily.values()];
  const actual = amounts.reduce((a, b) => a + b, 0);
  const left = [...Array(31).keys()].filter((i) => addDays(dataThrough, i + 1) <= last).length;
  const ahead = (actual / amounts.length) * left;
  const forecast = { value: actual + ahead, lower80: actual + ahead * 0.9, upper80: actual + ahead * 1.1 };
  const budget = {
    id: 'bud_test',
    name: 'Test budget',
    currency: 'USD',
    groupBy: 'service',
    scopeId: null,
    metricId: 'cost',
    whereClause: null,
  };
  const figures = { budget: 4000, actual, forecast, delta: forecast.value - 4000 };
  return {
    alert: { id: 'balrt_test', name: 'Test notification' },
    budget,
    link: consoleLink(appUrl, 'budgets'),
    line: SAMPLE_LINE,
    owner: null,
    month,
    dataThrough,
    figures,
    threshold: {
      value: 90,
      severityLevel: 'WARNING',
      metricMode: 'PERCENTAGE_OF_BUDGET',
      basis: 'FORECASTED',
      amount: 3600,
    },
    measured: forecast.value,
    top: { dimension: 'account', values: [{ value: 'sample-production', amount: actual }] },
    rootCauses: sampleRootCauses(budget, month, dataThrough, actual),
    conversion: null,
    burn: burnSeries(daily, month, dataThrough, figures),
    appUrl,
    test: true,
  };
}

/**
 * Sample root causes, computed as a real message's are (`rootCausesOf` over the same window and
 * dimensions): the sample's month-to-date spend split over four made-up sub-account × region
 * combinations, each against a made-up amount for the same days of the previous month.
 */
function sampleRootCauses(
  budget: Pick<Budget, 'groupBy'>,
  month: string,
  dataThrough: string,
  actual: number,
): RootCauses {
  const split: [label: string, share: number, before: number][] = [
    ['sample-production / us-east-1', 0.55, 0.7],
    ['sample-staging / us-east-1', 0.25, 0.95],
    ['sample-production / eu-west-1', 0.15, 1.1],
    ['sample-dev / us-west-2', 0.05, 0.9],
  ];
  return rootCausesOf(
    {
      dimension: causeDimensions(budget).map(dimensionWords).join(' / '),
      query: SAMPLE_LINE,
      ...causeWindow(month, dataThrough),
    },
    new Map(split.map(([label, share, ratio]) => [label, actual * share * ratio])),
    new Map(split.map(([label, share]) => [label, actual * share])),
  );
}
