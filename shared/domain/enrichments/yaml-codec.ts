import {
  CST,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  Lexer,
  parseDocument,
  visit,
  type YAMLError,
} from 'yaml';

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
 * - text size and nesting depth are capped, the depth before the parser runs (its composer
 *   recurses once per level, so a deep document would otherwise exhaust the stack or the heap);
 * - the parser's own messages are never echoed: an error names its line, column and kind only.
 */
export function parseYaml(text: string): unknown {
  if (Buffer.byteLength(text) > MAX_YAML_BYTES) throw new YamlError('YAML document is too large');
  prescan(text);
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, {
      version: '1.2',
      schema: 'core',
      merge: false,
      uniqueKeys: true,
      strict: true,
      prettyErrors: true,
      customTags: [],
      resolveKnownTags: false,
    });
  } catch {
    throw new YamlError('Invalid YAML: the document could not be read');
  }
  const first = doc.errors[0];
  if (first) throw new YamlError(describeError(first));

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
        problem = TOO_DEEP;
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

/** The token types that carry no width (markers the lexer adds) or that nest nothing. */
const ZERO_WIDTH = new Set(['doc-mode', 'flow-error-end', 'scalar', 'byte-order-mark']);
const NO_STRUCTURE = new Set(['comment', 'doc-start', 'doc-end', 'directive-line']);

/**
 * One linear pass of the lexer (which does not recurse) before the parser runs. It stops at the
 * first anchor or alias token, so a document built from aliases is refused after reading up to its
 * first `&`; and it bounds the nesting depth, so a deeply nested document is refused after reading
 * about `MAX_YAML_DEPTH` levels of it. Depth counts open flow brackets plus the block indentation
 * levels in force (a line's first token, and what follows a `-` or `?` on the same line, opens a
 * level at its column). That counts a scalar on its own level too, so the bound here is one above
 * the exact check made on the parsed document.
 */
function prescan(text: string): void {
  const indents: number[] = [];
  let flow = 0;
  let column = 0;
  let opensLevel = true;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === 'anchor' || type === 'alias')
      throw new YamlError('YAML anchors and aliases are not accepted');
    if (type === 'newline') {
      column = 0;
      opensLevel = true;
      continue;
    }
    if (type === null || ZERO_WIDTH.has(type)) continue;
    if (type !== 'space' && !NO_STRUCTURE.has(type)) {
      if (opensLevel && flow === 0) {
        while (indents.length && (indents.at(-1) as number) > column) indents.pop();
        if (indents.at(-1) !== column) indents.push(column);
      }
      opensLevel = type === 'seq-item-ind' || type === 'explicit-key-ind';
      if (type === 'flow-seq-start' || type === 'flow-map-start') flow++;
      else if ((type === 'flow-seq-end' || type === 'flow-map-end') && flow > 0) flow--;
      if (indents.length + flow > MAX_YAML_DEPTH + 1) throw new YamlError(TOO_DEEP);
    }
    const newline = token.lastIndexOf('\n');
    column = newline === -1 ? column + token.length : token.length - newline - 1;
  }
}

const TOO_DEEP = 'YAML document is nested too deeply';

/** What each of the parser's error codes means, in our words (its messages are never echoed). */
const ERROR_KINDS: Partial<Record<YAMLError['code'], string>> = {
  BAD_INDENT: 'bad indentation',
  TAB_AS_INDENT: 'tabs are not accepted as indentation',
  DUPLICATE_KEY: 'a mapping key is repeated',
  MULTIPLE_DOCS: 'only one document is accepted',
  MISSING_CHAR: 'a closing quote or bracket is missing',
  UNEXPECTED_TOKEN: 'unexpected character',
  BAD_SCALAR_START: 'a plain value cannot start with this character',
  BAD_DQ_ESCAPE: 'invalid escape in a double-quoted string',
  BLOCK_AS_IMPLICIT_KEY: 'invalid mapping key',
  MULTILINE_IMPLICIT_KEY: 'a mapping key must fit on one line',
  KEY_OVER_1024_CHARS: 'a mapping key is longer than 1,024 characters',
  BLOCK_IN_FLOW: 'a block collection inside a flow collection',
  MULTIPLE_ANCHORS: 'YAML anchors and aliases are not accepted',
  MULTIPLE_TAGS: 'a value has more than one tag',
  BAD_DIRECTIVE: 'unsupported directive',
  TAG_RESOLVE_FAILED: 'a value does not match its tag',
};

function describeError(error: YAMLError): string {
  const kind = ERROR_KINDS[error.code] ?? 'syntax error';
  const at = error.linePos?.[0];
  return `Invalid YAML: ${kind}${at ? ` at line ${at.line}, column ${at.col}` : ''}`;
}
