import type { ConversionOut } from './conversion';
import type { LabelFeature, VdimFeature } from './view-features';

/**
 * Records of the dimensions area. Labels are published inline by POST /dimensions/publish;
 * virtual dimensions are drafted through their own routes and promoted by the same publish.
 */
export interface PublishedLabel extends LabelFeature {
  publishedAt: string;
  publishedBy: string;
}

/** The definition part of a virtual dimension (what a draft edits and a publish promotes). */
export interface VdimDefinition {
  name: string;
  description: string;
  rules: VdimFeature['rules'];
  defaultValue: string | null;
}

export interface VirtualDimension extends VdimDefinition {
  id: string;
  organizationId: string;
  /** The live definition, once published; the fields above are the working draft. */
  published: (VdimDefinition & { publishedAt: string }) | null;
  /** True while the draft differs from `published` (or was never published). */
  pending: boolean;
  /** Deletion requested: the dimension stays live until the next publish removes it. */
  pendingDelete: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
}

/** A queryable dimension of GET /dimensions (spec: "Dimension (queryable)"). */
export interface DimensionEntry {
  name: string;
  label: string;
  groupTitle: string;
  description: string;
  valueEditorType: 'multiselect';
  values: { name: string; label: string; proportionCostAllocated: number }[];
  operators: { name: string; value: string; label: string }[];
}

/** A label candidate of GET /dimensions/candidates (snake_case, as in the spec). */
export interface Candidate {
  usage_start_day: string;
  key: string;
  id: string;
  number_values: number;
  values: { value: string; cost_allocated: number; proportion_cost_allocated: number }[];
  total_cost_key_present: number;
  total_cost_key_absent: number;
  proportion_key_present: number;
  proportion_key_absent: number;
  providers: string[];
  months: { month: string; cost: number }[];
  cost_percentage_change: number;
  /** Other candidate keys that differ from `key` only by case or whitespace (see candidates.ts). */
  similar_keys: string[];
  ingested: boolean;
}

/** A candidate as the refresh caches it: without the fields `withIngested` fills in at read time. */
export type CachedCandidate = Omit<Candidate, 'ingested' | 'similar_keys'>;

export type RefreshState = 'never' | 'running' | 'succeeded' | 'failed';

export interface RefreshStatus {
  orgId: string;
  state: RefreshState;
  /** The refresh in progress or last attempted. */
  requestId?: string;
  mode?: 'full' | 'light';
  reason?: string;
  requestedAt?: string;
  startedAt?: string;
  finishedAt?: string;
  /** The last successful refresh: when it finished, when it started reading, and its mode. */
  lastSucceededAt?: string;
  lastSucceededStartedAt?: string;
  lastSucceededMode?: 'full' | 'light';
  lastError?: string;
  warnings?: string[];
  /** Billing months the caches cover (the candidate window). */
  months?: string[];
  /**
   * The currency of the caches' money figures (candidate costs and proportions, dimension values'
   * proportions): the organisation's reporting currency when the last successful refresh ran.
   */
  currency?: string;
  /** The billing currencies that refresh converted to `currency`, with the rates' source and days. */
  conversion?: ConversionOut;
  /**
   * Set while the latest refresh failed for a missing exchange rate (the 422 text naming it): the
   * candidates answer it as a 422 until a refresh succeeds.
   */
  currencyError?: string;
}

export const CACHE_KINDS = ['dimensions', 'candidates', 'catalog'] as const;
export type CacheKind = (typeof CACHE_KINDS)[number];
