import type { WhereClause } from './where-clause';

/**
 * What a full or light refresh builds into an organisation's enriched view: published labels,
 * virtual dimensions and enrichments. The domain loads these from DynamoDB; the warehouse turns
 * them into columns.
 */
export interface LabelSource {
  name: string;
  /** `label` (or `tag`): a tag key of the billing data; `dimension` (or `column`): a built-in dimension or FOCUS column. */
  type: string;
}

export interface LabelFeature {
  name: string;
  /** Sources coalesced in order: the first with a value wins. */
  columnsMerged: LabelSource[];
  /** Applied to the merged value: an exact `value` becomes `to`; other values pass through. */
  maps: { value: string; to: string }[];
}

export interface VdimFeature {
  id: string;
  name: string;
  /** First matching rule wins. */
  rules: { value: string; whereClause: WhereClause }[];
  /** Value of rows no rule matches; null leaves them without a value. */
  defaultValue: string | null;
}

export interface EnrichmentFeature {
  name: string;
  keyField: string;
  priority: number;
  conditions?: string;
  targetColumns: { name: string; mode: string }[];
  entries: { key: string; then: Record<string, string> }[];
}

export interface FeatureModel {
  labels: LabelFeature[];
  vdims: VdimFeature[];
  enrichments: EnrichmentFeature[];
}

export type RefreshMode = 'full' | 'light';

export const LABEL_SOURCE_TYPES = ['label', 'tag', 'dimension', 'column'] as const;

export function isTagSource(type: string): boolean {
  return type === 'label' || type === 'tag';
}
