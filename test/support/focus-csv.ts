/**
 * A FOCUS export of daily usage rows in USD, one line per row, for tests that ingest data they
 * computed their expectations from. Fields a row does not give take a fixed value.
 */
export interface CostRow {
  day: string;
  cost: number;
  service: string;
  id: number;
  region?: string;
  subAccount?: string;
  /** Default `i-<id>`: a resource per row. */
  resource?: string;
}

const DAY_MS = 86_400_000;

const HEADER = [
  'BilledCost',
  'BillingAccountId',
  'BillingAccountName',
  'BillingCurrency',
  'BillingPeriodEnd',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargeDescription',
  'ChargeFrequency',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'ConsumedQuantity',
  'ConsumedUnit',
  'ContractedCost',
  'EffectiveCost',
  'InvoiceIssuerName',
  'ListCost',
  'PricingCategory',
  'ProviderName',
  'PublisherName',
  'RegionId',
  'RegionName',
  'ResourceId',
  'ServiceCategory',
  'Id',
  'ServiceName',
  'SubAccountId',
  'SubAccountName',
];

export function focusCsv(rows: readonly CostRow[]): string {
  const q = (v: string | number) => (typeof v === 'number' ? String(v) : `"${v}"`);
  const ts = (t: number) => `${new Date(t).toISOString().slice(0, 19).replace('T', ' ')}`;
  const lines = rows.map((r) => {
    const start = Date.parse(`${r.day}T00:00:00Z`);
    const month = new Date(start);
    const periodStart = Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1);
    const periodEnd = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1);
    return [
      r.cost,
      '111122223333',
      'Eval',
      'USD',
      ts(periodEnd),
      ts(periodStart),
      'Usage',
      'compute',
      'Usage-Based',
      ts(start + DAY_MS),
      ts(start),
      1,
      'Hours',
      r.cost,
      r.cost,
      'Amazon Web Services, Inc.',
      r.cost,
      'Standard',
      'AWS',
      'Amazon Web Services, Inc.',
      r.region ?? 'us-east-1',
      r.region ?? 'US East (N. Virginia)',
      r.resource ?? `i-${r.id}`,
      'Compute',
      r.id,
      r.service,
      r.subAccount ?? '444455556666',
      r.subAccount ? `account ${r.subAccount}` : 'eval-account',
    ]
      .map(q)
      .join(',');
  });
  return `${HEADER.map((h) => `"${h}"`).join(',')}\n${lines.join('\n')}\n`;
}
