import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEED_RATES_FILE } from '../../infra/local/warehouse-hook';
import { session } from './session';

/** USD per EUR by publication day, read by hand from the seed's synthetic rate file. */
export function seedUsdPerEur(): Map<string, number> {
  const out = new Map<string, number>();
  const xml = readFileSync(join(session().stateDir, SEED_RATES_FILE), 'utf8');
  for (const m of xml.matchAll(/<Cube time='([\d-]+)'>([\s\S]*?)<\/Cube>/g))
    out.set(m[1]!, Number(/currency='USD' rate='([\d.]+)'/.exec(m[2]!)![1]));
  return out;
}

/** The rate a charge day uses (docs/currency.md): the last one published on or before it. */
export function rateOn(rates: ReadonlyMap<string, number>, day: string): number {
  const published = [...rates.keys()].filter((p) => p <= day).sort();
  const rate = rates.get(published.at(-1) ?? '');
  if (rate === undefined) throw new Error(`no rate on or before ${day}`);
  return rate;
}
