import {
  csvLine,
  FOCUS_HEADER,
  generateFocusRows,
  recentMonths,
} from '../../../infra/local/demo-data/generator';

describe('synthetic FOCUS generator', () => {
  const opts = { seed: 11, months: ['2024-08', '2024-09'], resourcesPerProvider: 10 };
  const rows = [...generateFocusRows(opts)];

  it('is deterministic for a seed and varies with it', () => {
    expect([...generateFocusRows(opts)]).toEqual(rows);
    expect([...generateFocusRows({ ...opts, seed: 12 })]).not.toEqual(rows);
  });

  it('covers several providers, every day of each month, credits and spikes', () => {
    expect(new Set(rows.map((r) => r.ProviderName))).toEqual(
      new Set(['AWS', 'Microsoft', 'Google Cloud', 'Oracle']),
    );
    const days = new Set(rows.map((r) => String(r.ChargePeriodStart).slice(0, 10)));
    expect(days.size).toBe(31 + 30);
    expect(rows.some((r) => Number(r.BilledCost) < 0 && r.ChargeCategory === 'Credit')).toBe(true);
    // Every month has a day where one service costs about five times its usual.
    const spiky = [
      ...generateFocusRows({ ...opts, spikes: [{ day: '2024-08-10', service: 'COMPUTE', factor: 50 }] }),
    ];
    const computeOn = (list: typeof rows, day: string) =>
      list
        .filter((r) => r.ServiceName === 'COMPUTE' && String(r.ChargePeriodStart).startsWith(day))
        .reduce((s, r) => s + Number(r.BilledCost), 0);
    expect(computeOn(spiky, '2024-08-10')).toBeGreaterThan(20 * computeOn(spiky, '2024-08-09'));
  });

  it('writes cells the way real exports do', () => {
    const header = FOCUS_HEADER.join(',');
    expect(header.startsWith('AvailabilityZone,BilledCost,BillingAccountId')).toBe(true);
    const tagged = rows.find((r) => typeof r.Tags === 'string' && r.ProviderName === 'AWS')!;
    const line = csvLine(tagged);
    expect(line).toMatch(/"\{""[a-z ]/); // JSON in a quoted cell with doubled quotes
    expect(line).toMatch(/"\d{4}-\d{2}-\d{2} 00:00:00"/); // no T, no zone
    expect(line).toMatch(/,\d+\.\d{11},/); // long decimals
    expect(csvLine(rows.find((r) => r.ChargeClass === null)!)).toContain(',NULL,');
    const oracle = rows.filter((r) => r.ProviderName === 'Oracle');
    expect(oracle.some((r) => r.AvailabilityZone === '')).toBe(true); // empty strings on Oracle rows
    expect(oracle.every((r) => r.ServiceName === String(r.ServiceName).toUpperCase())).toBe(true);
    expect(oracle.some((r) => r.ChargeFrequency === 'Usage-based')).toBe(true);
    const keys = new Set(
      rows.flatMap((r) => (typeof r.Tags === 'string' && r.Tags ? Object.keys(JSON.parse(r.Tags)) : [])),
    );
    expect(keys).toEqual(expect.objectContaining({}));
    for (const k of ['env', 'environment', ' org', 'ms:Department', 'aks-managed-cluster-name'])
      expect(keys.has(k)).toBe(true);
    expect(
      rows
        .filter((r) => r.ProviderName === 'AWS')
        .every((r) => r.x_ServiceCode !== null || r.ChargeCategory === 'Credit'),
    ).toBe(true);
  });

  it('lists recent months oldest first', () => {
    const now = new Date('2025-03-10T00:00:00Z');
    expect(recentMonths(3, now)).toEqual(['2024-12', '2025-01', '2025-02']);
    expect(recentMonths(2, now, true)).toEqual(['2025-01', '2025-02', '2025-03']);
  });
});
