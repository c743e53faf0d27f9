import { listDashboards, readVersion } from '../../../db/dashboards-repo';
import { getOrganizationTimezone } from '../../../db/organizations-repo';
import type { Widget } from '../../../model/dashboard-schemas';
import type { Dashboard } from '../../../model/dashboards';
import { present } from '../../dashboards/records';
import type { KeepForecastsDeps } from '../keep-forecasts';
import { forecastAnswerStore } from './forecast-answers';

/** Dashboards read a page at a time, at most this many pages (the most recently updated first). */
const PAGE = 25;
const MAX_PAGES = 4;

/** The refresh worker's adapter: dashboards and the time zone from the table. */
export function keepForecastsDeps(): KeepForecastsDeps {
  return {
    async *dashboards(orgId: string): AsyncIterable<Dashboard> {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const read = await listDashboards(orgId, { includeArchived: false }, PAGE, cursor);
        for (const d of read.items) {
          const version = await readVersion<{ widgets: Widget[] }>(orgId, d.id, d.publishedVersion);
          if (version) yield { ...present(d), widgets: version.snapshot.widgets };
        }
        if (!read.nextCursor || read.items.length === 0) return;
        cursor = read.nextCursor;
      }
    },
    timeZone: getOrganizationTimezone,
    now: () => new Date(),
    store: forecastAnswerStore,
  };
}
