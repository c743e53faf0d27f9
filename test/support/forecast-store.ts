import { forecastAnswerStore } from '../../shared/domain/queries/adapters/forecast-answers';
import type { ForecastAnswerStore } from '../../shared/domain/queries/forecast-answers';

/**
 * The table's forecast store (DynamoDB Local), counting what it is asked (`gets`), what it finds
 * (`hits`) and what it keeps (`puts`, under `hashes`).
 */
export function countingStore() {
  const seen = { gets: 0, hits: 0, puts: 0 };
  const hashes = new Set<string>();
  const store: ForecastAnswerStore = {
    get: async (orgId, hash) => {
      seen.gets++;
      const found = await forecastAnswerStore.get(orgId, hash);
      if (found !== undefined) seen.hits++;
      return found;
    },
    put: async (orgId, hash, answer, view) => {
      seen.puts++;
      hashes.add(hash);
      await forecastAnswerStore.put(orgId, hash, answer, view);
    },
  };
  return { store, seen, hashes };
}
