import type { FocusColumn } from '../focus-columns';
import { quoteLiteral } from '../sql/quote';
import {
  isNull,
  may,
  noBlankString,
  notNull,
  notNullable,
  nullWhenNull,
  presence,
  q,
  type Requirement,
  setWhenSet,
} from './rules';
import { UNIT_RULES } from './units';

/**
 * The requirements FOCUS 1.3 added to the Cost and Usage dataset, checked on 1.3 files only:
 * ServiceProviderName and HostProviderName (which replace ProviderName and PublisherName), the
 * columns of data-generator-calculated split cost allocation, and ContractApplied. Written from
 * the FOCUS 1.3 specification text (© FinOps Foundation, CC BY 4.0, https://focus.finops.org).
 * Ids follow the requirements model's scheme, `<Column>-C-<n>-<M|O|C>`, numbered in the order of
 * the requirements of the column's section in the 1.3 text (docs/focus-conformance.md).
 */

/** The cell read as JSON (null when it is not JSON). */
const json = (c: FocusColumn) => `TRY_CAST(${q(c)} AS JSON)`;
const isObject = (c: FocusColumn) => `json_type(${json(c)}) = 'OBJECT'`;
/** The items of the cell's top-level "Elements" array. */
const elements = (c: FocusColumn) => `CAST(json_extract(${json(c)}, '$.Elements[*]') AS JSON[])`;
/** An item of the cell's "Elements" for which `pred(e)` holds (the cell being a JSON object). */
const anyElement = (c: FocusColumn, pred: (e: string) => string) =>
  `${isObject(c)} AND list_bool_or(list_transform(${elements(c)}, e -> ${pred('e')}))`;
const isNumber = (e: string, key: string) => `json_type(${e}, '$.${key}') IN ('BIGINT', 'UBIGINT', 'DOUBLE')`;
/** A JSON object one of whose values is an object or an array (KeyValueFormat allows no nesting). */
const anyNested = (o: string) =>
  `list_bool_or(list_transform(map_values(CAST(${o} AS MAP(VARCHAR, JSON))), v -> json_type(v) IN ('OBJECT', 'ARRAY')))`;
/** ContractApplied's ids: the 1.3 text spells the keys `ContractID`/`ContractId` and `ContractCommitmentID`. */
const contractId = (e: string) => `coalesce(${e}->>'ContractID', ${e}->>'ContractId')`;
const commitmentId = (e: string) => `coalesce(${e}->>'ContractCommitmentID', ${e}->>'ContractCommitmentId')`;

function jsonObject(id: string, column: FocusColumn, format: string): Requirement {
  return {
    id,
    keyword: 'MUST',
    statement: `${column} MUST conform to ${format} requirements (a JSON object).`,
    columns: [column],
    violates: () => `${notNull(column)} AND json_type(${json(column)}) IS DISTINCT FROM 'OBJECT'`,
  };
}

const ALLOCATION_KEYS = ['AllocatedRatio', 'UsageUnit', 'UsageQuantity'];

const PROVIDERS: Requirement[] = [
  presence('ServiceProviderName-C-001-M', 'ServiceProviderName'),
  noBlankString('ServiceProviderName-C-003-M', 'ServiceProviderName'),
  notNullable('ServiceProviderName-C-004-M', 'ServiceProviderName'),
  presence('HostProviderName-C-001-M', 'HostProviderName'),
  noBlankString('HostProviderName-C-003-M', 'HostProviderName'),
  may(
    'HostProviderName-C-005-O',
    'HostProviderName MAY be null when the entity providing the underlying infrastructure cannot be uniquely determined (e.g., ChargeCategory "Tax" or "Adjustment").',
    ['HostProviderName', 'ChargeCategory'],
    `${isNull('HostProviderName')} AND "ChargeCategory" IN ('Tax', 'Adjustment')`,
  ),
  {
    // "MUST NOT be null in all other cases": the cases a row shows are usage of a deployed resource.
    id: 'HostProviderName-C-006-C',
    keyword: 'MUST NOT',
    statement:
      'HostProviderName MUST NOT be null in all other cases (checked: a Usage charge of a resource, ResourceId not null).',
    columns: ['HostProviderName', 'ChargeCategory', 'ResourceId'],
    violates: () =>
      `"ChargeCategory" = 'Usage' AND ${notNull('ResourceId')} AND ${isNull('HostProviderName')}`,
  },
];

