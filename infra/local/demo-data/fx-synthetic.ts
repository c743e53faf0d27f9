import { addDays } from '../../../shared/domain/fx/rates';
import { seededRandom } from './random';

/**
 * A generated rate file in the ECB's XML format, for the local demo seed and the benchmarks: every
 * weekday of `[from, to]` with rates that wander near their usual levels. The sender says what it
 * is, and that name is the `source` every converted answer states.
 */
export const SYNTHETIC_SOURCE = 'Synthetic demo rates (generated, not ECB figures)';

const LEVELS: Record<string, number> = {
  USD: 1.08,
  GBP: 0.85,
  CNY: 7.8,
  KRW: 1450,
  CAD: 1.48,
  JPY: 160,
  CHF: 0.95,
};

export function syntheticRateXml(from: string, to: string, seed = 17): string {
  const rand = seededRandom(seed);
  const drift = Object.fromEntries(Object.keys(LEVELS).map((c) => [c, 1]));
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    const cubes = Object.entries(LEVELS).map(([c, level]) => {
      drift[c] = Math.min(1.1, Math.max(0.9, drift[c]! * (1 + (rand() - 0.5) * 0.01)));
      const rate = level * drift[c]!;
      return `\t\t\t<Cube currency='${c}' rate='${rate.toPrecision(5)}'/>`;
    });
    days.push(`\t\t<Cube time='${day}'>\n${cubes.join('\n')}\n\t\t</Cube>`);
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">',
    '\t<gesmes:subject>Reference rates (synthetic)</gesmes:subject>',
    `\t<gesmes:Sender>\n\t\t<gesmes:name>${SYNTHETIC_SOURCE}</gesmes:name>\n\t</gesmes:Sender>`,
    '\t<Cube>',
    ...days.reverse(),
    '\t</Cube>',
    '</gesmes:Envelope>',
    '',
  ].join('\n');
}
