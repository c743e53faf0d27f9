import { dedupAllows, dedupRule, localDay } from '../../../shared/domain/alerts/dedup';
import { decide } from '../../../shared/domain/alerts/rule';
import { lastCompletePeriod, nextEvaluationAt, previousPeriod } from '../../../shared/domain/alerts/schedule';
import type { AlertThreshold, StoredAlert } from '../../../shared/model/alerts';

describe('periods', () => {
  test.each([
    ['DAILY', '2026-11-20', '2026-11-20', '2026-11-20'],
    // 2026-11-20 is a Friday: the last whole ISO week is Mon 9 – Sun 15.
    ['WEEKLY', '2026-11-20', '2026-11-09', '2026-11-15'],
    ['WEEKLY', '2026-11-15', '2026-11-09', '2026-11-15'],
    ['MONTHLY', '2026-11-20', '2026-10-01', '2026-10-31'],
    ['MONTHLY', '2026-11-30', '2026-11-01', '2026-11-30'],
    ['MONTHLY', '2024-03-01', '2024-02-01', '2024-02-29'],
  ] as const)('%s through %s → %s … %s', (period, through, start, end) => {
    expect(lastCompletePeriod(period, through)).toEqual({ start, end });
  });

  test('previous periods', () => {
    expect(previousPeriod('DAILY', { start: '2026-11-20', end: '2026-11-20' })).toEqual({
      start: '2026-11-19',
      end: '2026-11-19',
    });
    expect(previousPeriod('WEEKLY', { start: '2026-11-09', end: '2026-11-15' })).toEqual({
      start: '2026-11-02',
      end: '2026-11-08',
    });
    expect(previousPeriod('MONTHLY', { start: '2026-03-01', end: '2026-03-31' })).toEqual({
      start: '2026-02-01',
      end: '2026-02-28',
    });
  });

  test.each([
    ['DAILY', '2026-11-20T05:59:00Z', '2026-11-20T06:00:00.000Z'],
    ['DAILY', '2026-11-20T06:00:00Z', '2026-11-21T06:00:00.000Z'],
    ['WEEKLY', '2026-11-20T10:00:00Z', '2026-11-23T06:00:00.000Z'],
    ['MONTHLY', '2026-11-02T10:00:00Z', '2026-11-03T06:00:00.000Z'],
    ['MONTHLY', '2026-12-03T06:00:00Z', '2027-01-03T06:00:00.000Z'],
  ] as const)('next %s evaluation after %s is %s', (period, now, next) => {
    expect(nextEvaluationAt(period, new Date(now))).toBe(next);
  });
});

