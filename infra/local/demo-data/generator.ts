import { seededRandom } from './random';
import { writeRows } from './write-rows';

/**
 * A synthetic FOCUS 1.0 export generator for the demo seed, tests and benchmarks. Its output is
 * shaped like the real samples: `NULL` for nulls (and empty strings on Oracle rows), timestamps
 * without `T` or zone, `Tags` as a JSON object in a quoted cell with doubled quotes and messy keys
 * (a leading space, `env` beside `environment`, `ms:Department`, `aks-managed-*`), AWS `x_`
 * columns, long decimals, upper-case Oracle service names, credits, and cost spikes.
 * Deterministic for a given seed.
 */
export type Provider = 'AWS' | 'Microsoft' | 'Google Cloud' | 'Oracle';

export interface GeneratorOptions {
  seed: number;
  /** Billing months to generate, `YYYY-MM`. */
  months: string[];
  /** Resources per provider; each has one usage row per day. */
  resourcesPerProvider?: number;
  providers?: Provider[];
  /** Extra multipliers: every row of `service` (or every row) on `day` costs `factor` times more. */
  spikes?: { day: string; service?: string; factor: number }[];
  /** Billing account id prefix, so two generated organisations never share account ids. */
  accountPrefix?: string;
  /** Days generated per month (from the 1st); the whole month when omitted. */
  daysPerMonth?: number;
  /** No rows on or after this day (`YYYY-MM-DD`), e.g. today for a month in progress. */
  until?: string;
  /** Tags added to every tagged resource (to tell one generated organisation from another). */
  extraTags?: Record<string, string>;
}

export const FOCUS_HEADER = [
  'AvailabilityZone',
  'BilledCost',
  'BillingAccountId',
  'BillingAccountName',
  'BillingCurrency',
  'BillingPeriodEnd',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargeFrequency',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'CommitmentDiscountCategory',
  'CommitmentDiscountId',
  'CommitmentDiscountName',
  'CommitmentDiscountStatus',
  'CommitmentDiscountType',
  'ConsumedQuantity',
  'ConsumedUnit',
  'ContractedCost',
  'ContractedUnitPrice',
  'EffectiveCost',
  'InvoiceIssuerName',
  'ListCost',
  'ListUnitPrice',
  'PricingCategory',
  'PricingQuantity',
  'PricingUnit',
  'ProviderName',
  'PublisherName',
  'RegionId',
  'RegionName',
  'ResourceId',
  'ResourceName',
  'ResourceType',
  'ServiceCategory',
  'ServiceName',
  'SkuId',
  'SkuPriceId',
  'SubAccountId',
  'SubAccountName',
  'Tags',
  'x_UnblendedCost',
  'x_ServiceCode',
] as const;

export type FocusRow = Record<(typeof FOCUS_HEADER)[number], string | number | null>;

interface ServiceSpec {
  name: string;
  category: string;
  unit: string;
  price: number;
  resourceType: string;
  code: string;
}

const SERVICES: Record<Provider, ServiceSpec[]> = {
  AWS: [
    {
      name: 'Amazon Elastic Compute Cloud',
      category: 'Compute',
      unit: 'Hours',
      price: 0.096,
      resourceType: 'Instance',
      code: 'AmazonEC2',
    },
    {
      name: 'Amazon Simple Storage Service',
      category: 'Storage',
      unit: 'GB-Mo',
      price: 0.023,
      resourceType: 'Bucket',
      code: 'AmazonS3',
    },
    {
      name: 'Amazon Relational Database Service',
      category: 'Databases',
      unit: 'Hours',
      price: 0.171,
      resourceType: 'DB Instance',
      code: 'AmazonRDS',
    },
    {
      name: 'AWS Lambda',
      category: 'Compute',
      unit: 'Requests',
      price: 0.0000002,
      resourceType: 'Function',
      code: 'AWSLambda',
    },
    {
      name: 'Amazon Simple Queue Service',
      category: 'Integration',
      unit: 'Requests',
      price: 0.0000004,
      resourceType: 'Queue',
      code: 'AWSQueueService',
    },
    {
      name: 'Elastic Load Balancing',
      category: 'Networking',
      unit: 'LCU-Hours',
      price: 0.008,
      resourceType: 'Load Balancer',
      code: 'AWSELB',
    },
  ],
  Microsoft: [
    {
      name: 'Virtual Machines',
      category: 'Compute',
      unit: 'Hours',
      price: 0.12,
      resourceType: 'Virtual machine',
      code: '',
    },
    {
      name: 'Storage',
      category: 'Storage',
      unit: 'GB Hours',
      price: 0.00003,
      resourceType: 'Storage account',
      code: '',
    },
    {
      name: 'Azure Kubernetes Service',
      category: 'Compute',
      unit: 'Hours',
      price: 0.1,
      resourceType: 'Managed cluster',
      code: '',
    },
    {
      name: 'Azure Cosmos DB',
      category: 'Databases',
      unit: 'API Requests',
      price: 0.0000003,
      resourceType: 'Database account',
      code: '',
    },
  ],
  'Google Cloud': [
    {
      name: 'Compute Engine',
      category: 'Compute',
      unit: 'Hours',
      price: 0.089,
      resourceType: 'VM instance',
      code: '',
    },
    {
      name: 'Cloud Storage',
      category: 'Storage',
      unit: 'GB-Months',
      price: 0.02,
      resourceType: 'Bucket',
      code: '',
    },
    { name: 'BigQuery', category: 'Analytics', unit: 'GB', price: 0.005, resourceType: 'Dataset', code: '' },
  ],
  Oracle: [
    { name: 'COMPUTE', category: 'Compute', unit: 'Hours', price: 0.05, resourceType: 'instance', code: '' },
    {
      name: 'BLOCK_STORAGE',
      category: 'Storage',
      unit: 'GB-Months',
      price: 0.0255,
      resourceType: 'volume',
      code: '',
    },
  ],
};

