import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  csvLine,
  FOCUS_HEADER,
  type FocusRow,
  generateFocusRows,
} from '../../infra/local/demo-data/generator';
import { type CsvRow, readCsv } from '../integration/warehouse/support';
import { ingestOk } from './cli';

const DAY_MS = 86_400_000;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * A FOCUS export with one row a day per service, its cost given by `value(day)`, for the days
 * `from` … `to` (inclusive, `YYYY-MM-DD`): series whose figures the tests know from the formula that
 * generated them (the forecast's known-answer tests). Written to a fresh temporary folder; returns
 * the file's path.
 */
export function writeDailyFocusCsv(options: {
  seed: number;
  accountPrefix: string;
  from: string;
  to: string;
  /** `quantity`: the day's ConsumedQuantity in `unit` (else the template's). */
  series: readonly {
    service: string;
    value: (day: string) => number;
    quantity?: { unit: string; value: (day: string) => number };
  }[];
}): string {
  const template = generateFocusRows({
    seed: options.seed,
    months: [options.to.slice(0, 7)],
    resourcesPerProvider: 1,
    providers: ['AWS'],
    accountPrefix: options.accountPrefix,
  }).next().value as FocusRow;
  const lines: string[] = [];
  const last = Date.parse(`${options.to}T00:00:00Z`);
  for (let t = Date.parse(`${options.from}T00:00:00Z`); t <= last; t += DAY_MS) {
    const d = ymd(t);
    const month = d.slice(0, 7);
    const next = ymd(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).slice(0, 7);
    for (const { service, value, quantity } of options.series) {
      const cost = value(d);
      lines.push(
        csvLine({
          ...template,
          ServiceName: service,
          ResourceId: `res-${service}`,
          BilledCost: cost,
          EffectiveCost: cost,
          ListCost: cost,
          ContractedCost: cost,
          x_UnblendedCost: cost,
          ...(quantity ? { ConsumedQuantity: quantity.value(d), ConsumedUnit: quantity.unit } : {}),
          CommitmentDiscountCategory: null,
          CommitmentDiscountId: null,
          CommitmentDiscountName: null,
          CommitmentDiscountStatus: null,
          CommitmentDiscountType: null,
          BillingPeriodStart: `${month}-01 00:00:00`,
          BillingPeriodEnd: `${next}-01 00:00:00`,
          ChargePeriodStart: `${d} 00:00:00`,
          ChargePeriodEnd: `${ymd(t + DAY_MS)} 00:00:00`,
        }),
      );
    }
  }
  return writeFocusCsv(lines, 'focus_daily.csv');
}

/**
 * A FOCUS export of `rows` (FocusRow objects or CSV lines), its header first, written to a fresh
 * temporary folder as `name`; returns the file's path.
 */
export function writeFocusCsv(rows: Iterable<FocusRow | string>, name = 'focus.csv'): string {
  const lines = [FOCUS_HEADER.map((h) => `"${h}"`).join(',')];
  for (const r of rows) lines.push(typeof r === 'string' ? r : csvLine(r));
  const file = join(mkdtempSync(join(tmpdir(), 'focus-')), name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/**
 * A generated AWS-only FOCUS export of `months` (`YYYY-MM`) through the day before `asOf` (UTC; now
 * unless given), written by writeFocusCsv as `name`; returns the file's path.
 */
export function writeAwsFocusCsv(
  options: { seed: number; months: string[]; resourcesPerProvider: number; accountPrefix: string },
  name: string,
  asOf: Date = new Date(),
): string {
  const today = Date.parse(`${ymd(asOf.getTime())}T00:00:00Z`);
  return writeFocusCsv(
    generateFocusRows({ ...options, providers: ['AWS'], until: ymd(today - DAY_MS) }),
    name,
  );
}

/**
 * A generated AWS-only FOCUS export (writeAwsFocusCsv with `options`, `name` and `asOf`) uploaded
 * for `orgId` with `npm run ingest`; answers the file's rows as the tests read them.
 */
export function ingestAwsFocus(
  orgId: string,
  options: Parameters<typeof writeAwsFocusCsv>[0],
  name: string,
  asOf?: Date,
): CsvRow[] {
  const file = writeAwsFocusCsv(options, name, asOf);
  const rows = readCsv(file);
  ingestOk(orgId, file);
  return rows;
}
