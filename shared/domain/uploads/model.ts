/** What an upload replaced, as its record keeps it (defined with the warehouse's figures). */
export type { SourceChange, SourceVersion } from '../../warehouse/ingest/replacements';
