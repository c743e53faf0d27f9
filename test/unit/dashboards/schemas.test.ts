import * as v from 'valibot';
import {
  CreateDashboardBody,
  DashboardVersionParams,
  PatchDashboardBody,
  PublishDashboardBody,
} from '../../../shared/model/dashboard-schemas';
import { toFieldIssues } from '../../../shared/validation';
import { DASHBOARD_DEFAULTS } from '../../fixtures/dashboards/defaults';
import { realisticDashboard, simpleWidget } from '../../fixtures/dashboards/realistic';

const issueOf = (schema: v.GenericSchema, input: unknown) => {
  const r = v.safeParse(schema, input, { abortPipeEarly: true });
  if (r.success) throw new Error('expected a failure');
  return toFieldIssues(r.issues)[0]!;
};

describe('dashboard body schemas', () => {
  it('fills every default of the dashboard and widget tables', () => {
    const out = v.parse(CreateDashboardBody, { name: '  Spend  ', widgets: [simpleWidget('a')] });
    expect(out).toMatchObject({
      name: 'Spend',
      ...DASHBOARD_DEFAULTS,
    });
    expect(out.widgets[0]!.description).toBe('');
    expect(v.parse(CreateDashboardBody, { name: 'x' }).widgets).toEqual([]);
  });

  it('matches the realistic fixture oracle: parsing the sent body gives the expected one', () => {
    const f = realisticDashboard(40, 3);
    expect(v.parse(CreateDashboardBody, f.body)).toEqual(f.expected);
  });

  it('fills eventsFilter.search with an empty string', () => {
    const out = v.parse(CreateDashboardBody, {
      name: 'x',
      widgets: [simpleWidget('a', { eventsFilter: { sources: ['custom', 'api'] } })],
    });
    expect(out.widgets[0]!.source.request.eventsFilter).toEqual({ sources: ['custom', 'api'], search: '' });
  });

  it.each(['organizationId', 'createdById', 'archivedAt', 'id', 'version', 'widgetCount'])(
    'refuses %s in a create body',
    (field) => {
      expect(issueOf(CreateDashboardBody, { name: 'x', [field]: 'x' }).path).toBe(field);
    },
  );

  it('accepts version in a publish body and refuses a bad one', () => {
    expect(v.parse(PublishDashboardBody, { name: 'x', version: 3 }).version).toBe(3);
    expect(issueOf(PublishDashboardBody, { name: 'x', version: 0 }).path).toBe('version');
    expect(issueOf(PublishDashboardBody, { name: 'x', organizationId: 'o' }).path).toBe('organizationId');
  });

  it('PATCH takes metadata and context only, without defaults', () => {
    expect(v.parse(PatchDashboardBody, { currency: 'KRW' })).toEqual({ currency: 'KRW' });
    expect(issueOf(PatchDashboardBody, { widgets: [] }).path).toBe('widgets');
    expect(issueOf(PatchDashboardBody, { archivedAt: null }).path).toBe('archivedAt');
    expect(issueOf(PatchDashboardBody, { name: '' }).path).toBe('name');
  });

  it('checks the dashboard enums: type, datePreset (20 presets), currency', () => {
    expect(issueOf(CreateDashboardBody, { name: 'x', type: 'SHARED' }).path).toBe('type');
    expect(v.parse(CreateDashboardBody, { name: 'x', datePreset: 'LAST_4_YEARS' }).datePreset).toBe(
      'LAST_4_YEARS',
    );
    expect(issueOf(CreateDashboardBody, { name: 'x', datePreset: 'LAST_5_YEARS' }).path).toBe('datePreset');
    expect(issueOf(CreateDashboardBody, { name: 'x', currency: 'JPY' }).path).toBe('currency');
  });

  it('takes dashboard dates as a date or a date-time, in order', () => {
    expect(
      v.parse(CreateDashboardBody, { name: 'x', startDate: '2025-01-01', endDate: '2025-01-31T00:00:00Z' }),
    ).toMatchObject({
      startDate: '2025-01-01',
    });
    expect(issueOf(CreateDashboardBody, { name: 'x', startDate: 'yesterday' }).path).toBe('startDate');
    expect(
      issueOf(CreateDashboardBody, { name: 'x', startDate: '2025-02-01', endDate: '2025-01-01' }).path,
    ).toBe('endDate');
  });

  it('takes conditions as an object or null, bounded in depth', () => {
    expect(v.parse(CreateDashboardBody, { name: 'x', conditions: { a: { b: [1, 2] } } }).conditions).toEqual({
      a: { b: [1, 2] },
    });
    expect(issueOf(CreateDashboardBody, { name: 'x', conditions: ['a'] }).path).toBe('conditions');
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) deep = { d: deep };
    expect(issueOf(CreateDashboardBody, { name: 'x', conditions: deep }).path).toBe('conditions');
  });

  it('checks widget grid fields and refuses a repeated widget key', () => {
    expect(issueOf(CreateDashboardBody, { name: 'x', widgets: [{ ...simpleWidget('a'), w: 0 }] }).path).toBe(
      'widgets.0.w',
    );
    expect(issueOf(CreateDashboardBody, { name: 'x', widgets: [{ ...simpleWidget('a'), x: -1 }] }).path).toBe(
      'widgets.0.x',
    );
    const { title: _t, ...noTitle } = simpleWidget('a');
    expect(issueOf(CreateDashboardBody, { name: 'x', widgets: [noTitle] })).toEqual({
      path: 'widgets.0.title',
      message: expect.any(String),
    });
    expect(
      issueOf(CreateDashboardBody, {
        name: 'x',
        widgets: [simpleWidget('a'), simpleWidget('b'), simpleWidget('a')],
      }).path,
    ).toBe('widgets.2.key');
  });

  it('checks request fields: limitOverride, displayOptions, scopeId', () => {
    const widget = (extra: Record<string, unknown>) => ({ name: 'x', widgets: [simpleWidget('a', extra)] });
    expect(
      v.parse(CreateDashboardBody, widget({ limitOverride: 100, displayOptions: { topN: 5, precision: 2 } }))
        .widgets,
    ).toHaveLength(1);
    expect(issueOf(CreateDashboardBody, widget({ limitOverride: 0 })).path).toBe(
      'widgets.0.source.request.limitOverride',
    );
    expect(issueOf(CreateDashboardBody, widget({ displayOptions: { precision: 1.5 } })).path).toBe(
      'widgets.0.source.request.displayOptions.precision',
    );
    expect(issueOf(CreateDashboardBody, widget({ scopeId: 'a/b' })).path).toBe(
      'widgets.0.source.request.scopeId',
    );
  });

  it('parses a version number path segment', () => {
    expect(v.parse(DashboardVersionParams, { id: 'dash_1', n: '12' })).toEqual({ id: 'dash_1', n: 12 });
    for (const n of ['0', '-1', '1.5', 'abc', '1234567']) {
      expect(v.safeParse(DashboardVersionParams, { id: 'dash_1', n }).success).toBe(false);
    }
  });
});