describe('dedup windows', () => {
  const week = { dedupKind: 'CALENDAR', dedupCalendarUnit: 'WEEK', dedupWindowDays: null } as const;
  const month = { dedupKind: 'CALENDAR', dedupCalendarUnit: 'MONTH', dedupWindowDays: null } as const;
  const rolling = { dedupKind: 'ROLLING', dedupCalendarUnit: null, dedupWindowDays: 3 } as const;
  /** Evaluated on `day`, sent at 06:00 UTC the day after (UTC org), as the sweep does. */
  const allowedAfter = (alert: Parameters<typeof dedupRule>[0], notified: string, next: string) =>
    allowedAt(alert, [notified, `${notified}T06:00:00Z`], [next, `${next}T06:00:00Z`], undefined);
  /** Whether a notification about `next[0]` sent at `next[1]` passes after one about `first[0]` at `first[1]`. */
  const allowedAt = (
    alert: Parameters<typeof dedupRule>[0],
    first: [string, string],
    next: [string, string],
    zone: string | undefined,
  ) => {
    const rule = dedupRule(alert, first[0], localDay(new Date(first[1]), zone));
    const state = {
      ...(rule.kind === 'WINDOW' ? { windowKey: rule.windowKey } : {}),
      lastNotifiedDay: first[0],
    };
    return dedupAllows(dedupRule(alert, next[0], localDay(new Date(next[1]), zone)), state);
  };
  test('CALENDAR WEEK: once per ISO week (Monday to Sunday)', () => {
    expect(allowedAfter(week, '2026-11-16', '2026-11-22')).toBe(false); // Mon → Sun, same week
    expect(allowedAfter(week, '2026-11-22', '2026-11-23')).toBe(true); // Sun → Mon, next week
  });
  test('CALENDAR MONTH: once per calendar month', () => {
    expect(allowedAfter(month, '2026-11-01', '2026-11-30')).toBe(false);
    expect(allowedAfter(month, '2026-11-30', '2026-12-01')).toBe(true);
  });
  test('ROLLING 3 days: a notification on d blocks d+1 and d+2', () => {
    expect(allowedAfter(rolling, '2026-11-20', '2026-11-21')).toBe(false);
    expect(allowedAfter(rolling, '2026-11-20', '2026-11-22')).toBe(false);
    expect(allowedAfter(rolling, '2026-11-20', '2026-11-23')).toBe(true);
  });
  test('localDay reads the instant in the zone (UTC when unset or unknown)', () => {
    expect(localDay(new Date('2026-11-22T11:30:00Z'), 'Pacific/Auckland')).toBe('2026-11-23');
    expect(localDay(new Date('2026-12-01T07:30:00Z'), 'America/Los_Angeles')).toBe('2026-11-30');
    expect(localDay(new Date('2026-12-01T07:30:00Z'), undefined)).toBe('2026-12-01');
    expect(localDay(new Date('2026-12-01T07:30:00Z'), 'Mars/Olympus_Mons')).toBe('2026-12-01');
  });
  // [unit, zone, first sent at, next sent at, allowed in the zone, allowed with UTC calendars]
  test.each([
    // Auckland (NZDT, UTC+13): Sunday 23:30 → Monday 00:30 local is a new week; UTC sees one Sunday.
    ['WEEK', 'Pacific/Auckland', '2026-11-22T10:30:00Z', '2026-11-22T11:30:00Z', true, false],
    // Monday 01:00 local → Sunday 23:59 local: one local week; UTC sees Sunday → Sunday a week on.
    ['WEEK', 'Pacific/Auckland', '2026-11-15T12:00:00Z', '2026-11-22T10:59:00Z', false, true],
    // Los Angeles (PST, UTC−8): Monday 10:00 → Sunday 23:30 local, one week; UTC already Monday.
    ['WEEK', 'America/Los_Angeles', '2026-11-16T18:00:00Z', '2026-11-23T07:30:00Z', false, true],
    ['WEEK', 'America/Los_Angeles', '2026-11-16T18:00:00Z', '2026-11-23T08:30:00Z', true, true],
    // Month ends: 30 Nov 23:30 PST is still November; UTC is in December.
    ['MONTH', 'America/Los_Angeles', '2026-11-10T18:00:00Z', '2026-12-01T07:30:00Z', false, true],
    ['MONTH', 'America/Los_Angeles', '2026-11-30T20:00:00Z', '2026-12-01T08:30:00Z', true, true],
    // Across the end of daylight saving (1 Nov 2026, PDT UTC−7 → PST): 31 Oct 23:30 PDT is October.
    ['MONTH', 'America/Los_Angeles', '2026-10-20T18:00:00Z', '2026-11-01T06:30:00Z', false, true],
    ['MONTH', 'America/Los_Angeles', '2026-10-20T18:00:00Z', '2026-11-01T07:30:00Z', true, true],
    // 1 Dec 00:30 NZDT is December in Auckland while UTC is still 30 November.
    ['MONTH', 'Pacific/Auckland', '2026-11-10T00:00:00Z', '2026-11-30T11:30:00Z', true, false],
    ['MONTH', 'Pacific/Auckland', '2026-11-30T11:30:00Z', '2026-12-31T10:59:00Z', false, true],
  ] as const)(
    'CALENDAR %s in %s: sent %s then %s → %s (UTC calendars: %s)',
    (unit, zone, a, b, inZone, inUtc) => {
      const alert = { dedupKind: 'CALENDAR', dedupCalendarUnit: unit, dedupWindowDays: null } as const;
      // The evaluated billing days do not decide a CALENDAR window: the sending time does.
      const first: [string, string] = ['2026-11-10', a];
      const next: [string, string] = ['2026-11-11', b];
      expect(allowedAt(alert, first, next, zone)).toBe(inZone);
      expect(allowedAt(alert, first, next, undefined)).toBe(inUtc);
    },
  );
  test('ROLLING and no dedup count evaluated days, whatever the zone', () => {
    const first: [string, string] = ['2026-11-20', '2026-11-22T10:30:00Z'];
    const next: [string, string] = ['2026-11-21', '2026-11-22T11:30:00Z'];
    expect(allowedAt(rolling, first, next, 'Pacific/Auckland')).toBe(false);
    expect(allowedAt({ ...rolling, dedupWindowDays: 1 }, first, next, 'Pacific/Auckland')).toBe(true);
  });
  test('no dedup: once per evaluated day', () => {
    const none = { dedupKind: null, dedupCalendarUnit: null, dedupWindowDays: null };
    expect(allowedAfter(none, '2026-11-20', '2026-11-20')).toBe(false);
    expect(allowedAfter(none, '2026-11-20', '2026-11-21')).toBe(true);
  });
});