const ALLOCATION: Requirement[] = [
  noBlankString('AllocatedMethodId-C-003-M', 'AllocatedMethodId'),
  jsonObject('AllocatedMethodDetails-C-004-M', 'AllocatedMethodDetails', 'JsonObjectFormat'),
  nullWhenNull('AllocatedMethodDetails-C-005-C', 'AllocatedMethodDetails', 'AllocatedMethodId'),
  setWhenSet('AllocatedMethodDetails-C-006-C', 'AllocatedMethodDetails', 'AllocatedMethodId', 'SHOULD NOT'),
  {
    id: 'AllocatedMethodDetails-C-007-M',
    keyword: 'MUST',
    statement: 'AllocatedMethodDetails MUST have a top-level key "Elements" which contains an array.',
    columns: ['AllocatedMethodDetails'],
    violates: () =>
      `${isObject('AllocatedMethodDetails')} AND json_type(${json('AllocatedMethodDetails')}, '$.Elements') IS DISTINCT FROM 'ARRAY'`,
  },
  {
    id: 'AllocatedMethodDetails-C-008-M',
    keyword: 'MUST',
    statement: 'Each item in "Elements" of AllocatedMethodDetails MUST be an object.',
    columns: ['AllocatedMethodDetails'],
    violates: () => anyElement('AllocatedMethodDetails', (e) => `json_type(${e}) <> 'OBJECT'`),
  },
  {
    id: 'AllocatedMethodDetails-C-014-M',
    keyword: 'MUST',
    statement:
      'Allocation property keys MUST begin with "x_" unless they are FOCUS-defined (AllocatedRatio, UsageUnit, UsageQuantity).',
    columns: ['AllocatedMethodDetails'],
    violates: () =>
      anyElement(
        'AllocatedMethodDetails',
        (e) =>
          `json_type(${e}) = 'OBJECT' AND list_bool_or(list_transform(json_keys(${e}), k -> NOT starts_with(k, 'x_') AND NOT list_contains(['${ALLOCATION_KEYS.join("', '")}'], k)))`,
      ),
  },
  {
    id: 'AllocatedMethodDetails-C-016-M',
    keyword: 'MUST',
    statement: '"AllocatedRatio" MUST be included inside each "Elements" object.',
    columns: ['AllocatedMethodDetails'],
    violates: () =>
      anyElement(
        'AllocatedMethodDetails',
        (e) => `json_type(${e}) = 'OBJECT' AND json_type(${e}, '$.AllocatedRatio') IS NULL`,
      ),
  },
  {
    id: 'AllocatedMethodDetails-C-017-M',
    keyword: 'MUST',
    statement: 'Values for "AllocatedRatio" MUST be a decimal value compatible with NumericFormat.',
    columns: ['AllocatedMethodDetails'],
    violates: () =>
      anyElement(
        'AllocatedMethodDetails',
        (e) => `json_type(${e}, '$.AllocatedRatio') IS NOT NULL AND NOT ${isNumber(e, 'AllocatedRatio')}`,
      ),
  },
  {
    id: 'AllocatedMethodDetails-C-019-M',
    keyword: 'MUST',
    statement: '"UsageUnit" MUST be included inside an "Elements" object that includes "UsageQuantity".',
    columns: ['AllocatedMethodDetails'],
    violates: () =>
      anyElement(
        'AllocatedMethodDetails',
        (e) => `json_type(${e}, '$.UsageQuantity') IS NOT NULL AND json_type(${e}, '$.UsageUnit') IS NULL`,
      ),
  },
  {
    id: 'AllocatedMethodDetails-C-023-M',
    keyword: 'MUST',
    statement: 'Values for "UsageQuantity" MUST be compatible with NumericFormat.',
    columns: ['AllocatedMethodDetails'],
    violates: () =>
      anyElement(
        'AllocatedMethodDetails',
        (e) => `json_type(${e}, '$.UsageQuantity') IS NOT NULL AND NOT ${isNumber(e, 'UsageQuantity')}`,
      ),
  },
  noBlankString('AllocatedResourceId-C-003-M', 'AllocatedResourceId'),
  nullWhenNull('AllocatedResourceId-C-004-C', 'AllocatedResourceId', 'AllocatedMethodId'),
  noBlankString('AllocatedResourceName-C-003-M', 'AllocatedResourceName'),
  nullWhenNull('AllocatedResourceName-C-004-C', 'AllocatedResourceName', 'AllocatedResourceId'),
  setWhenSet('AllocatedResourceName-C-005-C', 'AllocatedResourceName', 'AllocatedResourceId'),
  may(
    'AllocatedResourceName-C-006-O',
    'AllocatedResourceName MAY duplicate AllocatedResourceId when a separate display name is not applicable.',
    ['AllocatedResourceName', 'AllocatedResourceId'],
    `"AllocatedResourceName" = "AllocatedResourceId"`,
  ),
  {
    id: 'AllocatedTags-C-002-M',
    keyword: 'MUST',
    statement:
      'AllocatedTags MUST conform to KeyValueFormat requirements (a JSON object of non-nested values).',
    columns: ['AllocatedTags'],
    violates: () =>
      `${notNull('AllocatedTags')} AND (json_type(${json('AllocatedTags')}) IS DISTINCT FROM 'OBJECT' OR ${anyNested(json('AllocatedTags'))})`,
  },
  nullWhenNull('AllocatedTags-C-003-C', 'AllocatedTags', 'AllocatedMethodId'),
  {
    id: 'AllocatedTags-C-005-C',
    keyword: 'MUST NOT',
    statement: 'AllocatedTags MUST NOT include resource tags already present in Tags.',
    columns: ['AllocatedTags', 'Tags'],
    violates: () =>
      `${isObject('AllocatedTags')} AND list_has_any(json_keys(${json('AllocatedTags')}), map_keys("Tags"))`,
  },
];

