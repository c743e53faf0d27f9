import { log } from '../../log';
import type { Dashboard } from '../../model/dashboards';
import { runDashboardWidget } from './service';

/**
 * After a refresh, the forecasts of the organisation's dashboards are computed once and kept
 * (`ForecastAnswerStore`, docs/queries.md "Forecast"), so the first person to open a dashboard
 * with a forecast widget on the new data reads it instead of waiting for the model. Each widget is
 * run as the widget-data route runs it (its dashboard's conditions, scope, currency and period, the
 * organisation's time zone), so the kept answer is exactly the one that route would compute.
 * Nothing is answered to anyone here: a kept answer is read only by a request whose access the
 * route has already checked.
 */
export interface KeepForecastsDeps {
  /** The organisation's live dashboards with their current widgets, most recently updated first. */
  dashboards(orgId: string): AsyncIterable<Dashboard>;
  timeZone(orgId: string): Promise<string | null | undefined>;
  now(): Date;
}

/** Widgets run at most per refresh (the most recently updated dashboards' first). */
export const MAX_KEPT_WIDGETS = 50;

export interface KeptForecasts {
  /** Widgets with a forecast that were run, and those of them that failed (logged). */
  widgets: number;
  failed: number;
}

export async function keepDashboardForecasts(orgId: string, deps: KeepForecastsDeps): Promise<KeptForecasts> {
  const done: KeptForecasts = { widgets: 0, failed: 0 };
  try {
    const timeZone = (await deps.timeZone(orgId)) ?? 'UTC';
    for await (const dashboard of deps.dashboards(orgId)) {
      for (const widget of dashboard.widgets) {
        if (!((widget.source.request.period?.forecastDays ?? 0) > 0)) continue;
        if (done.widgets >= MAX_KEPT_WIDGETS) return done;
        done.widgets++;
        try {
          await runDashboardWidget(dashboard, widget, { orgId, timeZone, now: deps.now() });
        } catch (error) {
          done.failed++;
          log.warn('forecast of a dashboard widget not kept', {
            orgId,
            dashboardId: dashboard.id,
            widget: widget.key,
            error,
          });
        }
      }
    }
  } catch (error) {
    // The dashboards could not be read: nothing more is kept; the refresh itself is done.
    log.warn('dashboard forecasts not kept', { orgId, error });
  }
  return done;
}
