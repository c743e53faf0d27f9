import { nextRunAfter } from '../../../shared/domain/reports/schedule';

type Row = [
  label: string,
  period: 'DAILY' | 'WEEKDAYS' | 'WEEKLY' | 'MONTHLY',
  weekday: number | null,
  after: string,
  timeZone: string | null,
  expected: string,
];

describe('nextRunAfter', () => {
  it.each<Row>([
    [
      'DAILY before the hour runs the same day',
      'DAILY',
      null,
      '2024-03-10T07:59:59.999Z',
      null,
      '2024-03-10T08:00:00.000Z',
    ],
    [
      'DAILY exactly at the hour runs the next day',
      'DAILY',
      null,
      '2024-03-10T08:00:00.000Z',
      null,
      '2024-03-11T08:00:00.000Z',
    ],
    ['DAILY across a year end', 'DAILY', null, '2024-12-31T09:00:00.000Z', null, '2025-01-01T08:00:00.000Z'],
    // 2024-06-07 is a Friday.
    [
      'WEEKDAYS on Friday after the hour skips the weekend',
      'WEEKDAYS',
      null,
      '2024-06-07T10:00:00.000Z',
      null,
      '2024-06-10T08:00:00.000Z',
    ],
    [
      'WEEKDAYS on Saturday runs Monday',
      'WEEKDAYS',
      null,
      '2024-06-08T06:00:00.000Z',
      null,
      '2024-06-10T08:00:00.000Z',
    ],
    [
      'WEEKDAYS on Sunday runs Monday',
      'WEEKDAYS',
      null,
      '2024-06-09T23:00:00.000Z',
      null,
      '2024-06-10T08:00:00.000Z',
    ],
    [
      'WEEKDAYS on Monday before the hour runs that day',
      'WEEKDAYS',
      null,
      '2024-06-10T07:00:00.000Z',
      null,
      '2024-06-10T08:00:00.000Z',
    ],
    [
      'WEEKLY Sunday (0) from a Friday',
      'WEEKLY',
      0,
      '2024-06-07T10:00:00.000Z',
      null,
      '2024-06-09T08:00:00.000Z',
    ],
    [
      'WEEKLY Monday (1) on a Monday after the hour waits a week',
      'WEEKLY',
      1,
      '2024-06-10T08:00:00.001Z',
      null,
      '2024-06-17T08:00:00.000Z',
    ],
    [
      'WEEKLY Saturday (6) across a month end',
      'WEEKLY',
      6,
      '2024-06-30T12:00:00.000Z',
      null,
      '2024-07-06T08:00:00.000Z',
    ],
    ['MONTHLY from the 31st', 'MONTHLY', null, '2024-01-31T12:00:00.000Z', null, '2024-02-01T08:00:00.000Z'],
    [
      'MONTHLY on the 1st after the hour waits a month',
      'MONTHLY',
      null,
      '2024-02-01T09:00:00.000Z',
      null,
      '2024-03-01T08:00:00.000Z',
    ],
    [
      'MONTHLY from a leap day',
      'MONTHLY',
      null,
      '2024-02-29T23:59:00.000Z',
      null,
      '2024-03-01T08:00:00.000Z',
    ],
    ['DAILY on a leap day', 'DAILY', null, '2024-02-28T09:00:00.000Z', null, '2024-02-29T08:00:00.000Z'],
    [
      'DAILY after Feb 28 of a common year',
      'DAILY',
      null,
      '2023-02-28T09:00:00.000Z',
      null,
      '2023-03-01T08:00:00.000Z',
    ],
    [
      'MONTHLY across a year end',
      'MONTHLY',
      null,
      '2024-12-15T00:00:00.000Z',
      null,
      '2025-01-01T08:00:00.000Z',
    ],
    // Europe/Paris: CET (+01:00) until 2024-03-31 02:00, CEST (+02:00) after, back on 2024-10-27 03:00.
    [
      'DAILY in Paris the day before spring-forward',
      'DAILY',
      null,
      '2024-03-30T08:00:00.000Z',
      'Europe/Paris',
      '2024-03-31T06:00:00.000Z',
    ],
    [
      'DAILY in Paris the day before, still winter time',
      'DAILY',
      null,
      '2024-03-29T08:00:00.000Z',
      'Europe/Paris',
      '2024-03-30T07:00:00.000Z',
    ],
    [
      'DAILY in Paris on fall-back day',
      'DAILY',
      null,
      '2024-10-26T07:00:00.000Z',
      'Europe/Paris',
      '2024-10-27T07:00:00.000Z',
    ],
    // New York: EDT (-04:00) from 2024-03-10; 08:00 local is 13:00Z before, 12:00Z after.
    [
      'WEEKLY Sunday in New York on the DST Sunday',
      'WEEKLY',
      0,
      '2024-03-05T00:00:00.000Z',
      'America/New_York',
      '2024-03-10T12:00:00.000Z',
    ],
    [
      'WEEKDAYS in New York over the DST weekend',
      'WEEKDAYS',
      null,
      '2024-03-08T14:00:00.000Z',
      'America/New_York',
      '2024-03-11T12:00:00.000Z',
    ],
    // Auckland is already on the 1st while UTC is on the 31st.
    [
      'MONTHLY in Auckland',
      'MONTHLY',
      null,
      '2024-05-31T00:00:00.000Z',
      'Pacific/Auckland',
      '2024-05-31T20:00:00.000Z',
    ],
    // Month ends of every length, and leap years (2024 yes, 2023 no, 2100 no, 2000 yes).
    [
      'MONTHLY from Apr 30 (30-day month)',
      'MONTHLY',
      null,
      '2024-04-30T12:00:00.000Z',
      null,
      '2024-05-01T08:00:00.000Z',
    ],
    [
      'DAILY from Apr 30 to May 1',
      'DAILY',
      null,
      '2024-04-30T08:00:00.000Z',
      null,
      '2024-05-01T08:00:00.000Z',
    ],
    [
      'MONTHLY from Feb 28 of a common year',
      'MONTHLY',
      null,
      '2023-02-28T09:00:00.000Z',
      null,
      '2023-03-01T08:00:00.000Z',
    ],
    [
      'DAILY after Feb 28, 2100 (not a leap year)',
      'DAILY',
      null,
      '2100-02-28T09:00:00.000Z',
      null,
      '2100-03-01T08:00:00.000Z',
    ],
    [
      'DAILY after Feb 28, 2000 (a leap year)',
      'DAILY',
      null,
      '2000-02-28T09:00:00.000Z',
      null,
      '2000-02-29T08:00:00.000Z',
    ],
    // 2024-02-29 is a Thursday; the next Thursday is 2024-03-07.
    [
      'WEEKLY Thursday (4) from a leap day after the hour',
      'WEEKLY',
      4,
      '2024-02-29T08:00:00.000Z',
      null,
      '2024-03-07T08:00:00.000Z',
    ],
    [
      'WEEKDAYS over a weekend that ends a month',
      'WEEKDAYS',
      null,
      '2024-08-30T09:00:00.000Z',
      null,
      '2024-09-02T08:00:00.000Z',
    ],
    [
      'WEEKDAYS over a weekend that ends a year',
      'WEEKDAYS',
      null,
      '2022-12-30T09:00:00.000Z',
      null,
      '2023-01-02T08:00:00.000Z',
    ],
    // DST in non-UTC zones: autumn in New York (EST -05:00 from 2024-11-03), the southern hemisphere
    // (Sydney leaves AEDT +11:00 for AEST +10:00 on 2024-04-07), and a MONTHLY run across a change.
    [
      'DAILY in New York across fall-back',
      'DAILY',
      null,
      '2024-11-02T13:00:00.000Z',
      'America/New_York',
      '2024-11-03T13:00:00.000Z',
    ],
    [
      'WEEKDAYS in New York from Friday before fall-back',
      'WEEKDAYS',
      null,
      '2024-11-01T13:00:00.000Z',
      'America/New_York',
      '2024-11-04T13:00:00.000Z',
    ],
    [
      'DAILY in Sydney the day before DST ends (AEDT)',
      'DAILY',
      null,
      '2024-04-05T10:00:00.000Z',
      'Australia/Sydney',
      '2024-04-05T21:00:00.000Z',
    ],
    [
      'DAILY in Sydney the day DST ended (AEST)',
      'DAILY',
      null,
      '2024-04-05T21:00:00.000Z',
      'Australia/Sydney',
      '2024-04-06T22:00:00.000Z',
    ],
    [
      'MONTHLY in Paris across spring-forward',
      'MONTHLY',
      null,
      '2024-03-01T07:00:00.000Z',
      'Europe/Paris',
      '2024-04-01T06:00:00.000Z',
    ],
    [
      'WEEKLY Sunday in Paris on fall-back day',
      'WEEKLY',
      0,
      '2024-10-21T00:00:00.000Z',
      'Europe/Paris',
      '2024-10-27T07:00:00.000Z',
    ],
    [
      'MONTHLY in New York on a Feb 29 evening local (already Mar 1 in UTC)',
      'MONTHLY',
      null,
      '2024-03-01T03:00:00.000Z',
      'America/New_York',
      '2024-03-01T13:00:00.000Z',
    ],
    [
      'an unknown zone falls back to UTC',
      'DAILY',
      null,
      '2024-03-10T09:00:00.000Z',
      'Not/AZone',
      '2024-03-11T08:00:00.000Z',
    ],
  ])('%s', (_label, period, weekday, after, timeZone, expected) => {
    expect(
      nextRunAfter({ scheduledPeriod: period, scheduledWeekday: weekday }, new Date(after), { timeZone }),
    ).toBe(expected);
  });

  // A daily report delivered at 02:00 Paris time, around the two DST changes of 2024.
  it.each([
    // 02:30 happens twice in Paris on 2024-10-27: first at CEST (00:30Z), then at CET (01:30Z).
    [
      'takes the first of the two instants of an hour that DST repeats',
      '2024-10-26T12:00:00Z',
      '2024-10-27T00:00:00.000Z',
    ],
    // 02:00 does not exist in Paris on 2024-03-31: it becomes 03:00 CEST = 01:00Z.
    [
      'takes a delivery hour that DST skips forward by the gap',
      '2024-03-30T12:00:00Z',
      '2024-03-31T01:00:00.000Z',
    ],
  ])('%s', (_what, after, expected) => {
    expect(
      nextRunAfter({ scheduledPeriod: 'DAILY', scheduledWeekday: null }, new Date(after), {
        timeZone: 'Europe/Paris',
        hour: 2,
      }),
    ).toBe(expected);
  });

  it('answers null for an on-demand report and a WEEKLY one without a weekday', () => {
    const at = new Date('2024-01-01T00:00:00Z');
    expect(nextRunAfter({ scheduledPeriod: null, scheduledWeekday: null }, at)).toBeNull();
    expect(nextRunAfter({ scheduledPeriod: 'WEEKLY', scheduledWeekday: null }, at)).toBeNull();
  });

  it('runs WEEKDAYS on exactly five days of every week', () => {
    let at = new Date('2024-01-01T00:00:00Z');
    const days: number[] = [];
    for (let i = 0; i < 50; i++) {
      const next = nextRunAfter({ scheduledPeriod: 'WEEKDAYS', scheduledWeekday: null }, at) as string;
      days.push(new Date(next).getUTCDay());
      at = new Date(next);
    }
    expect(days.filter((d) => d === 0 || d === 6)).toEqual([]);
    expect(days.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
  });
});
