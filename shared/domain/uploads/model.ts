/** What an upload replaced, as its record keeps it (defined with the warehouse's figures). */

/** The conformance report an upload keeps (defined with the warehouse's checker). */
export type { ConformanceReport } from '../../warehouse/conformance/report';
export type { SourceChange, SourceVersion } from '../../warehouse/ingest/replacements';
