/**
 * The commitments page's data shaping (pure, no DOM), from the service's own answers
 * (docs/commitments.md): the summary's utilisation and coverage over time by provider as line
 * charts, the inventory as table rows with days left and money in the answer's currency, and the
 * simulator's curve of net savings per level with the recommended level marked.
 */
import { formatFigure } from '../../shared/charts/spec';
import type { Expiring } from '../../shared/domain/commitments/expiring';
import type { Inventory, Simulation, Summary } from '../../shared/domain/commitments/service';
import type { LevelOutcome } from '../../shared/domain/commitments/simulation';

export type { Expiring, Inventory, LevelOutcome, Simulation, Summary };

// biome-ignore lint/suspicious/noExplicitAny: an ECharts option is open-ended JSON
type Option = Record<string, any>;

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
export const percent = pct;

const DAY_MS = 86_400_000;
/** Whole days from `today` (YYYY-MM-DD) to the day of `end` (an ISO date or time); null without an end. */
export function daysLeft(end: string | null, today: string): number | null {
  if (!end) return null;
  return Math.round(
    (Date.parse(`${end.slice(0, 10)}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS,
  );
}

/** A rate over time, one line per provider (`key`: utilization or coverage), in percent. */
export function rateChart(s: Summary, key: 'utilization' | 'coverage', title: string): Option {
  const dates = [...new Set(s.rows.map((r) => r.date))].sort();
  const groups = [...new Set(s.rows.map((r) => r.group ?? 'All'))].sort();
  const at = new Map(s.rows.map((r) => [`${r.date}|${r.group ?? 'All'}`, r[key]]));
  return {
    aria: { enabled: true },
    grid: { left: 48, right: 16, top: 16, bottom: 64 },
    legend: { type: 'scroll', bottom: 0 },
    xAxis: { type: 'category', data: dates },
    yAxis: { type: 'value', min: 0, max: 100, axisLabel: { formatter: '{value}%' } },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v: number | null) => (v === null ? '–' : `${v.toFixed(1)}%`),
    },
    series: groups.map((g) => ({
      name: g,
      type: 'line',
      connectNulls: false,
      data: dates.map((d) => {
        const v = at.get(`${d}|${g}`);
        return v === undefined || v === null ? null : Math.round(v * 1000) / 10;
      }),
    })),
    title: { show: false, text: title },
  };
}

export interface InventoryRow {
  id: string;
  name: string;
  provider: string;
  kind: string;
  term: string;
  ends: string;
  /** "12 days", "expired", or '–' without an end. */
  daysLeft: string;
  /** Ends within 30 days (or has ended). */
  soon: boolean;
  cost: string;
  used: string;
  unused: string;
  utilization: string;
  savings: string;
}

export function inventoryRows(inv: Inventory, today: string): InventoryRow[] {
  const money = (x: number) => formatFigure(x, inv.currency, 2);
  return inv.items.map((c) => {
    const left = daysLeft(c.end, today);
    return {
      id: c.id,
      name: c.name ?? c.id,
      provider: c.provider ?? '–',
      kind: [c.type, c.category].filter(Boolean).join(' · ') || '–',
      term: [c.term, c.purchaseOption].filter(Boolean).join(', ') || '–',
      ends: c.end ? c.end.slice(0, 10) : '–',
      daysLeft: left === null ? '–' : left < 0 ? 'expired' : `${left} day${left === 1 ? '' : 's'}`,
      soon: left !== null && left <= 30,
      cost: money(c.commitmentCost),
      used: money(c.usedCost),
      unused: money(c.unusedCost),
      utilization: pct(c.utilization),
      savings: money(c.savings),
    };
  });
}

/** Net savings over the lookback per hourly commitment, the recommended level marked. */
export function curveChart(sim: Simulation): Option {
  const money = (x: number) => formatFigure(x, sim.currency, 2);
  const rec = sim.recommended;
  return {
    aria: { enabled: true },
    grid: { left: 72, right: 24, top: 32, bottom: 48 },
    xAxis: {
      type: 'value',
      name: `${sim.currency}/hour`,
      nameLocation: 'middle',
      nameGap: 28,
      axisLabel: { formatter: (v: number) => formatFigure(v, sim.currency, 2) },
    },
    yAxis: { type: 'value', axisLabel: { formatter: (v: number) => formatFigure(v, sim.currency, 0) } },
    tooltip: {
      trigger: 'axis',
      formatter: (ps: { data: [number, number] }[]) => {
        const [level, net] = ps[0]!.data;
        return `${money(level)}/hour<br/>Net savings: ${money(net)}`;
      },
    },
    series: [
      {
        name: 'Net savings',
        type: 'line',
        showSymbol: false,
        data: sim.curve.map((l) => [l.hourlyCommitment, l.netSavings]),
        ...(rec
          ? {
              markPoint: {
                symbol: 'pin',
                data: [{ name: 'Recommended', coord: [rec.hourlyCommitment, rec.netSavings], value: 'Best' }],
              },
              markLine: {
                symbol: 'none',
                data: [{ xAxis: rec.hourlyCommitment }],
                label: { show: true, position: 'insideEndTop', formatter: 'Recommended' },
              },
            }
          : {}),
      },
    ],
  };
}

/** The recommendation in words, or why there is none. */
export function recommendation(sim: Simulation): string {
  const money = (x: number) => formatFigure(x, sim.currency, 2);
  const r = sim.recommended;
  if (!r) return 'No level saves: buying no savings plan is best for this usage.';
  return (
    `Recommended: ${money(r.hourlyCommitment)}/hour, net savings ${money(r.netSavings)} over the ` +
    `${sim.lookback.hours} hours looked at (${money(r.monthlyNetSavings)} a month), utilisation ` +
    `${pct(r.utilization)}, coverage ${pct(r.coverage)}, ` +
    (r.breakEvenMonth === null
      ? 'no break-even within the term'
      : `break-even in month ${r.breakEvenMonth}`) +
    '.'
  );
}
