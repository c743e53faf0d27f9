import * as v from 'valibot';
import {
  listRecentForecastViews,
  readForecastAnswer,
  writeForecastAnswer,
} from '../../../db/forecast-answers-repo';
import { ExplorerRequestSchema } from '../../../model/query-model';
import type { ForecastAnswerStore, KeptView } from '../forecast-answers';

/** The explorer's adapter: forecasts kept in DynamoDB (docs/architecture.md, "Dependencies of the domain"). */
export const forecastAnswerStore: ForecastAnswerStore = {
  get: (orgId, hash) => readForecastAnswer(orgId, hash),
  put: (orgId, hash, answer, view) => writeForecastAnswer(orgId, hash, answer, view).then(() => undefined),
  // A kept view whose request no longer reads as one (an older schema) is left out.
  recentViews: async (orgId, limit) =>
    (await listRecentForecastViews(orgId, limit)).flatMap((view) => {
      const kept = view as Partial<KeptView>;
      const request = v.safeParse(ExplorerRequestSchema, kept?.request);
      return request.success && kept.ctx ? [{ request: request.output, ctx: kept.ctx }] : [];
    }),
};
