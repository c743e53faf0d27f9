import {
  allowed,
  list,
  noBlankString,
  notNull,
  notNullable,
  nullForTax,
  nullWhenNull,
  oneValuePer,
  presence,
  type Requirement,
  recommended,
  setForUsage,
  setWhenSet,
} from './rules';
import { ALL_SUBCATEGORIES, SERVICE_CATEGORIES, subcategoryPairs } from './values';

/** FOCUS 1.2 requirements on the resource, service and SKU columns. */
export const RESOURCE_SERVICE_SKU_REQUIREMENTS: readonly Requirement[] = [
  presence('CostAndUsage-D-040-M', 'ServiceCategory'),
  presence('CostAndUsage-D-041-M', 'ServiceName'),
  notNullable('ServiceCategory-C-002-M', 'ServiceCategory'),
  notNullable('ServiceName-C-003-M', 'ServiceName'),
  notNullable('ServiceSubcategory-C-002-M', 'ServiceSubcategory'),
  allowed('ServiceCategory-C-003-M', 'ServiceCategory', SERVICE_CATEGORIES),
  {
    id: 'ServiceSubcategory-C-003-M',
    keyword: 'MUST',
    statement: 'ServiceSubcategory MUST be one of the allowed values.',
    columns: ['ServiceSubcategory'],
    violates: () =>
      `${notNull('ServiceSubcategory')} AND "ServiceSubcategory" NOT IN (${list(ALL_SUBCATEGORIES)})`,
  },
  {
    id: 'ServiceSubcategory-C-004-M',
    keyword: 'MUST',
    statement:
      'ServiceSubcategory MUST have one and only one parent ServiceCategory as specified in the allowed values.',
    columns: ['ServiceSubcategory', 'ServiceCategory'],
    violates: () =>
      `"ServiceSubcategory" IN (${list(ALL_SUBCATEGORIES)}) AND ("ServiceCategory", "ServiceSubcategory") NOT IN (VALUES ${subcategoryPairs.join(', ')})`,
  },
  {
    id: 'SkuPriceDetails-C-001-M',
    keyword: 'MUST',
    statement: 'SkuPriceDetails MUST conform to KeyValueFormat requirements (a serialized JSON object).',
    columns: ['SkuPriceDetails'],
    violates: () =>
      `${notNull('SkuPriceDetails')} AND (NOT coalesce(json_valid("SkuPriceDetails"), false) OR json_type("SkuPriceDetails"::JSON) <> 'OBJECT')`,
  },
  nullForTax('SkuId-C-004-C', 'SkuId'),
  nullForTax('SkuPriceId-C-004-C', 'SkuPriceId'),
  setForUsage('SkuId-C-005-C', 'SkuId'),
  setForUsage('SkuPriceId-C-005-C', 'SkuPriceId'),
  nullWhenNull('ResourceType-C-004-C', 'ResourceType', 'ResourceId'),
  setWhenSet('ResourceType-C-005-C', 'ResourceType', 'ResourceId'),
  {
    ...nullWhenNull('ResourceName-C-004-C', 'ResourceName', 'ResourceId'),
    statement: 'ResourceName MUST be null when ResourceId is null (checked: the display-name half is not).',
  },
  nullWhenNull('SkuMeter-C-004-C', 'SkuMeter', 'SkuId'),
  setWhenSet('SkuMeter-C-005-C', 'SkuMeter', 'SkuId', 'SHOULD NOT'),
  nullWhenNull('SkuPriceDetails-C-004-C', 'SkuPriceDetails', 'SkuPriceId'),
  {
    id: 'SkuPriceId-C-008-M',
    keyword: 'MUST',
    statement: 'SkuPriceId MUST have one and only one parent SkuId.',
    columns: ['SkuPriceId', 'SkuId'],
    violates: oneValuePer('SkuPriceId', 'SkuId'),
  },
  {
    id: 'ServiceName-C-005-C',
    keyword: 'MUST',
    statement:
      'ServiceName MUST have one and only one ServiceCategory that best aligns with its primary purpose.',
    columns: ['ServiceName', 'ServiceCategory'],
    violates: oneValuePer('ServiceName', 'ServiceCategory'),
  },
  {
    id: 'ServiceName-C-008-C',
    keyword: 'SHOULD',
    statement:
      'ServiceName SHOULD have one and only one ServiceSubcategory that best aligns with its primary purpose.',
    columns: ['ServiceName', 'ServiceSubcategory'],
    violates: oneValuePer('ServiceName', 'ServiceSubcategory'),
  },
  {
    id: 'SkuMeter-C-006-O',
    keyword: 'SHOULD',
    statement: 'SkuMeter SHOULD remain consistent over time for a given SkuId.',
    columns: ['SkuMeter', 'SkuId'],
    violates: oneValuePer('SkuId', 'SkuMeter'),
  },

  nullWhenNull('RegionName-C-004-C', 'RegionName', 'RegionId'),
  setWhenSet('RegionName-C-005-C', 'RegionName', 'RegionId'),
  noBlankString('ServiceName-C-002-M', 'ServiceName'),
  recommended('CostAndUsage-D-042-O', 'ServiceSubcategory'),
];