const REGIONS: Record<Provider, [string, string][]> = {
  AWS: [
    ['us-east-1', 'US East (N. Virginia)'],
    ['us-west-2', 'US West (Oregon)'],
    ['eu-west-1', 'Europe (Ireland)'],
  ],
  Microsoft: [
    ['eastus', 'East US'],
    ['westeurope', 'West Europe'],
  ],
  'Google Cloud': [
    ['us-central1', 'Iowa'],
    ['europe-west1', 'Belgium'],
  ],
  Oracle: [['us-ashburn-1', 'US East (Ashburn)']],
};

const ISSUERS: Record<Provider, string> = {
  AWS: 'Amazon Web Services, Inc.',
  Microsoft: 'Microsoft',
  'Google Cloud': 'Google',
  Oracle: 'Oracle',
};

const TEAMS = ['platform', 'payments', 'search', 'data', 'mobile', 'growth'];
const APPS = ['checkout', 'catalog', 'ledger', 'recommender', 'gateway', 'reporting', 'auth'];
const ENVS = ['prod', 'staging', 'dev', 'test'];
const UNITS = ['ViennaAI', 'Retail', 'Wholesale', 'Research'];

interface Resource {
  provider: Provider;
  service: ServiceSpec;
  region: [string, string];
  az: string | null;
  account: [string, string];
  id: string;
  name: string | null;
  tags: Record<string, string> | null;
  dailyQuantity: number;
}

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function tagsFor(
  rand: () => number,
  provider: Provider,
  extra: Record<string, string> = {},
): Record<string, string> | null {
  if (rand() < 0.28) return null;
  const tags: Record<string, string> = { ...extra };
  const r = rand();
  // Environment keys are spelt three ways across teams, as in real estates.
  if (r < 0.5) tags.environment = pick(rand, ENVS);
  else if (r < 0.8) tags.env = pick(rand, ENVS);
  else if (r < 0.9) tags.Environment = pick(rand, ENVS).toUpperCase();
  if (rand() < 0.7) tags.team = pick(rand, TEAMS);
  if (rand() < 0.6) tags.application = pick(rand, APPS);
  if (rand() < 0.3) tags.business_unit = pick(rand, UNITS);
  if (rand() < 0.15) tags[' org'] = pick(rand, ['finops', 'engineering']);
  if (rand() < 0.2) tags['cost-center'] = `CC-${100 + Math.floor(rand() * 8)}`;
  if (provider === 'Microsoft') {
    if (rand() < 0.5) tags['ms:Department'] = pick(rand, ['IT', 'Finance', 'R&D']);
    if (rand() < 0.4) tags['aks-managed-cluster-name'] = `aks-${pick(rand, TEAMS)}-01`;
  }
  return Object.keys(tags).length ? tags : null;
}

