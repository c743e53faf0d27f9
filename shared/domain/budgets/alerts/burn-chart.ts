import { burnChartSpec } from '../../../charts/burn';
import { type EChartsSpec, stampLines } from '../../../charts/spec';
import { money } from '../../alerts/explain';
import type { RenderedMessage } from '../../alerts/notification';
import { chartPng } from '../../reports/render/png';
import { monthDays } from '../status';
import { BURN_CHART_ALT, BURN_CHART_FILE, type BudgetFiring, renderBudgetAlertMessage } from './render';

/** The burn chart of a firing (`burnChartSpec` of shared/charts/burn.ts, with the message's stamp). */
export function firingBurnSpec(f: BudgetFiring): EChartsSpec {
  const { first, last } = monthDays(f.month);
  return burnChartSpec({
    title: `${f.budget.name}${f.line === null ? '' : ` / ${f.line}`}: ${f.month}`,
    currency: f.budget.currency,
    stamp: [
      `Actual ${money(f.figures.actual, f.budget.currency)} of a budget of ${money(f.figures.budget, f.budget.currency)}; month-end forecast ${money(f.figures.forecast?.value, f.budget.currency)}`,
      ...stampLines({
        period: { startDate: first, endDate: last },
        dataThrough: f.dataThrough,
        currency: f.budget.currency,
        requestedCurrency: f.budget.currency,
        conversion: f.conversion,
      }),
    ],
    burn: f.burn,
  });
}

/** The burn chart as a PNG (the reports' renderer, at 1× to keep the queued message small). */
export function burnChartPng(f: BudgetFiring): Promise<Uint8Array> {
  return chartPng(firingBurnSpec(f), 1);
}

/** The message of a firing with its burn chart (inline in e-mail, uploaded to Slack, by URL in Teams). */
export async function budgetAlertMessage(f: BudgetFiring): Promise<RenderedMessage> {
  const png = await burnChartPng(f);
  return {
    ...renderBudgetAlertMessage(f),
    images: [{ filename: BURN_CHART_FILE, base64: Buffer.from(png).toString('base64'), alt: BURN_CHART_ALT }],
  };
}
