import { costQuery } from './explorer';
import { api, session } from './session';

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

/**
 * The metrics datasources a query may name, made over HTTP with the local stack's demo keys: one
 * of the organisation, one it then archived, one of another organisation; and a consumed unit of
 * the organisation's usage metrics.
 */
export async function datasourcesForQueries(name: (what: string) => string) {
  const keys = session().apiKeys;
  const made = async (token: string) => {
    const res = await api<{ id: string }>('POST', '/iac/metricsDatasources', {
      token,
      body: { name: name('ds') },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const datasource = await made(keys.admin);
  const archived = await made(keys.admin);
  const otherOrgDatasource = await made(keys.outsider);
  expect((await api('DELETE', `/iac/metricsDatasources/${archived}`, { token: keys.admin })).status).toBe(
    200,
  );
  const units = await api<{ consumed_unit: string }[]>('GET', '/queries/usage-metrics', {
    token: keys.member,
  });
  expect(units.status).toBe(200);
  return { datasource, archived, otherOrgDatasource, usageUnit: units.body[0]!.consumed_unit };
}