const CONTRACT_APPLIED: Requirement[] = [
  jsonObject('ContractApplied-C-003-M', 'ContractApplied', 'JsonObjectFormat'),
  {
    id: 'ContractApplied-C-006-M',
    keyword: 'MUST',
    statement:
      'ContractApplied MUST conform to the ContractAppliedObject schema: an "Elements" array of objects, each with its ContractID and ContractCommitmentID.',
    columns: ['ContractApplied'],
    violates: () =>
      `${isObject('ContractApplied')} AND (json_type(${json('ContractApplied')}, '$.Elements') IS DISTINCT FROM 'ARRAY' OR len(${elements('ContractApplied')}) = 0 OR list_bool_or(list_transform(${elements('ContractApplied')}, e -> json_type(e) <> 'OBJECT' OR ${contractId('e')} IS NULL OR ${commitmentId('e')} IS NULL)))`,
  },
  {
    id: 'ContractApplied-C-007-M',
    keyword: 'MUST NOT',
    statement: 'ContractAppliedObject.Elements[*] MUST NOT have nested property key-value pairs.',
    columns: ['ContractApplied'],
    violates: () => anyElement('ContractApplied', (e) => `json_type(${e}) = 'OBJECT' AND ${anyNested(e)}`),
  },
  {
    id: 'ContractApplied-C-013-M',
    keyword: 'MUST',
    statement:
      'ContractAppliedObject.Elements[*].ContractCommitmentID MUST have one and only one parent ContractAppliedObject.Elements[*].ContractID.',
    columns: ['ContractApplied'],
    violates: (table) =>
      `${isObject('ContractApplied')} AND list_has_any(list_transform(${elements('ContractApplied')}, e -> ${commitmentId('e')}), (SELECT coalesce(list(cc), []) FROM (SELECT ${commitmentId('e')} AS cc FROM (SELECT unnest(${elements('ContractApplied')}) AS e FROM ${table} WHERE ${isObject('ContractApplied')}) WHERE ${commitmentId('e')} IS NOT NULL GROUP BY 1 HAVING count(DISTINCT ${contractId('e')}) > 1)))`,
  },
  {
    id: 'ContractApplied-C-014-C',
    keyword: 'MUST',
    statement:
      'ContractAppliedObject.Elements[*].ContractCommitmentID MUST be equal to ResourceId when ChargeCategory is "Purchase".',
    columns: ['ContractApplied', 'ChargeCategory', 'ResourceId'],
    violates: () =>
      `"ChargeCategory" = 'Purchase' AND ${anyElement('ContractApplied', (e) => `${commitmentId(e)} IS DISTINCT FROM "ResourceId"`)}`,
  },
  may(
    'ContractApplied-C-015-O',
    'ContractAppliedObject.Elements[*].ContractCommitmentID MAY be equal to ContractAppliedObject.Elements[*].ContractID.',
    ['ContractApplied'],
    anyElement('ContractApplied', (e) => `${commitmentId(e)} = ${contractId(e)}`),
  ),
  {
    id: 'ContractApplied-C-018-O',
    keyword: 'SHOULD',
    statement:
      'ContractAppliedObject.Elements[*].ContractCommitmentAppliedUnit SHOULD conform to UnitFormat requirements.',
    columns: ['ContractApplied'],
    violates: () =>
      anyElement('ContractApplied', (e) => {
        const unit = `(${e}->>'ContractCommitmentAppliedUnit')`;
        return `${unit} IS NOT NULL AND (${UNIT_RULES.form(unit)} OR ${UNIT_RULES.capitalization(unit)} OR ${UNIT_RULES.recommended(unit)})`;
      }),
  },
];

