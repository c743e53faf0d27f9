import { costQuery } from './explorer';
import { api } from './session';

/**
 * `POST /queries/explorer` for the cost over `start` … `end` as one period, grouped by `groupBy`
 * (up to 1000 groups): the answer's one query, its series and total.
 */
export async function explorerPeriodTotals(token: string, start: string, end: string, groupBy: string[]) {
  const res = await api<{
    queries: {
      series: { group: Record<string, string | null>; total: number | null }[];
      total: number | null;
    }[];
  }>('POST', '/queries/explorer', {
    token,
    body: {
      request: {
        period: { startDate: `${start}T00:00:00Z`, endDate: `${end}T00:00:00Z`, aggBy: 'Period' },
        queries: [costQuery('a', { chartType: 'BAR', groupBy })],
        limitOverride: 1000,
      },
    },
  });
  expect(res.status).toBe(200);
  return res.body.queries[0]!;
}
