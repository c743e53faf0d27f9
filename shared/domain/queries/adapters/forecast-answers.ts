import { readForecastAnswer, writeForecastAnswer } from '../../../db/forecast-answers-repo';
import type { ForecastAnswerStore } from '../forecast-answers';

/** The explorer's adapter: forecasts kept in DynamoDB (docs/architecture.md, "Dependencies of the domain"). */
export const forecastAnswerStore: ForecastAnswerStore = {
  get: (orgId, hash) => readForecastAnswer(orgId, hash),
  put: (orgId, hash, answer) => writeForecastAnswer(orgId, hash, answer).then(() => undefined),
};