/**
 * DataGeneratorCalculatedSplitCostAllocationHandling (a 1.3 attribute): an *origin charge* split
 * into *allocated charges* whose summable metrics add up to the origin's and whose dimensions,
 * non-summable metrics and tags equal the origin's. The origin charge is not a row of the dataset
 * (it is replaced by its allocated charges) and no 1.3 column says which allocated charges come
 * from one origin, so none of the four can be decided from the rows: listed, not checked.
 */
const ORIGIN_UNKNOWN =
  'not machine-checkable: the origin charge is not a row of the dataset, and no FOCUS 1.3 column identifies the allocated charges split from one origin charge';
const SPLIT_COST: Requirement[] = [
  'The sum of FOCUS column values in allocated charges MUST match the corresponding value in the origin charge when the column is a summable metric (costs, quantities).',
  'FOCUS column values in allocated charges MUST match the corresponding value in the origin charge when the column is a non-summable metric (unit prices).',
  'FOCUS column values in allocated charges MUST match the corresponding value in the origin charge when the column is a dimension.',
  'FOCUS column values in allocated charges MUST include the same keys and values present in Tags in the origin charge when the column contains tag values.',
].map((statement, i) => ({
  id: `DataGeneratorCalculatedSplitCostAllocationHandling-A-00${i + 1}-C`,
  keyword: 'MUST',
  statement,
  columns: ['AllocatedMethodId'],
  notCheckable: ORIGIN_UNKNOWN,
}));

/** The FOCUS 1.3 requirements (Cost and Usage), each marked `only: '1.3'`. */
export const FOCUS_1_3_REQUIREMENTS: readonly Requirement[] = [
  ...PROVIDERS,
  ...ALLOCATION,
  ...SPLIT_COST,
  ...CONTRACT_APPLIED,
].map((r) => ({ ...r, only: '1.3' as const }));

/**
 * The cross-dataset check of ContractApplied (ours, not a requirement of the specification's own
 * text; docs/focus-conformance.md): every ContractCommitmentID a charge names is a contract
 * commitment of the organisation's Contract Commitment dataset, as stored when the billing file
 * is uploaded. `known` null: the organisation has no such dataset yet, so it is not checked.
 */
export function contractReferences(known: readonly string[] | null): Requirement {
  const base = {
    id: 'ContractApplied-X-001-C',
    keyword: 'SHOULD' as const,
    statement:
      "Each ContractCommitmentID in ContractApplied SHOULD name a contract commitment of the organisation's Contract Commitment dataset (as stored when this file was uploaded).",
    columns: ['ContractApplied' as const],
    only: '1.3' as const,
  };
  if (known === null)
    return {
      ...base,
      notCheckable:
        'not checked: the organisation has no Contract Commitment dataset yet (upload one, then this file again)',
    };
  const ids = known.length ? `[${known.map(quoteLiteral).join(', ')}]::VARCHAR[]` : '[]::VARCHAR[]';
  return {
    ...base,
    violates: () =>
      anyElement(
        'ContractApplied',
        (e) => `${commitmentId(e)} IS NOT NULL AND NOT list_contains(${ids}, ${commitmentId(e)})`,
      ),
  };
}
