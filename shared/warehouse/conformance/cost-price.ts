import {
  allowed,
  isNull,
  nonNegative,
  notCorrection,
  notNull,
  notNullable,
  nullForTax,
  nullWhenNull,
  presence,
  productMismatch,
  type Requirement,
  setForUsage,
  setWhenSet,
  validDecimal,
} from './rules';
import { PRICING_CATEGORIES } from './values';

/** FOCUS 1.2 requirements on the cost, unit price, pricing quantity, unit, category and currency, and consumed quantity columns. */
export const COST_PRICE_REQUIREMENTS: readonly Requirement[] = [
  presence('CostAndUsage-D-006-M', 'BilledCost'),
  presence('CostAndUsage-D-030-M', 'ContractedCost'),
  presence('CostAndUsage-D-031-M', 'EffectiveCost'),
  presence('CostAndUsage-D-032-M', 'ListCost'),
  presence('CostAndUsage-D-036-M', 'PricingQuantity'),
  presence('CostAndUsage-D-068-M', 'PricingUnit'),
  notNullable('BilledCost-C-003-M', 'BilledCost', true),
  notNullable('ContractedCost-C-003-M', 'ContractedCost'),
  notNullable('EffectiveCost-C-003-M', 'EffectiveCost'),
  notNullable('ListCost-C-003-M', 'ListCost'),
  allowed('PricingCategory-C-007-M', 'PricingCategory', PRICING_CATEGORIES),
  {
    id: 'PricingCurrency-C-003-M',
    keyword: 'MUST',
    statement: 'PricingCurrency MUST conform to CurrencyFormat requirements (an ISO 4217 three-letter code).',
    columns: ['PricingCurrency'],
    violates: () => `NOT regexp_full_match("PricingCurrency", '[A-Z]{3}')`,
  },
  nullForTax('ListUnitPrice-C-004-C', 'ListUnitPrice'),
  nullForTax('ContractedUnitPrice-C-005-C', 'ContractedUnitPrice'),
  nullForTax('PricingQuantity-C-004-C', 'PricingQuantity'),
  nullForTax('PricingCategory-C-003-C', 'PricingCategory'),
  nullForTax('PricingCurrencyListUnitPrice-C-004-C', 'PricingCurrencyListUnitPrice'),
  nullForTax('PricingCurrencyContractedUnitPrice-C-004-C', 'PricingCurrencyContractedUnitPrice'),
  setForUsage('ListUnitPrice-C-005-C', 'ListUnitPrice'),
  setForUsage('ContractedUnitPrice-C-006-C', 'ContractedUnitPrice'),
  setForUsage('PricingQuantity-C-005-C', 'PricingQuantity'),
  setForUsage('PricingCategory-C-004-C', 'PricingCategory'),
  setForUsage('PricingCurrencyListUnitPrice-C-005-C', 'PricingCurrencyListUnitPrice'),
  setForUsage('PricingCurrencyContractedUnitPrice-C-005-C', 'PricingCurrencyContractedUnitPrice'),
  nullWhenNull('PricingUnit-C-005-C', 'PricingUnit', 'PricingQuantity'),
  setWhenSet('PricingUnit-C-006-C', 'PricingUnit', 'PricingQuantity'),
  nullWhenNull('ConsumedUnit-C-005-C', 'ConsumedUnit', 'ConsumedQuantity'),
  setWhenSet('ConsumedUnit-C-006-C', 'ConsumedUnit', 'ConsumedQuantity'),
  {
    id: 'ConsumedQuantity-C-004-C',
    keyword: 'MUST',
    statement:
      'ConsumedQuantity MUST be null when ChargeCategory is not "Usage", or when ChargeCategory is "Usage" and CommitmentDiscountStatus is "Unused".',
    columns: ['ConsumedQuantity', 'ChargeCategory'],
    violates: () =>
      `${notNull('ConsumedQuantity')} AND ("ChargeCategory" IS DISTINCT FROM 'Usage' OR "CommitmentDiscountStatus" = 'Unused')`,
  },
  {
    id: 'ConsumedQuantity-C-006-C',
    keyword: 'MUST NOT',
    statement:
      'ConsumedQuantity MUST NOT be null when ChargeCategory is "Usage", CommitmentDiscountStatus is not "Unused" and ChargeClass is not "Correction".',
    columns: ['ConsumedQuantity', 'ChargeCategory', 'ChargeClass'],
    violates: () =>
      `"ChargeCategory" = 'Usage' AND "CommitmentDiscountStatus" IS DISTINCT FROM 'Unused' AND ${notCorrection} AND ${isNull('ConsumedQuantity')}`,
  },
  nonNegative('ListUnitPrice-C-008-M', 'ListUnitPrice'),
  nonNegative('ContractedUnitPrice-C-009-C', 'ContractedUnitPrice'),
  nonNegative('PricingCurrencyListUnitPrice-C-008-M', 'PricingCurrencyListUnitPrice'),
  nonNegative('PricingCurrencyContractedUnitPrice-C-008-C', 'PricingCurrencyContractedUnitPrice'),
  {
    id: 'ListCost-C-009-C',
    keyword: 'MUST',
    statement:
      'The product of ListUnitPrice and PricingQuantity MUST match the ListCost when ListUnitPrice is not null, PricingQuantity is not null, and ChargeClass is not "Correction".',
    columns: ['ListUnitPrice', 'PricingQuantity', 'ListCost', 'ChargeClass'],
    violates: () => productMismatch('ListUnitPrice', 'PricingQuantity', 'ListCost'),
  },
  {
    id: 'ContractedCost-C-009-C',
    keyword: 'MUST',
    statement:
      'The product of ContractedUnitPrice and PricingQuantity MUST match the ContractedCost when ContractedUnitPrice is not null, PricingQuantity is not null, and ChargeClass is not "Correction".',
    columns: ['ContractedUnitPrice', 'PricingQuantity', 'ContractedCost', 'ChargeClass'],
    violates: () => productMismatch('ContractedUnitPrice', 'PricingQuantity', 'ContractedCost'),
  },

  // Valid decimals (NaN and Infinity read as numbers), the unit-price side of the cost products,
  // and the pricing currency.
  validDecimal('BilledCost-C-004-M', 'BilledCost'),
  validDecimal('ContractedCost-C-004-M', 'ContractedCost'),
  validDecimal('EffectiveCost-C-004-M', 'EffectiveCost'),
  validDecimal('ListCost-C-004-M', 'ListCost'),
  validDecimal('PricingQuantity-C-008-M', 'PricingQuantity'),
  validDecimal('PricingCurrencyEffectiveCost-C-004-M', 'PricingCurrencyEffectiveCost'),
  {
    id: 'ListUnitPrice-C-010-C',
    keyword: 'MUST',
    statement:
      'The product of ListUnitPrice and PricingQuantity MUST match the ListCost when PricingQuantity is not null and ChargeClass is not "Correction".',
    columns: ['ListUnitPrice', 'PricingQuantity', 'ListCost', 'ChargeClass'],
    violates: () => productMismatch('ListUnitPrice', 'PricingQuantity', 'ListCost'),
  },
  {
    id: 'ContractedUnitPrice-C-011-C',
    keyword: 'MUST',
    statement:
      'The product of ContractedUnitPrice and PricingQuantity MUST match the ContractedCost when PricingQuantity is not null and ChargeClass is not "Correction".',
    columns: ['ContractedUnitPrice', 'PricingQuantity', 'ContractedCost', 'ChargeClass'],
    violates: () => productMismatch('ContractedUnitPrice', 'PricingQuantity', 'ContractedCost'),
  },
  notNullable('PricingCurrency-C-004-M', 'PricingCurrency'),
  notNullable('PricingCurrencyEffectiveCost-C-003-M', 'PricingCurrencyEffectiveCost'),
];
