import type { Principal } from '../../auth/principal';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import { NotFoundError } from '../../errors';
import type { Dashboard } from '../../model/dashboards';
import type { WhereClause } from '../../model/where-clause';
import { readDashboard } from '../dashboards/service';
import { runExplorer } from './engine';
import type { ForecastAnswerStore } from './forecast-answers';
import type { ExplorerResult } from './model';
import type { ExplorerBodyInput } from './schemas';
import { filtersAsWhere } from './scopes';

/**
 * The two routes of the query engine: an ad-hoc explorer request, and a saved widget's request run
 * with its dashboard's context (visible to whoever may read the dashboard, else 404).
 */
export async function explore(principal: Principal, body: ExplorerBodyInput): Promise<ExplorerResult> {
  return runExplorer(body.request, {
    orgId: principal.orgId,
    conditions: body.conditions ?? null,
    currency: body.currency ?? null,
    timeZone: (await getOrganizationTimezone(principal.orgId)) ?? 'UTC',
  });
}

/**
 * A dashboard's `conditions` as a where clause: null or `{}` add nothing; a
 * `{combinator, rules}` object is validated like a cost query's where clause; anything else is a 400.
 */
export function dashboardConditions(
  conditions: Record<string, unknown> | null | undefined,
): WhereClause | null {
  return filtersAsWhere(conditions, "The dashboard's conditions");
}

export async function widgetData(
  principal: Principal,
  dashboardId: string,
  key: string,
): Promise<ExplorerResult> {
  const [dashboard, timeZone] = await Promise.all([
    readDashboard(principal, dashboardId),
    getOrganizationTimezone(principal.orgId),
  ]);
  const widget = dashboard.widgets.find((w) => w.key === key);
  if (!widget) throw new NotFoundError('WIDGET_NOT_FOUND');
  return runDashboardWidget(dashboard, widget, { orgId: principal.orgId, timeZone: timeZone ?? 'UTC' });
}

/**
 * A saved widget's request run with its dashboard's context: the dashboard's conditions, its scope
 * (besides the widget request's own scopeId), its currency, and its period where the widget leaves
 * it unset. The widget-data route and report snapshots of dashboard widgets both read through it.
 */
export function runDashboardWidget(
  dashboard: Dashboard,
  widget: Dashboard['widgets'][number],
  ctx: { orgId: string; timeZone: string; now?: Date; forecastAnswers?: ForecastAnswerStore | null },
): Promise<ExplorerResult> {
  return runExplorer(widget.source.request, {
    orgId: ctx.orgId,
    conditions: dashboardConditions(dashboard.conditions),
    scopeIds: [dashboard.scopeId],
    currency: dashboard.currency ?? null,
    defaults: {
      datePreset: dashboard.datePreset ?? null,
      startDate: dashboard.startDate ?? null,
      endDate: dashboard.endDate ?? null,
    },
    timeZone: ctx.timeZone,
    ...(ctx.now ? { now: ctx.now } : {}),
    ...(ctx.forecastAnswers !== undefined ? { forecastAnswers: ctx.forecastAnswers } : {}),
  });
}
