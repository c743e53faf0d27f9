import type { ExplorerResult, QueryOut } from '../../shared/domain/queries/model';

/** A cost query of an explorer request, as a widget stores it; `extra` adds or overrides fields. */
export function costQuery(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'cost', name, colorIndex: 0, chartType: 'LINE', ...extra };
}

/** The answer's query named `name` (throws when the engine answered none). */
export function queryNamed(res: Pick<ExplorerResult, 'queries'>, name: string): QueryOut {
  const out = res.queries.find((x) => x.name === name);
  if (!out) throw new Error(`no query ${name}`);
  return out;
}

/** The `conversion` block of an answer in a reporting currency (explorer, report, budget status). */
export interface Conversion {
  from: string[];
  to: string;
  source: string | null;
  rates: { from: string; to: string } | null;
}

/** A dashboard widget of an explorer request (`advancedExplorer`), at the top left, 6 × 4, unless `at` says. */
export function explorerWidget(
  key: string,
  title: string,
  request: Record<string, unknown>,
  at: { x?: number; y?: number; w?: number; h?: number } = {},
) {
  return {
    key,
    x: at.x ?? 0,
    y: at.y ?? 0,
    w: at.w ?? 6,
    h: at.h ?? 4,
    title,
    source: { type: 'advancedExplorer' as const, request },
  };
}

/** Money as the console's tables show it: two decimals, USD unless told. */
export const consoleMoney = (x: number, currency = 'USD') =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(x);
