import * as v from 'valibot';
import { PageQuerySchema } from '../../model/enum-schemas';

/**
 * Enrichment schemas: the shape of the document. Rules that need more than one field (known
 * columns, CEL, declared targets, unique keys) live in `rules.ts`.
 */
export const ENRICHMENT_MODES = ['merge', 'overwrite'] as const;
export type EnrichmentMode = (typeof ENRICHMENT_MODES)[number];

export const ENRICHMENT_LIMITS = {
  nameLength: 128,
  descriptionLength: 2000,
  maxPriority: 1_000_000,
  targetColumns: 20,
  targetColumnNameLength: 64,
  entries: 10_000,
  keyLength: 512,
  valueLength: 1024,
} as const;

/** The YAML media types a PUT body may be sent as (besides `application/json`). */
export const YAML_MEDIA_TYPES = [
  'application/yaml',
  'application/x-yaml',
  'text/yaml',
  'text/x-yaml',
] as const;

export const ENRICHMENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const TARGET_COLUMN_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const EnrichmentName = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(ENRICHMENT_LIMITS.nameLength, `must be at most ${ENRICHMENT_LIMITS.nameLength} characters`),
  v.regex(
    ENRICHMENT_NAME_PATTERN,
    'must be letters, digits, "_", "-" or ".", starting with a letter or digit',
  ),
);

export const EnrichmentNameParams = v.object({ name: EnrichmentName });

export const ListEnrichmentsQuery = v.object({ ...PageQuerySchema.entries });

const TargetColumn = v.strictObject({
  name: v.pipe(
    v.string(),
    v.maxLength(
      ENRICHMENT_LIMITS.targetColumnNameLength,
      `must be at most ${ENRICHMENT_LIMITS.targetColumnNameLength} characters`,
    ),
    v.regex(
      TARGET_COLUMN_PATTERN,
      'must be an identifier: letters, digits and "_", not starting with a digit',
    ),
  ),
  mode: v.picklist(ENRICHMENT_MODES, `must be one of ${ENRICHMENT_MODES.join(', ')}`),
});

/** A plain object whose own keys are all safe: valibot's record() silently drops `__proto__`. */
const plainRecord = v.custom<Record<string, unknown>>(
  (input) =>
    typeof input === 'object' &&
    input !== null &&
    !Array.isArray(input) &&
    !Object.keys(input).some((k) => k === '__proto__' || k === 'constructor' || k === 'prototype'),
  'must be an object mapping target column names to strings',
);

const Entry = v.strictObject({
  key: v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(ENRICHMENT_LIMITS.keyLength, `must be at most ${ENRICHMENT_LIMITS.keyLength} characters`),
  ),
  // biome-ignore lint/suspicious/noThenProperty: `then` is the spec's field name
  then: v.pipe(
    plainRecord,
    v.record(
      v.string(),
      v.pipe(
        v.string(),
        v.maxLength(
          ENRICHMENT_LIMITS.valueLength,
          `must be at most ${ENRICHMENT_LIMITS.valueLength} characters`,
        ),
      ),
    ),
  ),
});

/** The enrichment document as a PUT body (and as GET returns it). */
export const EnrichmentDocumentBody = v.strictObject({
  name: EnrichmentName,
  /** Optional on input (defaults to ""); always present on output. */
  description: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(
        ENRICHMENT_LIMITS.descriptionLength,
        `must be at most ${ENRICHMENT_LIMITS.descriptionLength} characters`,
      ),
    ),
    '',
  ),
  keyField: v.string(),
  priority: v.pipe(
    v.number(),
    v.integer('must be an integer'),
    v.minValue(0, 'must be at least 0'),
    v.maxValue(ENRICHMENT_LIMITS.maxPriority, `must be at most ${ENRICHMENT_LIMITS.maxPriority}`),
  ),
  /** A CEL expression; `null` counts as unset. */
  conditions: v.optional(v.nullable(v.string())),
  targetColumns: v.pipe(
    v.array(TargetColumn),
    v.minLength(1, 'must declare at least one target column'),
    v.maxLength(
      ENRICHMENT_LIMITS.targetColumns,
      `must have at most ${ENRICHMENT_LIMITS.targetColumns} columns`,
    ),
  ),
  entries: v.pipe(
    v.array(Entry),
    v.maxLength(ENRICHMENT_LIMITS.entries, `must have at most ${ENRICHMENT_LIMITS.entries} entries`),
  ),
});

export type EnrichmentDocumentInput = v.InferOutput<typeof EnrichmentDocumentBody>;

/** One item of `GET /enrichments`: the document's metadata, without its entries. */
export const EnrichmentSummaryResponse = v.object({
  name: v.string(),
  description: v.string(),
  keyField: v.string(),
  priority: v.number(),
  conditions: v.optional(v.string()),
  targetColumns: v.array(v.object({ name: v.string(), mode: v.string() })),
  entryCount: v.number(),
  version: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
  updatedBy: v.string(),
});