function resources(opts: GeneratorOptions, rand: () => number): Resource[] {
  const providers = opts.providers ?? ['AWS', 'Microsoft', 'Google Cloud', 'Oracle'];
  const perProvider = opts.resourcesPerProvider ?? 40;
  const prefix = opts.accountPrefix ?? '1000';
  const out: Resource[] = [];
  providers.forEach((provider, pi) => {
    const accounts: [string, string][] = [0, 1, 2].map((i) => [
      `${prefix}${pi}${String(i).padStart(8, '0')}`,
      `${pick(rand, ['Zenith', 'Atlas', 'Nova', 'Orion'])} ${pick(rand, ['Eclipse', 'Nimbus', 'Prime', 'Core'])}`,
    ]);
    // Fewer resources for smaller providers, like real mixed estates.
    const count = Math.max(2, Math.round(perProvider * [1, 0.5, 0.35, 0.15][pi % 4]!));
    for (let i = 0; i < count; i++) {
      const service = pick(rand, SERVICES[provider]);
      const region = pick(rand, REGIONS[provider]);
      const account = pick(rand, accounts);
      const id =
        provider === 'AWS'
          ? `arn:aws:${service.code.toLowerCase()}:${region[0]}:${account[0]}:${service.resourceType.toLowerCase().replaceAll(' ', '-')}/r-${(pi * 100000 + i).toString(16)}`
          : provider === 'Microsoft'
            ? `/subscriptions/${account[0]}/resourcegroups/rg-${i % 7}/providers/microsoft.compute/${service.resourceType.toLowerCase().replaceAll(' ', '')}/res-${i}`
            : provider === 'Oracle'
              ? `ocid1.${service.resourceType}.oc1.iad.a${(i * 7919).toString(36)}`
              : `//compute.googleapis.com/projects/p-${account[0]}/zones/${region[0]}-b/instances/i-${i}`;
      out.push({
        provider,
        service,
        region,
        az: provider === 'AWS' && rand() < 0.5 ? `${region[0]}${pick(rand, ['a', 'b', 'c'])}` : null,
        account,
        id,
        name: rand() < 0.6 ? `${service.resourceType.toLowerCase().replaceAll(' ', '-')}-${i}` : null,
        tags: tagsFor(rand, provider, opts.extraTags),
        dailyQuantity:
          service.unit === 'Requests' || service.unit === 'API Requests'
            ? Math.round(20_000 + rand() * 4_000_000)
            : service.unit.startsWith('GB')
              ? 50 + rand() * 5000
              : 24 * (1 + Math.floor(rand() * 4)),
      });
    }
  });
  return out;
}

function daysOf(month: string, limit?: number): string[] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const n = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const days: string[] = [];
  for (let d = 1; d <= Math.min(n, limit ?? n); d++) days.push(`${month}-${String(d).padStart(2, '0')}`);
  return days;
}

function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7);
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

function money(n: number): number {
  return Math.round(n * 1e10) / 1e10;
}

/** The default spikes: one service on one day per month costs five times more. */
function defaultSpikes(
  opts: GeneratorOptions,
  rand: () => number,
): { day: string; service?: string; factor: number }[] {
  const services = (opts.providers ?? ['AWS']).flatMap((p) => SERVICES[p].map((s) => s.name));
  return opts.months.map((month) => ({
    day: pick(rand, daysOf(month, opts.daysPerMonth)),
    service: pick(rand, services),
    factor: 5,
  }));
}

