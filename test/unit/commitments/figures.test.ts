import { summarise } from '../../../shared/domain/commitments/service';
import type { CommitmentFact } from '../../../shared/warehouse/sql/commitments';

/**
 * The summary's arithmetic over hand-made facts: a credit-style pool (Google Cloud) shared by two
 * projects, an amortised commitment whose fee line adds nothing, eligible usage, and week and month
 * buckets. Every expected figure is worked out here from the facts.
 */
const fact = (
  f: Partial<CommitmentFact> & Pick<CommitmentFact, 'bucket' | 'commitmentId'>,
): CommitmentFact => ({
  group: {},
  used: 0,
  unused: 0,
  fee: 0,
  coveredList: 0,
  credit: 0,
  eligibleList: 0,
  ...f,
});

const POOL = 'gce/resource/us-central1';
const facts: CommitmentFact[] = [
  // Day 1 (a Tuesday): the pool's fee of 10 is paid in project a; credits of 6 (a) and 2 (b) covered 8.
  fact({ bucket: '2024-05-07', commitmentId: POOL, group: { account: 'a' }, fee: 10, credit: 6 }),
  fact({ bucket: '2024-05-07', commitmentId: POOL, group: { account: 'b' }, credit: 2 }),
  // Day 2 (the next Monday): credits of 12 exceed the fee of 10: fully used.
  fact({ bucket: '2024-05-13', commitmentId: POOL, group: { account: 'a' }, fee: 10, credit: 12 }),
  // An amortised savings plan: used 3, unused 1, covered 5 at on-demand; its fee line's 7 is no cost.
  fact({
    bucket: '2024-05-07',
    commitmentId: 'sp',
    group: { account: 'a' },
    used: 3,
    unused: 1,
    fee: 7,
    coveredList: 5,
  }),
  // Eligible usage naming no commitment (Google Cloud's covered usage is among it).
  fact({ bucket: '2024-05-07', commitmentId: '', group: { account: 'a' }, eligibleList: 20 }),
  fact({ bucket: '2024-05-07', commitmentId: '', group: { account: 'b' }, eligibleList: 4 }),
  fact({ bucket: '2024-05-13', commitmentId: '', group: { account: 'a' }, eligibleList: 15 }),
];

describe('commitment summary arithmetic', () => {
  it('a credit-style pool: used = min(fee, credits), unused = the rest, shared pro rata between groups', () => {
    const { rows, total } = summarise(facts, 'account', 'DAY');
    const at = (date: string, group: string) => rows.find((r) => r.date === date && r.group === group)!;
    // Day 1: used 8 (a: 6, b: 2), unused 2 (a, which paid the fee); plus the plan in a.
    expect(at('2024-05-07', 'a')).toMatchObject({ usedCost: 6 + 3, unusedCost: 2 + 1, commitmentCost: 12 });
    expect(at('2024-05-07', 'b')).toMatchObject({ usedCost: 2, unusedCost: 0, commitmentCost: 2 });
    expect(at('2024-05-13', 'a')).toMatchObject({ usedCost: 10, unusedCost: 0, coveredOnDemandCost: 12 });
    // Coverage: covered on-demand (credits + the plan's covered list) over eligible (+ the plan's covered list).
    expect(at('2024-05-07', 'a').coverage).toBeCloseTo((6 + 5) / (20 + 5), 12);
    expect(at('2024-05-07', 'b').coverage).toBeCloseTo(2 / 4, 12);
    expect(total.commitmentCost).toBeCloseTo(10 + 10 + 4, 12);
    expect(total.utilization).toBeCloseTo((8 + 10 + 3) / 24, 12);
    const covered = 8 + 12 + 5;
    expect(total.savings).toBeCloseTo(covered - 24, 12);
    expect(total.effectiveSavingsRate).toBeCloseTo((covered - 24) / (20 + 4 + 15 + 5), 12);
  });

  it('week buckets start on Monday and month buckets on the first; by type coverage is null', () => {
    const weeks = summarise(facts, null, 'WEEK');
    expect(weeks.rows.map((r) => [r.date, r.group])).toEqual([
      ['2024-05-06', null],
      ['2024-05-13', null],
    ]);
    expect(summarise(facts, null, 'MONTH').rows.map((r) => r.date)).toEqual(['2024-05-01']);
    const byType = summarise(
      facts.map((f) => ({ ...f, group: { type: f.commitmentId ? 'x' : '' } })),
      'type',
      'DAY',
    );
    expect(byType.rows.every((r) => r.coverage === null && r.effectiveSavingsRate === null)).toBe(true);
  });
});
