import { log } from '../../log';
import type { Dashboard } from '../../model/dashboards';
import { runExplorer } from './engine';
import type { ForecastAnswerStore } from './forecast-answers';
import { runDashboardWidget } from './service';

/**
 * After a refresh, the forecasts of the organisation's dashboards are computed once and kept
 * (`ForecastAnswerStore`, docs/queries.md "Forecast"), so the first person to open a dashboard
 * with a forecast widget on the new data reads it instead of waiting for the model. Each widget is
 * run as the widget-data route runs it (its dashboard's conditions, scope, currency and period, the
 * organisation's time zone), so the kept answer is exactly the one that route would compute.
 * The explorer views whose forecasts were kept in the last days (any route's: an ad-hoc explorer
 * request, an alert's page, a report preview) are asked again the same way, so a view people use is
 * ready on the new data too.
 * Nothing is answered to anyone here: a kept answer is read only by a request whose access the
 * route has already checked.
 */
export interface KeepForecastsDeps {
  /** The organisation's live dashboards with their current widgets, most recently updated first. */
  dashboards(orgId: string): AsyncIterable<Dashboard>;
  timeZone(orgId: string): Promise<string | null | undefined>;
  now(): Date;
  /** Where forecasts are kept: its recent views are asked again. */
  store: ForecastAnswerStore;
}

/** Widgets run at most per refresh (the most recently updated dashboards' first). */
export const MAX_KEPT_WIDGETS = 50;
/** Recent views asked again at most per refresh (the most recently kept first). */
export const MAX_KEPT_VIEWS = 50;

export interface KeptForecasts {
  /** Widgets with a forecast and recent views that were run, and those of them that failed (logged). */
  widgets: number;
  views: number;
  failed: number;
}

export async function keepDashboardForecasts(orgId: string, deps: KeepForecastsDeps): Promise<KeptForecasts> {
  const done: KeptForecasts = { widgets: 0, views: 0, failed: 0 };
  const failed = (what: Record<string, unknown>, error: unknown) => {
    done.failed++;
    log.warn('forecast not kept', { orgId, ...what, error });
  };
  try {
    // The views kept before this refresh: read first, so the widgets run below are not among them.
    const views = (await deps.store.recentViews?.(orgId, MAX_KEPT_VIEWS)) ?? [];
    const timeZone = (await deps.timeZone(orgId)) ?? 'UTC';
    widgets: for await (const dashboard of deps.dashboards(orgId)) {
      for (const widget of dashboard.widgets) {
        if (!((widget.source.request.period?.forecastDays ?? 0) > 0)) continue;
        if (done.widgets >= MAX_KEPT_WIDGETS) break widgets;
        done.widgets++;
        await runDashboardWidget(dashboard, widget, {
          orgId,
          timeZone,
          now: deps.now(),
          forecastAnswers: deps.store,
        }).catch((error) => failed({ dashboardId: dashboard.id, widget: widget.key }, error));
      }
    }
    for (const view of views) {
      done.views++;
      await runExplorer(view.request, {
        ...view.ctx,
        orgId,
        now: deps.now(),
        forecastAnswers: deps.store,
      }).catch((error) => failed({ view: 'recent' }, error));
    }
  } catch (error) {
    // The dashboards or the kept views could not be read: nothing more is kept; the refresh is done.
    log.warn('forecasts not kept', { orgId, error });
  }
  return done;
}
