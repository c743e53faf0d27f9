import type { FocusColumn } from '../focus-columns';
import { isNull, may, notCorrection, notNull, productOff, type Requirement, usageOrPurchase } from './rules';
import { unitFormat } from './units';

/**
 * The MAY requirements of FOCUS 1.2 a row can show, and the UnitFormat requirements of the unit
 * columns. A MAY requirement is a permission: no row can break it, so it always passes; the report
 * counts the rows that make use of it (`uses`). MAY requirements about documents or time ("MAY be
 * generated prior to an invoice", "MAY be added over time") show in no row and are not listed.
 */

const correction = `"ChargeClass" = 'Correction'`;

/** "`column` MAY be null in all other cases": null on a row none of the column's other rules covers. */
function nullOtherwise(id: string, column: FocusColumn): Requirement {
  return may(
    id,
    `${column} MAY be null in all other cases (not "Tax", not a "Usage" or "Purchase" charge that is not a correction).`,
    [column, 'ChargeCategory', 'ChargeClass'],
    `${isNull(column)} AND "ChargeCategory" IS DISTINCT FROM 'Tax' AND NOT (${usageOrPurchase} AND ${notCorrection})`,
  );
}

/** Discrepancies of `price` × PricingQuantity and `cost` MAY exist on corrections. */
function correctionDiscrepancy(id: string, price: FocusColumn, cost: FocusColumn): Requirement {
  return may(
    id,
    `Discrepancies in ${cost}, ${price}, or PricingQuantity MAY exist when ChargeClass is "Correction".`,
    [price, 'PricingQuantity', cost, 'ChargeClass'],
    `${correction} AND ${productOff(price, 'PricingQuantity', cost)}`,
  );
}

export const PERMISSIONS: readonly Requirement[] = [
  may(
    'CommitmentDiscountName-C-007-C',
    'CommitmentDiscountName MAY be null when a display name cannot be assigned to a commitment discount.',
    ['CommitmentDiscountName', 'CommitmentDiscountId'],
    `${notNull('CommitmentDiscountId')} AND ${isNull('CommitmentDiscountName')}`,
  ),
  may(
    'CommitmentDiscountQuantity-C-006-C',
    'CommitmentDiscountQuantity MAY be null when ChargeClass is "Correction".',
    ['CommitmentDiscountQuantity', 'ChargeClass'],
    `${correction} AND ${isNull('CommitmentDiscountQuantity')}`,
  ),
  may(
    'ConsumedQuantity-C-007-C',
    'ConsumedQuantity MAY be null when ChargeClass is "Correction".',
    ['ConsumedQuantity', 'ChargeClass'],
    `${correction} AND ${isNull('ConsumedQuantity')}`,
  ),
  correctionDiscrepancy('ListCost-C-010-C', 'ListUnitPrice', 'ListCost'),
  correctionDiscrepancy('ContractedCost-C-010-C', 'ContractedUnitPrice', 'ContractedCost'),
  nullOtherwise('ContractedUnitPrice-C-007-O', 'ContractedUnitPrice'),
  nullOtherwise('ListUnitPrice-C-006-O', 'ListUnitPrice'),
  nullOtherwise('PricingCategory-C-005-O', 'PricingCategory'),
  nullOtherwise('PricingQuantity-C-006-O', 'PricingQuantity'),
  nullOtherwise('SkuId-C-006-O', 'SkuId'),
  nullOtherwise('SkuPriceId-C-006-O', 'SkuPriceId'),
  may(
    'RegionId-C-005-C',
    'RegionId MAY be null when a resource or service is not operated in or managed from a distinct region.',
    ['RegionId'],
    isNull('RegionId'),
  ),
  may('SkuId-C-012-O', 'SkuId MAY equal SkuPriceId.', ['SkuId', 'SkuPriceId'], `"SkuId" = "SkuPriceId"`),
  may('SkuPriceId-C-011-O', 'SkuPriceId MAY equal SkuId.', ['SkuPriceId', 'SkuId'], `"SkuPriceId" = "SkuId"`),
  may(
    'SkuPriceDetails-C-005-C',
    'SkuPriceDetails MAY be null when SkuPriceId is not null.',
    ['SkuPriceDetails', 'SkuPriceId'],
    `${notNull('SkuPriceId')} AND ${isNull('SkuPriceDetails')}`,
  ),
  // Tags are stored as a map: a null or empty cell is an empty map.
  may('Tags-C-002-O', 'Tags MAY be null.', ['Tags'], `cardinality("Tags") = 0`),
  ...unitFormat('ConsumedUnit'),
  ...unitFormat('PricingUnit'),
  ...unitFormat('CommitmentDiscountUnit'),
];
