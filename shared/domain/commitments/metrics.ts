import { BadRequestError } from '../../errors';
import type { ConversionOut } from '../../model/conversion';
import { COMMITMENT_DIMENSIONS, type CommitmentDimension } from '../../warehouse/sql/commitments';
import { type AggBy, bucketFloor } from '../queries/period';
import type { Grouped } from '../queries/series';
import { addInto, zero } from './figures';
import { COMMITMENT_METRICS, type CommitmentMetricId, RATIO_UNIT } from './metric-ids';
import { amountsBy, facts, moneyFor, summaryFigures } from './service';

export interface CommitmentMetricRequest {
  orgId: string;
  /** The query's name, for its 400s. */
  name: string;
  metricId: CommitmentMetricId;
  groupBy: readonly string[];
  /** The buckets to answer (the window's, history included) and the rows' range `[dataStart, end)`. */
  starts: readonly number[];
  dataStart: number;
  end: number;
  aggBy: AggBy;
  /** The period's own range: the totals are over its buckets only. */
  period: { start: number; end: number };
  /** The currency asked (the request's, dashboard's, alert's, report's); else the reporting currency. */
  currency: string | null;
}

export interface CommitmentMetricSeries {
  groups: Grouped[];
  /** Per group (in `groups` order) and overall: the figure over the period's summed amounts. */
  totals: { series: (number | null)[]; query: number | null };
  unit: string;
  /** The amounts' currency (null for a ratio). */
  currency: string | null;
  conversion: ConversionOut | null;
}

function dimensionsOf(q: CommitmentMetricRequest): CommitmentDimension[] {
  const known: readonly string[] = COMMITMENT_DIMENSIONS;
  const bad = q.groupBy.find((g) => !known.includes(g));
  if (bad !== undefined)
    throw new BadRequestError(
      `query ${q.name}: a commitment metric can only be grouped by ${COMMITMENT_DIMENSIONS.join(', ')} (not "${bad}")`,
    );
  return [...new Set(q.groupBy)] as CommitmentDimension[];
}

/**
 * A commitment metric's series over the buckets: the summary's facts of `[dataStart, end)` (hour
 * facts for `Hour` buckets, day facts otherwise) summed per bucket and group, each cell's figure by
 * the summary's definition. A bucket without facts has the figure of nothing (0, or null for a
 * ratio). Coverage and the savings rate are null when grouped by type, as in the summary.
 */
export async function commitmentMetricSeries(q: CommitmentMetricRequest): Promise<CommitmentMetricSeries> {
  const groupBy = dimensionsOf(q);
  const money = await moneyFor(q.orgId, q.dataStart, q.end, q.currency ?? undefined);
  const rows = await facts(q.orgId, q.dataStart, q.end, groupBy, q.aggBy === 'Hour' ? 'hour' : 'day', money);
  const index = new Map(q.starts.map((t, i) => [t, i]));
  const groupKey = (f: (typeof rows)[number]) => JSON.stringify(groupBy.map((g) => f.group[g] || null));
  const time = (bucket: string) => Date.parse(bucket.length === 10 ? `${bucket}T00:00:00Z` : bucket);
  const cells = amountsBy(rows, (f) => {
    const i = index.get(bucketFloor(time(f.bucket), q.aggBy, q.starts[0]));
    return i === undefined ? undefined : `${i}|${groupKey(f)}`;
  });
  const inPeriod = amountsBy(rows, (f) => {
    const t = time(f.bucket);
    return t >= q.period.start && t < q.period.end ? groupKey(f) : undefined;
  });
  const { figure, ratio } = COMMITMENT_METRICS[q.metricId];
  const coverage = !groupBy.includes('type');
  const figureOf = (a = zero()) => summaryFigures(a, coverage)[figure];
  const ids = new Set([...inPeriod.keys(), ...[...cells.keys()].map((k) => k.slice(k.indexOf('|') + 1))]);
  if (!groupBy.length) ids.add(JSON.stringify([]));
  const keys = [...ids].sort();
  const groups: Grouped[] = keys.map((id) => {
    const values = JSON.parse(id) as (string | null)[];
    return {
      key: Object.fromEntries(groupBy.map((g, i) => [g, values[i] ?? null])),
      values: q.starts.map((_, i) => figureOf(cells.get(`${i}|${id}`))),
    };
  });
  const whole = zero();
  for (const a of inPeriod.values()) addInto(whole, a);
  return {
    groups,
    totals: { series: keys.map((id) => figureOf(inPeriod.get(id))), query: figureOf(whole) },
    unit: ratio ? RATIO_UNIT : money.currency,
    currency: ratio ? null : money.currency,
    conversion: money.conversion,
  };
}
