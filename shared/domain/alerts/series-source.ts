import type { AlertSeriesSource } from './evaluate';

/**
 * The evaluator's series source in the deployed worker. The query engine (issue 14) is built on
 * another branch; at merge this reads the alert's `conditionAdvancedExplorerQuery` by day through it
 * (values per query summed over groups, the condition's 1/0 series, the baselines by `baselineKey`,
 * and `dataThrough`). Until then every evaluation fails loudly (and ends in the DLQ) rather than
 * pretending nothing fired.
 */
export const engineSeriesSource: AlertSeriesSource = {
  read: async () => {
    throw new Error('AlertSeriesSource is not wired to the query engine yet');
  },
};
