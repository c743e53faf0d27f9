/**
 * An enrichment document, in its JSON form: rows whose `keyField` value equals an entry's `key`
 * (and that satisfy `conditions`, a CEL expression over `input.<column>`) get the entry's `then`
 * values in the declared target columns, combined according to each column's `mode`
 * (see docs/enrichments.md).
 */
export interface EnrichmentDocument {
  name: string;
  description: string;
  keyField: string;
  priority: number;
  conditions?: string;
  targetColumns: { name: string; mode: string }[];
  entries: { key: string; then: Record<string, string> }[];
}
