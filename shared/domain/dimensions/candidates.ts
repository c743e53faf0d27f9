import type { CachedCandidate, Candidate, PublishedLabel } from '../../model/dimensions';
import type { WindowAggregates } from '../../warehouse/port';

/**
 * Label candidates from the window aggregates (pure). Figures are BilledCost (the `cost` metric)
 * over the candidate window, the last three billing months present in the organisation's data:
 * - `total_cost_key_present`: cost of rows carrying the key; `…_absent`: the window total minus it;
 * - proportions are fractions (0–1) of the window total; a value's `proportion_cost_allocated` too;
 * - `months`: `[{month: 'YYYY-MM', cost}]`, oldest first, every window month (0 when absent);
 * - `cost_percentage_change`: the key's cost in the last window month against the month before,
 *   in percent (12.5 means +12.5 %); 0 when there is no earlier month or it cost nothing;
 * - `usage_start_day`: the first day of the window;
 * - `ingested` and `similar_keys` are filled in at read time (`withIngested`), so caches written
 *   before `similar_keys` existed answer it too.
 */
export const CANDIDATE_TOP_VALUES = 50;
export const WINDOW_MONTHS = 3;

function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

export function buildCandidates(agg: WindowAggregates): CachedCandidate[] {
  const months = agg.months.map((m) => m.month);
  const total = agg.months.reduce((s, m) => s + m.cost, 0);
  const start = months[0] ? `${months[0]}-01T00:00:00.000Z` : new Date(0).toISOString();
  const values = new Map<string, WindowAggregates['keyValues']>();
  for (const v of agg.keyValues) values.set(v.key, [...(values.get(v.key) ?? []), v]);
  const byMonth = new Map<string, Map<string, number>>();
  for (const km of agg.keyMonths) {
    const m = byMonth.get(km.key) ?? new Map<string, number>();
    m.set(km.month, km.cost);
    byMonth.set(km.key, m);
  }
  return agg.keys
    .map((k) => {
      const series = months.map((month) => ({ month, cost: byMonth.get(k.key)?.get(month) ?? 0 }));
      const last = series.at(-1)?.cost ?? 0;
      const previous = series.length > 1 ? (series.at(-2)?.cost ?? 0) : 0;
      const absent = total - k.cost;
      return {
        usage_start_day: start,
        key: k.key,
        id: k.key,
        number_values: k.values,
        values: (values.get(k.key) ?? [])
          .sort((a, b) => b.cost - a.cost || a.value.localeCompare(b.value))
          .map((v) => ({
            value: v.value,
            cost_allocated: v.cost,
            proportion_cost_allocated: ratio(v.cost, total),
          })),
        total_cost_key_present: k.cost,
        total_cost_key_absent: absent,
        proportion_key_present: ratio(k.cost, total),
        proportion_key_absent: ratio(absent, total),
        providers: [...k.providers].sort(),
        months: series,
        cost_percentage_change: previous !== 0 ? ((last - previous) / Math.abs(previous)) * 100 : 0,
      };
    })
    .sort((a, b) => b.total_cost_key_present - a.total_cost_key_present || a.key.localeCompare(b.key));
}

/** Tag keys already promoted: a published label named after the key, or merging it as a source. */
export function ingestedKeys(labels: readonly PublishedLabel[]): Set<string> {
  const out = new Set<string>();
  for (const l of labels) {
    out.add(l.name);
    for (const s of l.columnsMerged) if (s.type === 'label' || s.type === 'tag') out.add(s.name);
  }
  return out;
}

/** A key with case and whitespace set aside: keys that share it differ only by case or whitespace. */
export function keySpelling(key: string): string {
  return key.replace(/\s+/gu, '').toLowerCase();
}

/**
 * The read-time fields of the candidates: `ingested` (the key is a published label's name or one
 * of its sources) and `similar_keys`, the other candidate keys that differ from the key only by
 * case or whitespace (`" team"`, `Team` beside `team`), sorted. Keys are never combined here;
 * each keeps its own figures, and one label published with these keys as sources combines them.
 */
export function withIngested(candidates: CachedCandidate[], labels: readonly PublishedLabel[]): Candidate[] {
  const promoted = ingestedKeys(labels);
  const bySpelling = new Map<string, string[]>();
  for (const c of candidates) {
    const spelling = keySpelling(c.key);
    bySpelling.set(spelling, [...(bySpelling.get(spelling) ?? []), c.key]);
  }
  return candidates.map((c) => ({
    ...c,
    similar_keys: (bySpelling.get(keySpelling(c.key)) ?? []).filter((k) => k !== c.key).sort(),
    ingested: promoted.has(c.key),
  }));
}