/** Generates rows month by month, day by day; one usage row per resource and day, plus a few credits. */
export function* generateFocusRows(opts: GeneratorOptions): Generator<FocusRow> {
  const rand = seededRandom(opts.seed);
  const pool = resources(opts, rand);
  const spikes = opts.spikes ?? defaultSpikes(opts, rand);
  for (const month of opts.months) {
    const periodStart = `${month}-01 00:00:00`;
    const periodEnd = `${nextMonth(month)}-01 00:00:00`;
    for (const day of daysOf(month, opts.daysPerMonth)) {
      if (opts.until && day >= opts.until) break;
      const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
      const weekend = weekday === 0 || weekday === 6 ? 0.8 : 1;
      for (const r of pool) {
        let factor = weekend * (0.9 + rand() * 0.2);
        for (const s of spikes)
          if (s.day === day && (!s.service || s.service === r.service.name)) factor *= s.factor;
        const quantity = r.dailyQuantity * factor;
        const list = money(quantity * r.service.price);
        const discounted = r.provider === 'AWS' && r.service.category === 'Compute' && rand() < 0.4;
        const billed = discounted ? money(list * 0.72) : list;
        const oracle = r.provider === 'Oracle';
        const nul = oracle && rand() < 0.5 ? '' : null;
        yield {
          AvailabilityZone: r.az ?? nul,
          BilledCost: billed,
          BillingAccountId: r.account[0],
          BillingAccountName: r.account[1],
          BillingCurrency: 'USD',
          BillingPeriodEnd: periodEnd,
          BillingPeriodStart: periodStart,
          ChargeCategory: 'Usage',
          ChargeClass: null,
          ChargeDescription: `${r.service.name} ${r.service.unit} in ${r.region[1]}`,
          ChargeFrequency: oracle ? 'Usage-based' : 'Usage-Based',
          ChargePeriodEnd: `${nextDay(day)} 00:00:00`,
          ChargePeriodStart: `${day} 00:00:00`,
          CommitmentDiscountCategory: discounted ? 'Spend' : null,
          CommitmentDiscountId: discounted ? `sp-${r.account[0]}` : null,
          CommitmentDiscountName: discounted ? 'Compute Savings Plan' : null,
          CommitmentDiscountStatus: discounted ? 'Used' : null,
          CommitmentDiscountType: discounted ? 'Savings Plan' : null,
          ConsumedQuantity: Math.round(quantity * 1e6) / 1e6,
          ConsumedUnit: r.service.unit,
          ContractedCost: oracle ? nul : billed,
          ContractedUnitPrice: oracle ? nul : r.service.price,
          // AWS exports often carry no amortised cost on usage rows (see the real sample).
          EffectiveCost: r.provider === 'AWS' && rand() < 0.6 ? 0 : billed,
          InvoiceIssuerName: ISSUERS[r.provider],
          ListCost: list,
          ListUnitPrice: r.service.price,
          PricingCategory: discounted ? 'Committed' : 'Standard',
          PricingQuantity: Math.round(quantity * 1e6) / 1e6,
          PricingUnit: r.service.unit,
          ProviderName: r.provider,
          PublisherName: ISSUERS[r.provider],
          RegionId: r.region[0],
          RegionName: r.region[1],
          ResourceId: r.id,
          ResourceName: r.name ?? nul,
          ResourceType: r.service.resourceType,
          ServiceCategory: r.service.category,
          ServiceName: r.service.name,
          SkuId: `${r.service.code || r.provider.slice(0, 3).toUpperCase()}-${r.service.unit.replaceAll(' ', '')}`,
          SkuPriceId: null,
          SubAccountId: r.account[0],
          SubAccountName: r.account[1],
          Tags: r.tags ? JSON.stringify(r.tags) : nul,
          x_UnblendedCost: r.provider === 'AWS' ? list : null,
          x_ServiceCode: r.provider === 'AWS' ? r.service.code : null,
        };
      }
      // Now and then a credit on the first resource of the day's first provider.
      if (rand() < 0.05) {
        const r = pool[0]!;
        const credit = -money(5 + rand() * 20);
        yield {
          ...Object.fromEntries(FOCUS_HEADER.map((h) => [h, null])),
          BilledCost: credit,
          BillingAccountId: r.account[0],
          BillingAccountName: r.account[1],
          BillingCurrency: 'USD',
          BillingPeriodEnd: periodEnd,
          BillingPeriodStart: periodStart,
          ChargeCategory: 'Credit',
          ChargeDescription: 'Promotional credit',
          ChargeFrequency: 'One-Time',
          ChargePeriodEnd: `${nextDay(day)} 00:00:00`,
          ChargePeriodStart: `${day} 00:00:00`,
          ContractedCost: credit,
          EffectiveCost: credit,
          InvoiceIssuerName: ISSUERS[r.provider],
          ListCost: 0,
          ProviderName: r.provider,
          PublisherName: ISSUERS[r.provider],
          ServiceCategory: r.service.category,
          ServiceName: r.service.name,
          SubAccountId: r.account[0],
          SubAccountName: r.account[1],
        } as FocusRow;
      }
    }
  }
}

/** One CSV cell the way the real exports write it. */
function cell(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(11);
  return `"${value.replaceAll('"', '""')}"`;
}

export function csvLine(row: FocusRow): string {
  return FOCUS_HEADER.map((h) => cell(row[h])).join(',');
}

/** Writes a generated export to `path`; returns the number of data rows. */
export function writeFocusCsv(path: string, opts: GeneratorOptions): Promise<number> {
  const header = `${FOCUS_HEADER.map((h) => `"${h}"`).join(',')}\n`;
  return writeRows(path, header, generateFocusRows(opts), (row) => `${csvLine(row)}\n`);
}

/** The `count` billing months before `now`'s (and `now`'s own when `includeCurrent`), oldest first. */
export function recentMonths(count: number, now: Date = new Date(), includeCurrent = false): string[] {
  const months: string[] = [];
  for (let i = count; i >= (includeCurrent ? 0 : 1); i--) {
    months.push(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1)).toISOString().slice(0, 7));
  }
  return months;
}
