import type { EnrichmentDocument } from './document';

// The stored YAML text of a document, written without the YAML library: every PUT stores it, and a
// PUT with a JSON body should not load a YAML implementation (`yaml-codec.ts`, which parses, is
// imported only for YAML bodies). The document's shape is fixed, so the emitter is short.

/** Words YAML 1.1 or 1.2 readers would take for a boolean or null: always quoted. */
const KEYWORDS = /^(?:y|yes|n|no|on|off|true|false|null)$/i;
/** A string that every YAML reader takes as that same string when written plain. */
const PLAIN = /^[A-Za-z_][A-Za-z0-9_ ./@()-]*$/;
/** Characters outside YAML's printable set, which a double-quoted scalar must escape. */
const NON_PRINTABLE = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/g;

/** A string as a YAML scalar: plain when unambiguous, else double-quoted (JSON's escapes are YAML's). */
function scalar(text: string): string {
  if (PLAIN.test(text) && !text.endsWith(' ') && !KEYWORDS.test(text)) return text;
  return JSON.stringify(text).replace(
    NON_PRINTABLE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The canonical YAML text of a validated document: block style, fields in canonical order. */
export function toYaml(doc: EnrichmentDocument): string {
  const lines = [
    `name: ${scalar(doc.name)}`,
    `description: ${scalar(doc.description)}`,
    `keyField: ${scalar(doc.keyField)}`,
    `priority: ${String(doc.priority)}`,
  ];
  if (doc.conditions !== undefined) lines.push(`conditions: ${scalar(doc.conditions)}`);
  lines.push(doc.targetColumns.length ? 'targetColumns:' : 'targetColumns: []');
  for (const c of doc.targetColumns) lines.push(`  - name: ${scalar(c.name)}`, `    mode: ${scalar(c.mode)}`);
  lines.push(doc.entries.length ? 'entries:' : 'entries: []');
  for (const e of doc.entries) {
    lines.push(`  - key: ${scalar(e.key)}`);
    const then = Object.entries(e.then);
    lines.push(then.length ? '    then:' : '    then: {}');
    for (const [column, value] of then) lines.push(`      ${scalar(column)}: ${scalar(value)}`);
  }
  return `${lines.join('\n')}\n`;
}
