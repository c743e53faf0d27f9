import * as v from 'valibot';
import {
  expressionIssue,
  findCycle,
  type MetricCatalog,
  metricIssue,
  metricReferences,
} from '../../../shared/domain/dashboards/validation';
import { CreateDashboardBody, type Widget } from '../../../shared/model/dashboard-schemas';
import { condition, cost, formula, metric } from '../../fixtures/dashboards/queries';
import { realisticDashboard, simpleWidget } from '../../fixtures/dashboards/realistic';

type Json = Record<string, unknown>;

/** Widgets as the schema outputs them (defaults filled in). */
function widgets(...queryLists: Json[][]): Widget[] {
  const body = { name: 'd', widgets: queryLists.map((queries, i) => simpleWidget(`k${i + 1}`, { queries })) };
  return v.parse(CreateDashboardBody, body).widgets;
}

describe('expressionIssue: formulas and conditions are parsed against their widget', () => {
  it('accepts the realistic dashboard (unit cost, week over week, anomaly conditions)', () => {
    const body = realisticDashboard(40, 3).body;
    expect(expressionIssue(v.parse(CreateDashboardBody, body).widgets)).toBeUndefined();
  });

  it('names the widget, the query and the parse error with its position', () => {
    const w = widgets(
      [cost('a')],
      [cost('a'), cost('b'), formula('c', 'a + b'), formula('d', '(a + b) / 2 > foo')],
    );
    expect(expressionIssue(w)).toEqual({
      path: 'widgets.1.source.request.queries.3.formula',
      message: `widget "k2", query "d": unknown query 'foo' at 14`,
    });
  });

  it('checks conditions at `expression`', () => {
    expect(expressionIssue(widgets([cost('a'), condition('s', 'a >')]))).toEqual({
      path: 'widgets.0.source.request.queries.1.expression',
      message: 'widget "k1", query "s": unexpected end of expression: an operand is missing at 3',
    });
  });

  it("resolves names within the widget only: another widget's query is unknown", () => {
    const w = widgets([cost('x')], [cost('a'), formula('f', 'a + x')]);
    expect(expressionIssue(w)?.message).toBe(`widget "k2", query "f": unknown query 'x' at 4`);
  });

  it('refuses cycles between formulas and conditions, self-references included', () => {
    expect(expressionIssue(widgets([cost('a'), formula('c', 'a + d'), formula('d', 'c * 2')]))).toEqual({
      path: 'widgets.0.source.request.queries.1.formula',
      message: 'widget "k1", query "c": formulas and conditions refer to each other in a cycle: c → d → c',
    });
    expect(expressionIssue(widgets([cost('a'), formula('c', 'c + a')]))?.message).toContain('cycle: c → c');
    expect(
      expressionIssue(widgets([cost('a'), formula('f', 'a + s'), condition('s', 'f > 1')]))?.message,
    ).toContain('cycle: f → s → f');
  });

  it('accepts chains without a cycle (a formula over a formula, a condition over both)', () => {
    const w = widgets([
      cost('a'),
      cost('b'),
      formula('c', 'a - b'),
      formula('d', 'c / b'),
      condition('s', 'd > 0.2 and c > 1'),
    ]);
    expect(expressionIssue(w)).toBeUndefined();
  });
});

describe('findCycle', () => {
  it.each<[Record<string, string[]>, string[] | undefined]>([
    [{}, undefined],
    [{ c: ['a', 'b'] }, undefined],
    [{ c: ['d'], d: ['e'], e: ['a'] }, undefined],
    [{ c: ['c'] }, ['c', 'c']],
    [{ c: ['d'], d: ['e'], e: ['c'] }, ['c', 'd', 'e', 'c']],
    [{ x: ['c'], c: ['d'], d: ['c'] }, ['c', 'd', 'c']],
    [{ p: ['q', 'r'], q: ['r'], r: [] }, undefined],
  ])('%j', (graph, cycle) => {
    expect(findCycle(new Map(Object.entries(graph)))).toEqual(cycle);
  });
});

describe('metricIssue: metricId names a datasource or a usage metric', () => {
  function catalog(datasources: string[], units: string[]) {
    const calls = { isDatasource: [] as string[], usageUnits: 0 };
    const c: MetricCatalog = {
      async isDatasource(id) {
        calls.isDatasource.push(id);
        return datasources.includes(id);
      },
      async usageUnits() {
        calls.usageUnits++;
        return new Set(units);
      },
    };
    return { c, calls };
  }

  it('never reads the usage metrics without a metric query, nor when every id is a datasource', async () => {
    const none = catalog([], []);
    expect(
      await metricIssue(metricReferences(widgets([cost('a'), formula('f', 'a * 2')])), none.c),
    ).toBeUndefined();
    expect(none.calls).toEqual({ isDatasource: [], usageUnits: 0 });

    const all = catalog(['ds_1'], []);
    const refs = metricReferences(widgets([metric('m', 'ds_1'), cost('a')], [metric('n', 'ds_1')]));
    expect(await metricIssue(refs, all.c)).toBeUndefined();
    expect(all.calls).toEqual({ isDatasource: ['ds_1'], usageUnits: 0 });
  });

  it('accepts usage metrics (consumed units) and reads them once', async () => {
    const { c, calls } = catalog(['ds_1'], ['Hours', 'GB-Mo']);
    const refs = metricReferences(
      widgets([metric('m', 'Hours'), metric('n', 'GB-Mo'), metric('o', 'ds_1')], [metric('p', 'Hours')]),
    );
    expect(await metricIssue(refs, c)).toBeUndefined();
    expect(calls.usageUnits).toBe(1);
    expect(calls.isDatasource.sort()).toEqual(['GB-Mo', 'Hours', 'ds_1']);
  });

  it('refuses anything else at its path, naming widget and query', async () => {
    const { c } = catalog(['ds_1'], ['Hours']);
    const refs = metricReferences(
      widgets([cost('a')], [metric('m', 'ds_1'), metric('req', 'datadog.requests.count')]),
    );
    expect(await metricIssue(refs, c)).toEqual({
      path: 'widgets.1.source.request.queries.1.metricId',
      message: expect.stringMatching(
        /^widget "k2", query "req": unknown metric "datadog.requests.count": not a metrics datasource/,
      ),
    });
    // Usage metrics match exactly (units are not normalised).
    expect(await metricIssue(metricReferences(widgets([metric('m', 'hours')])), c)).toMatchObject({
      path: 'widgets.0.source.request.queries.0.metricId',
    });
  });
});
