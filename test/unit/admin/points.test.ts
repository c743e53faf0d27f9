import * as v from 'valibot';
import {
  normalizeTimestamp,
  preparePoints,
  resolveMetricRef,
  rollUpDaily,
} from '../../../shared/domain/datasources/points';
import { PushPointsBody } from '../../../shared/domain/datasources/schemas';

const now = new Date('2026-03-10T12:00:00Z');

describe('metric points', () => {
  it('normalises equal instants to one canonical timestamp', () => {
    expect(normalizeTimestamp('2026-03-01T01:00:00+01:00')).toBe('2026-03-01T00:00:00.000Z');
    expect(normalizeTimestamp('2026-03-01T00:00:00Z')).toBe('2026-03-01T00:00:00.000Z');
    expect(normalizeTimestamp('2026-03-01')).toBe('2026-03-01T00:00:00.000Z');
  });

  it('deduplicates a batch by metric and timestamp, the last point winning', () => {
    const res = preparePoints(
      [
        { timestamp: '2026-03-01T00:00:00Z', value: 1 },
        { timestamp: '2026-03-01T01:00:00+01:00', value: 2 },
        { timestamp: '2026-03-01T00:00:00Z', value: 5, metric: 'other' },
        { timestamp: '2026-03-02', value: 3 },
      ],
      now,
    );
    expect(res.issues).toEqual([]);
    expect(res.duplicates).toBe(1);
    expect(res.points).toEqual([
      { metric: 'value', timestamp: '2026-03-01T00:00:00.000Z', value: 2 },
      { metric: 'other', timestamp: '2026-03-01T00:00:00.000Z', value: 5 },
      { metric: 'value', timestamp: '2026-03-02T00:00:00.000Z', value: 3 },
    ]);
  });

  it('rejects points before 2000 or more than a day ahead, naming the point', () => {
    const res = preparePoints(
      [
        { timestamp: '2026-03-01T00:00:00Z', value: 1 },
        { timestamp: '1999-12-31T23:59:59Z', value: 1 },
        { timestamp: '2026-03-11T12:00:01Z', value: 1 },
      ],
      now,
    );
    expect(res.issues.map((i) => i.path)).toEqual(['points.1.timestamp', 'points.2.timestamp']);
  });

  it.each([
    [{ points: [] }],
    [{ points: [{ timestamp: '2026-03-01T00:00:00', value: 1 }] }], // no zone
    [{ points: [{ timestamp: 'yesterday', value: 1 }] }],
    [{ points: [{ timestamp: '2026-02-30T00:00:00Z', value: 1 }] }],
    [{ points: [{ timestamp: '2026-03-01', value: Number.NaN }] }],
    [{ points: [{ timestamp: '2026-03-01', value: '1' }] }],
    [{ points: [{ timestamp: '2026-03-01', value: 1, metric: 'a#b' }] }],
    [{ points: [{ timestamp: '2026-03-01', value: 1, extra: true }] }],
  ])('the push schema refuses %j', (body) => {
    expect(v.safeParse(PushPointsBody, body).success).toBe(false);
  });

  it('rolls raw points up per UTC day with the aggregator', () => {
    const raw = [
      { metric: 'value', timestamp: '2026-03-01T01:00:00.000Z', value: 2 },
      { metric: 'value', timestamp: '2026-03-01T23:00:00.000Z', value: 4 },
      { metric: 'value', timestamp: '2026-03-02T00:00:00.000Z', value: 10 },
    ];
    expect(rollUpDaily(raw, 'SUM')).toEqual([
      { metric: 'value', timestamp: '2026-03-01T00:00:00.000Z', value: 6 },
      { metric: 'value', timestamp: '2026-03-02T00:00:00.000Z', value: 10 },
    ]);
    expect(rollUpDaily(raw, 'AVG')[0]?.value).toBe(3);
    expect(rollUpDaily(raw, 'MAX')[0]?.value).toBe(4);
    expect(rollUpDaily(raw, 'MIN')[0]?.value).toBe(2);
  });

  it('reads a metricId as a datasource id with an optional metric', () => {
    expect(resolveMetricRef('ds_1')).toEqual({ datasourceId: 'ds_1', metricName: undefined });
    expect(resolveMetricRef('ds_1', 'requests')).toEqual({ datasourceId: 'ds_1', metricName: 'requests' });
    expect(resolveMetricRef('ds_1/latency', 'ignored')).toEqual({
      datasourceId: 'ds_1',
      metricName: 'latency',
    });
  });
});
