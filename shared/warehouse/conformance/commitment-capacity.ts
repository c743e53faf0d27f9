import {
  allowed,
  isNull,
  notCorrection,
  notNull,
  nullWhenNull,
  oneValuePer,
  type Requirement,
  setWhenSet,
  usageOrPurchase,
} from './rules';
import {
  CAPACITY_RESERVATION_STATUSES,
  COMMITMENT_DISCOUNT_CATEGORIES,
  COMMITMENT_DISCOUNT_STATUSES,
} from './values';

/** FOCUS 1.2 requirements on the commitment discount and capacity reservation columns (optional features: not applicable when no row uses them). */
export const COMMITMENT_CAPACITY_REQUIREMENTS: readonly Requirement[] = [
  allowed('CommitmentDiscountCategory-C-005-M', 'CommitmentDiscountCategory', COMMITMENT_DISCOUNT_CATEGORIES),
  allowed('CommitmentDiscountStatus-C-005-M', 'CommitmentDiscountStatus', COMMITMENT_DISCOUNT_STATUSES),
  allowed('CapacityReservationStatus-C-006-M', 'CapacityReservationStatus', CAPACITY_RESERVATION_STATUSES),
  nullWhenNull('CommitmentDiscountName-C-004-C', 'CommitmentDiscountName', 'CommitmentDiscountId'),
  nullWhenNull('CommitmentDiscountCategory-C-003-C', 'CommitmentDiscountCategory', 'CommitmentDiscountId'),
  setWhenSet(
    'CommitmentDiscountCategory-C-004-C',
    'CommitmentDiscountCategory',
    'CommitmentDiscountId',
    'MUST NOT',
    'commitment',
  ),
  nullWhenNull('CommitmentDiscountType-C-004-C', 'CommitmentDiscountType', 'CommitmentDiscountId'),
  setWhenSet(
    'CommitmentDiscountType-C-005-C',
    'CommitmentDiscountType',
    'CommitmentDiscountId',
    'MUST NOT',
    'commitment',
  ),
  nullWhenNull('CommitmentDiscountStatus-C-003-C', 'CommitmentDiscountStatus', 'CommitmentDiscountId'),
  {
    id: 'CommitmentDiscountStatus-C-004-C',
    keyword: 'MUST NOT',
    statement:
      'CommitmentDiscountStatus MUST NOT be null when CommitmentDiscountId is not null and ChargeCategory is "Usage".',
    columns: ['CommitmentDiscountStatus', 'CommitmentDiscountId', 'ChargeCategory'],
    feature: 'commitment',
    violates: () =>
      `${notNull('CommitmentDiscountId')} AND "ChargeCategory" = 'Usage' AND ${isNull('CommitmentDiscountStatus')}`,
  },
  nullWhenNull('CommitmentDiscountUnit-C-005-C', 'CommitmentDiscountUnit', 'CommitmentDiscountQuantity'),
  setWhenSet('CommitmentDiscountUnit-C-006-C', 'CommitmentDiscountUnit', 'CommitmentDiscountQuantity'),
  {
    id: 'CommitmentDiscountQuantity-C-005-C',
    keyword: 'MUST NOT',
    statement:
      'CommitmentDiscountQuantity MUST NOT be null when ChargeCategory is "Usage" or "Purchase", CommitmentDiscountId is not null and ChargeClass is not "Correction".',
    columns: ['CommitmentDiscountQuantity', 'CommitmentDiscountId', 'ChargeCategory', 'ChargeClass'],
    feature: 'commitment',
    violates: () =>
      `${usageOrPurchase} AND ${notNull('CommitmentDiscountId')} AND ${notCorrection} AND ${isNull('CommitmentDiscountQuantity')}`,
  },
  {
    id: 'CommitmentDiscountQuantity-C-007-C',
    keyword: 'MUST',
    statement:
      'CommitmentDiscountQuantity MUST be null in all other cases (not a usage or purchase of a commitment discount).',
    columns: ['CommitmentDiscountQuantity', 'CommitmentDiscountId', 'ChargeCategory'],
    violates: () =>
      `${notNull('CommitmentDiscountQuantity')} AND (${isNull('CommitmentDiscountId')} OR "ChargeCategory" IS NULL OR "ChargeCategory" NOT IN ('Usage', 'Purchase'))`,
  },
  nullWhenNull('CapacityReservationStatus-C-003-C', 'CapacityReservationStatus', 'CapacityReservationId'),
  {
    id: 'CapacityReservationId-C-005-C',
    keyword: 'MUST NOT',
    statement:
      'CapacityReservationId MUST NOT be null when the charge is the unused portion of a capacity reservation (CapacityReservationStatus "Unused").',
    columns: ['CapacityReservationId', 'CapacityReservationStatus'],
    feature: 'capacity',
    violates: () => `"CapacityReservationStatus" = 'Unused' AND ${isNull('CapacityReservationId')}`,
  },
  {
    id: 'CapacityReservationStatus-C-004-C',
    keyword: 'MUST NOT',
    statement:
      'CapacityReservationStatus MUST NOT be null when CapacityReservationId is not null and ChargeCategory is "Usage".',
    columns: ['CapacityReservationStatus', 'CapacityReservationId', 'ChargeCategory'],
    feature: 'capacity',
    violates: () =>
      `${notNull('CapacityReservationId')} AND "ChargeCategory" = 'Usage' AND ${isNull('CapacityReservationStatus')}`,
  },
  {
    id: 'DiscountHandling-A-018-C',
    keyword: 'MUST',
    statement:
      'Rows of the unused portion of a commitment MUST have CommitmentDiscountStatus "Unused" and ChargeCategory "Usage".',
    columns: ['CommitmentDiscountStatus', 'ChargeCategory'],
    feature: 'commitment',
    violates: () => `"CommitmentDiscountStatus" = 'Unused' AND "ChargeCategory" IS DISTINCT FROM 'Usage'`,
  },
  {
    id: 'PricingCategory-C-009-C',
    keyword: 'MUST',
    statement:
      'PricingCategory MUST be "Committed" when the charge is subject to an existing commitment discount and is not the purchase of the commitment discount.',
    columns: ['PricingCategory', 'CommitmentDiscountId', 'CommitmentDiscountStatus', 'ChargeCategory'],
    feature: 'commitment',
    violates: () =>
      `${notNull('CommitmentDiscountId')} AND "CommitmentDiscountStatus" = 'Used' AND "ChargeCategory" = 'Usage' AND "PricingCategory" IS DISTINCT FROM 'Committed'`,
  },
  {
    id: 'CommitmentDiscountUnit-C-008-M',
    keyword: 'MUST',
    statement: 'CommitmentDiscountUnit MUST remain consistent over time for a given CommitmentDiscountId.',
    columns: ['CommitmentDiscountUnit', 'CommitmentDiscountId'],
    feature: 'commitment',
    violates: oneValuePer('CommitmentDiscountId', 'CommitmentDiscountUnit'),
  },

  {
    // The model checks every Purchase row; a purchase "intended to cover future eligible charges"
    // is that of a commitment discount (its cost is amortised into the covered usage).
    id: 'EffectiveCost-C-005-C',
    keyword: 'MUST',
    statement:
      'EffectiveCost MUST be 0 when ChargeCategory is "Purchase" and the purchase is intended to cover future eligible charges (a commitment discount purchase).',
    columns: ['EffectiveCost', 'ChargeCategory', 'CommitmentDiscountId'],
    feature: 'commitment',
    violates: () =>
      `"ChargeCategory" = 'Purchase' AND ${notNull('CommitmentDiscountId')} AND ${notCorrection} AND "EffectiveCost" <> 0`,
  },
];
