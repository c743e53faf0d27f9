import { CST, isAlias, isCollection, isMap, isScalar, isSeq, Lexer, parseDocument, visit } from 'yaml';

// Loaded only for YAML request bodies and the one-off migration (`await import`), so a PUT with a
// JSON body never loads the YAML library; the stored YAML text is written by `yaml-text.ts`.

/** YAML text longer than this is refused before parsing (the HTTP body cap is also 1 MB). */
export const MAX_YAML_BYTES = 1024 * 1024;
/** Deepest nesting a document may have; a valid enrichment document is 4 levels deep. */
const MAX_YAML_DEPTH = 16;

/** The only explicit tags accepted: the YAML 1.2 core schema's own. */
const CORE_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`),
);

export class YamlError extends Error {
  override name = 'YamlError';
}

/**
 * Parses untrusted YAML into plain JSON-compatible data, safely:
 * - one document only, YAML 1.2 core schema, no custom tags, no `<<` merge keys, unique keys;
 * - anchors and aliases are refused outright, before any value is built, so an alias bomb
 *   ("billion laughs") costs one linear parse of its text and never expands;
 * - text size and nesting depth are capped.
 */
export function parseYaml(text: string): unknown {
  if (Buffer.byteLength(text) > MAX_YAML_BYTES) throw new YamlError('YAML document is too large');
  refuseAnchorsEarly(text);
  const doc = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    merge: false,
    uniqueKeys: true,
    strict: true,
    prettyErrors: true,
    customTags: [],
    resolveKnownTags: false,
  });
  const first = doc.errors[0];
  if (first) throw new YamlError(`Invalid YAML: ${oneLine(first.message)}`);

  let problem: string | undefined;
  visit(doc, {
    Alias() {
      problem = 'YAML anchors and aliases are not accepted';
      return visit.BREAK;
    },
    Node(_key, node, path) {
      if (node.anchor) {
        problem = 'YAML anchors and aliases are not accepted';
        return visit.BREAK;
      }
      if (node.tag && !CORE_TAGS.has(node.tag)) {
        problem = `YAML tag ${node.tag} is not accepted`;
        return visit.BREAK;
      }
      if (isCollection(node) && path.filter((p) => isMap(p) || isSeq(p)).length >= MAX_YAML_DEPTH) {
        problem = 'YAML document is nested too deeply';
        return visit.BREAK;
      }
      return undefined;
    },
    Pair(_key, pair) {
      if (!isScalar(pair.key) && !isAlias(pair.key)) {
        problem = 'YAML mapping keys must be plain scalars';
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (problem) throw new YamlError(problem);
  return doc.toJS({ maxAliasCount: 0 });
}

/**
 * Streams the lexer and stops at the first anchor or alias token, so a document built from
 * aliases is refused after reading up to its first `&`, before the (much slower) composer runs.
 */
function refuseAnchorsEarly(text: string): void {
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === 'anchor' || type === 'alias')
      throw new YamlError('YAML anchors and aliases are not accepted');
  }
}

function oneLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
