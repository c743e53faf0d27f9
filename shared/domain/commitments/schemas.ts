import * as v from 'valibot';
import { DatePresetSchema } from '../../model/enum-schemas';
import { COMMITMENT_DIMENSIONS } from '../../warehouse/sql/commitments';
import { ConversionOut } from '../queries/schemas';
import { PAYMENT_OPTIONS, SIMULATED_PROVIDERS, TERMS } from './simulation';

const Day = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'));

/** The period, as the explorer takes it: a date preset, or start and end dates (both included). */
const PeriodEntries = {
  datePreset: v.optional(DatePresetSchema),
  startDate: v.optional(Day),
  endDate: v.optional(Day),
};

export const InventoryQuery = v.object(PeriodEntries);

export const SummaryQuery = v.object({
  ...PeriodEntries,
  groupBy: v.optional(v.picklist(COMMITMENT_DIMENSIONS)),
  granularity: v.optional(v.picklist(['DAY', 'WEEK', 'MONTH'])),
});

export const ExpiringQuery = v.object({
  withinDays: v.optional(v.picklist(['30', '60', '90']), '30'),
});

export const SimulateBody = v.strictObject({
  provider: v.picklist(SIMULATED_PROVIDERS),
  lookbackDays: v.picklist([7, 30, 60]),
  term: v.optional(v.picklist(TERMS), '1yr'),
  paymentOption: v.optional(v.picklist(PAYMENT_OPTIONS), 'No Upfront'),
  levels: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200)), 50),
  discountRate: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(0.99))),
});

// Answers, for the OpenAPI document only.
const num = v.number();
const nnum = v.nullable(v.number());
const nstr = v.nullable(v.string());
const PeriodOut = v.object({ startDate: v.string(), endDate: v.string() });
const Conversion = v.nullable(ConversionOut);
const Terms = {
  id: v.string(),
  name: nstr,
  provider: nstr,
  type: nstr,
  category: nstr,
  term: nstr,
  purchaseOption: nstr,
  start: nstr,
  end: nstr,
  hourlyCommitment: nnum,
  region: nstr,
  instanceFamily: nstr,
};

export const InventorySchema = v.object({
  period: PeriodOut,
  currency: v.string(),
  conversion: Conversion,
  dataThrough: nstr,
  items: v.array(
    v.object({
      ...Terms,
      commitmentCost: num,
      usedCost: num,
      unusedCost: num,
      onDemandCost: num,
      utilization: nnum,
      savings: num,
      effectiveSavingsRate: nnum,
    }),
  ),
});

const SummaryFigures = {
  commitmentCost: num,
  usedCost: num,
  unusedCost: num,
  coveredOnDemandCost: num,
  eligibleOnDemandCost: num,
  utilization: nnum,
  coverage: nnum,
  savings: num,
  effectiveSavingsRate: nnum,
};

export const SummarySchema = v.object({
  period: PeriodOut,
  granularity: v.string(),
  groupBy: nstr,
  currency: v.string(),
  conversion: Conversion,
  dataThrough: nstr,
  rows: v.array(v.object({ date: v.string(), group: nstr, ...SummaryFigures })),
  total: v.object(SummaryFigures),
});

export const ExpiringSchema = v.object({
  today: v.string(),
  withinDays: num,
  items: v.array(v.object({ ...Terms, daysLeft: num, lastChargeDay: v.string() })),
});

const Level = v.object({
  hourlyCommitment: num,
  utilization: num,
  coverage: num,
  netSavings: num,
  monthlyNetSavings: num,
  breakEvenMonth: nnum,
});

export const SimulationSchema = v.object({
  provider: v.string(),
  lookback: v.object({ startDate: v.string(), endDate: v.string(), hours: num }),
  term: v.string(),
  paymentOption: v.string(),
  currency: v.string(),
  conversion: Conversion,
  rate: v.object({ discount: num, source: v.string(), planCost: num, onDemandCost: num }),
  eligibleOnDemandCost: num,
  hoursPerMonth: num,
  curve: v.array(Level),
  recommended: v.nullable(Level),
});
