import type { FocusVersion } from '../../model/uploads';
import { BILLING_CHARGE_REQUIREMENTS } from './billing-charge';
import { COMMITMENT_CAPACITY_REQUIREMENTS } from './commitment-capacity';
import { COST_PRICE_REQUIREMENTS } from './cost-price';
import { FOCUS_1_3_REQUIREMENTS } from './focus-1-3';
import { PERMISSIONS } from './permissions';
import { RESOURCE_SERVICE_SKU_REQUIREMENTS } from './resource-service-sku';
import type { Requirement } from './rules';

export type { Feature, Requirement } from './rules';

/**
 * The FOCUS 1.2 requirements checked on every upload, written from the FOCUS specification
 * (FinOps Open Cost and Usage Specification 1.2, © FinOps Foundation, CC BY 4.0,
 * https://focus.finops.org). The ids are those of the FinOps Foundation's requirements model
 * (focus_validator, model-1.2.json), used as a list of which requirements exist; where the model
 * and the specification disagree the check follows the specification (docs/focus-conformance.md).
 *
 * Each requirement reads a few FOCUS columns of the converted rows (the staged table of an
 * upload) and is one SQL predicate, true for a row that breaks it: the checker counts those rows
 * in one statement per requirement. A requirement on a column the file does not have is not
 * applicable (the presence requirements say whether it should have had it); one that belongs to
 * an optional feature the file does not use (no commitment discount, no capacity reservation)
 * is not applicable either. Type requirements are not listed: a value that is not of its column's
 *
 * One file per column family, each in the order of the kinds of requirement (presence,
 * nullability, allowed values and formats, conditional rules, equalities, distinct counts):
 * billing-charge.ts, cost-price.ts, commitment-capacity.ts, resource-service-sku.ts; the builders
 * of the usual shapes are in rules.ts, the specification's allowed values in values.ts.
 */
export const REQUIREMENTS: readonly Requirement[] = [
  ...BILLING_CHARGE_REQUIREMENTS,
  ...COST_PRICE_REQUIREMENTS,
  ...COMMITMENT_CAPACITY_REQUIREMENTS,
  ...RESOURCE_SERVICE_SKU_REQUIREMENTS,
  ...PERMISSIONS,
  ...FOCUS_1_3_REQUIREMENTS,
];

/**
 * The requirements checked on a file of `version`: those of both versions plus the version's own
 * (1.2: ProviderName and PublisherName, which 1.3 deprecates; 1.3: ./focus-1-3.ts).
 */
export function requirementsOf(version: FocusVersion): readonly Requirement[] {
  return REQUIREMENTS.filter((r) => !r.only || r.only === version);
}

/** The number of requirements of FOCUS 1.2 in the requirements model, and of those it checks by machine. */
export const MODEL_REQUIREMENTS = { total: 621, machineCheckable: 420 };
