import type { DuckDBConnection } from '@duckdb/node-api';
import type { ConformanceReport } from '../../model/uploads';
import { CONTRACT_COMMITMENT_COLUMNS, type ContractCommitmentColumn } from '../focus-columns';
import type { StagedCommitments } from '../ingest/contract-commitments';
import { checkConformance } from './check';
import {
  allowed,
  currencyFormat,
  isNull,
  may,
  nationalCurrency,
  noBlankString,
  notNull,
  notNullable,
  nullWhenNull,
  oneValuePer,
  presence,
  type Requirement,
  setWhenSet,
  validDecimal,
} from './rules';
import { unitFormat } from './units';

/**
 * The requirements of FOCUS 1.3's Contract Commitment dataset (an upload of its own,
 * ingest/contract-commitments.ts), written from the FOCUS 1.3 specification text (© FinOps
 * Foundation, CC BY 4.0, https://focus.finops.org). Ids: `<Column>-C-<n>-<M|O|C>`, numbered in
 * the order of the requirements of the column's section (its first: "MUST be present").
 */
const spend = `"ContractCommitmentCategory" = 'Spend'`;
const usage = `"ContractCommitmentCategory" = 'Usage'`;

function endAfterStart(
  id: string,
  end: ContractCommitmentColumn,
  start: ContractCommitmentColumn,
): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${end} MUST be the exclusive end bound of the period that ${start} starts (after it).`,
    columns: [end, start],
    violates: () => `"${end}" <= "${start}"`,
  };
}

function notNullWhen(id: string, column: ContractCommitmentColumn, category: 'Spend' | 'Usage'): Requirement {
  return {
    id,
    keyword: 'MUST NOT',
    statement: `${column} MUST NOT be null when ContractCommitmentCategory is "${category}".`,
    columns: [column, 'ContractCommitmentCategory'],
    violates: () => `${category === 'Spend' ? spend : usage} AND ${isNull(column)}`,
  };
}

export const CONTRACT_COMMITMENT_REQUIREMENTS: readonly Requirement[] = [
  ...CONTRACT_COMMITMENT_COLUMNS.map((c) => presence(`${c}-C-001-M`, c)),
  noBlankString('BillingCurrency-C-003-M', 'BillingCurrency'),
  currencyFormat('BillingCurrency-C-004-M', 'BillingCurrency'),
  notNullWhen('BillingCurrency-C-005-C', 'BillingCurrency', 'Spend'),
  nationalCurrency('BillingCurrency-C-007-M', 'BillingCurrency'),
  notNullable('ContractCommitmentCategory-C-003-M', 'ContractCommitmentCategory'),
  allowed('ContractCommitmentCategory-C-004-M', 'ContractCommitmentCategory', ['Spend', 'Usage']),
  notNullWhen('ContractCommitmentCost-C-004-C', 'ContractCommitmentCost', 'Spend'),
  may(
    'ContractCommitmentCost-C-005-O',
    'ContractCommitmentCost MAY be null when ContractCommitmentCategory is "Usage".',
    ['ContractCommitmentCost', 'ContractCommitmentCategory'],
    `${usage} AND ${isNull('ContractCommitmentCost')}`,
  ),
  validDecimal('ContractCommitmentCost-C-006-M', 'ContractCommitmentCost'),
  {
    id: 'ContractCommitmentDescription-C-004-O',
    keyword: 'SHOULD NOT',
    statement: 'ContractCommitmentDescription SHOULD NOT be null.',
    columns: ['ContractCommitmentDescription'],
    violates: () => isNull('ContractCommitmentDescription'),
  },
  noBlankString('ContractCommitmentId-C-003-M', 'ContractCommitmentId'),
  notNullable('ContractCommitmentId-C-004-M', 'ContractCommitmentId'),
  {
    id: 'ContractCommitmentId-C-007-M',
    keyword: 'MUST',
    statement: 'ContractCommitmentId MUST have one and only one parent ContractId.',
    columns: ['ContractCommitmentId', 'ContractId'],
    violates: oneValuePer('ContractCommitmentId', 'ContractId'),
  },
  may(
    'ContractCommitmentId-C-008-O',
    'ContractCommitmentId MAY be equal to ContractId.',
    ['ContractCommitmentId', 'ContractId'],
    `"ContractCommitmentId" = "ContractId"`,
  ),
  {
    id: 'ContractCommitmentId-C-009-M',
    keyword: 'MUST',
    statement: 'ContractCommitmentId MUST be unique across the Contract Commitment dataset.',
    columns: ['ContractCommitmentId'],
    violates: (table) =>
      `"ContractCommitmentId" IN (SELECT "ContractCommitmentId" FROM ${table} WHERE ${notNull('ContractCommitmentId')} GROUP BY 1 HAVING count(*) > 1)`,
  },
  notNullable('ContractCommitmentPeriodEnd-C-004-M', 'ContractCommitmentPeriodEnd'),
  endAfterStart(
    'ContractCommitmentPeriodEnd-C-005-M',
    'ContractCommitmentPeriodEnd',
    'ContractCommitmentPeriodStart',
  ),
  notNullable('ContractCommitmentPeriodStart-C-004-M', 'ContractCommitmentPeriodStart'),
  notNullWhen('ContractCommitmentQuantity-C-004-C', 'ContractCommitmentQuantity', 'Usage'),
  may(
    'ContractCommitmentQuantity-C-005-O',
    'ContractCommitmentQuantity MAY be null when ContractCommitmentCategory is "Spend".',
    ['ContractCommitmentQuantity', 'ContractCommitmentCategory'],
    `${spend} AND ${isNull('ContractCommitmentQuantity')}`,
  ),
  validDecimal('ContractCommitmentQuantity-C-006-M', 'ContractCommitmentQuantity'),
  noBlankString('ContractCommitmentType-C-003-M', 'ContractCommitmentType'),
  notNullable('ContractCommitmentType-C-004-M', 'ContractCommitmentType'),
  ...unitFormat('ContractCommitmentUnit'),
  nullWhenNull('ContractCommitmentUnit-C-005-C', 'ContractCommitmentUnit', 'ContractCommitmentQuantity'),
  setWhenSet('ContractCommitmentUnit-C-006-C', 'ContractCommitmentUnit', 'ContractCommitmentQuantity'),
  noBlankString('ContractId-C-003-M', 'ContractId'),
  notNullable('ContractId-C-004-M', 'ContractId'),
  notNullable('ContractPeriodEnd-C-004-M', 'ContractPeriodEnd'),
  endAfterStart('ContractPeriodEnd-C-005-M', 'ContractPeriodEnd', 'ContractPeriodStart'),
  notNullable('ContractPeriodStart-C-004-M', 'ContractPeriodStart'),
];

/** The conformance report of a staged Contract Commitment upload (undefined when the check is off). */
export async function commitmentsConformance(
  conn: DuckDBConnection,
  staged: StagedCommitments,
  check: boolean | undefined,
): Promise<ConformanceReport | undefined> {
  if (check === false) return undefined;
  return checkConformance(conn, {
    table: staged.table,
    present: staged.present,
    rows: staged.rows,
    headerLines: staged.headerLines,
    focusVersion: '1.3',
    requirements: CONTRACT_COMMITMENT_REQUIREMENTS,
  });
}