describe('deciding on the last complete day', () => {
  const days = ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21'];
  const alert = (extra: Partial<StoredAlert>): StoredAlert =>
    ({
      id: 'a',
      queryName: 'spend',
      queries: [{ type: 'cost', name: 'spend', colorIndex: 0, chartType: 'LINE' }],
      currency: 'USD',
      thresholdType: 'ABOVE',
      evaluationPeriod: 'DAILY',
      condition: null,
      urlState: '',
      name: 'n',
      description: '',
      ...extra,
    }) as StoredAlert;
  const threshold = (value: number, extra: Partial<AlertThreshold> = {}): AlertThreshold => ({
    id: 't',
    costAlertId: 'a',
    budgetAlertId: null,
    value,
    severityLevel: 'INFO',
    metricMode: 'ABSOLUTE_SPEND',
    changeBasis: 'ABSOLUTE_DELTA',
    ...extra,
  });

  test('a threshold alert looks at dataThrough, not at the partial day after it', () => {
    // The 21st is partial (after dataThrough) and huge: it must not count.
    const series = { dataThrough: '2026-11-20', days, values: { spend: [10, 10, 10, 10, 50, 900] } };
    const r = decide(alert({ variant: 'THRESHOLD' }), [threshold(100)], series, 'https://app');
    expect(r.triggered).toBe(false);
    expect(r.values).toEqual({ spend: 50 });
    expect(r.firing.evaluatedDay).toBe('2026-11-20');
    expect(decide(alert({ variant: 'THRESHOLD' }), [threshold(40)], series, 'https://app').triggered).toBe(
      true,
    );
  });

  test('a period-change alert compares with the previous day in percent', () => {
    const series = { dataThrough: '2026-11-20', days, values: { spend: [10, 10, 10, 40, 50, 0] } };
    const t = (v: number) => threshold(v, { metricMode: 'PERIOD_CHANGE', changeBasis: 'PERCENTAGE' });
    // (50 - 40) / 40 = 25 %
    expect(decide(alert({ variant: 'PERIOD_CHANGE' }), [t(20)], series, 'x').triggered).toBe(true);
    expect(decide(alert({ variant: 'PERIOD_CHANGE' }), [t(30)], series, 'x').triggered).toBe(false);
    // The history shows the change both in currency and in percent.
    expect(decide(alert({ variant: 'PERIOD_CHANGE' }), [t(20)], series, 'x').values).toEqual({
      spend: 50,
      previous: 40,
      change: 10,
      changePercent: 25,
    });
  });

  test('a condition alert reads the condition series on dataThrough', () => {
    const series = {
      dataThrough: '2026-11-20',
      days,
      values: { spend: [10, 10, 10, 10, 50, 0] },
      condition: [0, 0, 0, 0, 1, 0],
      baselines: { 'rollingMedian(spend,28,DAY)': [10, 10, 10, 10, 10, 10] },
    };
    const r = decide(
      alert({ variant: 'CONDITION', condition: 'spend > rollingMedian(spend, 28, DAY) * 2' }),
      [],
      series,
      'x',
    );
    expect(r.triggered).toBe(true);
    expect(r.values).toEqual({ spend: 50, 'rollingMedian(spend,28,DAY)': 10 });
  });
});
