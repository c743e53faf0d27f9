import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSync } from '@swc/core';
import { tableDefinition } from '../../../shared/db/keys';

/**
 * Layers point one way. Every `.ts` file of functions/ and shared/ is parsed (imports, exports
 * from, `import()` and `require()`) and each import is held against the rules below: an import
 * that breaks one fails this test, naming the file and what it imports.
 *
 *   functions/ → shared/http, shared/routes → shared/domain → shared/db | shared/warehouse | shared/cloud → shared/model
 *   shared/model: the vocabulary every layer shares (the query model, request schemas, stored records)
 *   shared/auth: the credential and principal rules, with no storage (shared/http feeds them db's reads)
 *   shared/cloud: the SQS and Secrets Manager clients; shared/db: the DynamoDB one
 */

const ROOT = resolve(__dirname, '..', '..', '..');

interface Import {
  from: string;
  /** Repository path (`shared/db/keys`) for a relative import; the package name otherwise. */
  target: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier in an AST node: import/export declarations, `import()`, `require()`. */
function specifiersIn(node: unknown, out: { source: string; typeOnly: boolean }[]): void {
  if (Array.isArray(node)) {
    for (const child of node) specifiersIn(child, out);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Record<string, unknown> & { type?: string };
  const source = (n.source as { value?: unknown } | undefined)?.value;
  if (
    typeof source === 'string' &&
    (n.type === 'ImportDeclaration' ||
      n.type === 'ExportNamedDeclaration' ||
      n.type === 'ExportAllDeclaration')
  ) {
    const specifiers = (n.specifiers ?? []) as { isTypeOnly?: boolean }[];
    const typeOnly = n.typeOnly === true || (specifiers.length > 0 && specifiers.every((s) => s.isTypeOnly));
    out.push({ source, typeOnly });
  }
  if (n.type === 'CallExpression') {
    const callee = n.callee as { type?: string; value?: string };
    const first = (n.arguments as { expression?: { type?: string; value?: unknown } }[] | undefined)?.[0]
      ?.expression;
    const dynamic =
      callee?.type === 'Import' || (callee?.type === 'Identifier' && callee.value === 'require');
    if (dynamic && first?.type === 'StringLiteral' && typeof first.value === 'string') {
      out.push({ source: first.value, typeOnly: false });
    }
  }
  for (const value of Object.values(n)) if (value && typeof value === 'object') specifiersIn(value, out);
}

function importsOf(file: string): Import[] {
  const ast = parseSync(readFileSync(join(ROOT, file), 'utf8'), { syntax: 'typescript', target: 'es2022' });
  const found: { source: string; typeOnly: boolean }[] = [];
  specifiersIn(ast.body, found);
  return found.map(({ source, typeOnly }) => ({
    from: file,
    target: source.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), source)) : source,
    typeOnly,
  }));
}

/** `shared/db` names the folder and everything in it; `@aws-sdk/` every package of the scope. */
function within(path: string, place: string): boolean {
  return place.endsWith('/') ? path.startsWith(place) : path === place || path.startsWith(`${place}/`);
}

interface Rule {
  name: string;
  from: string[];
  never: string[];
  /** Files of `from` the rule does not apply to, each with its reason. */
  except?: Record<string, string>;
}

/** Every layer of the service and the AWS SDK: what a leaf module may not import. */
const SERVICE_LAYERS = [
  'shared/db',
  'shared/domain',
  'shared/http',
  'shared/routes',
  'shared/warehouse',
  'shared/cloud',
  'shared/auth',
  '@aws-sdk/',
];

const RULES: Rule[] = [
  {
    name: 'handlers reach storage only through the domain',
    from: ['functions'],
    never: ['shared/db'],
  },
  {
    name: 'the domain knows neither HTTP nor a cloud SDK',
    from: ['shared/domain'],
    never: ['shared/http', '@aws-sdk/'],
  },
  {
    name: 'the warehouse sits below the domain and HTTP',
    from: ['shared/warehouse'],
    never: ['shared/domain', 'shared/http', 'shared/routes'],
  },
  {
    name: 'storage sits below HTTP',
    from: ['shared/db'],
    never: ['shared/http', 'shared/routes', 'shared/warehouse'],
  },
  {
    // The repositories store the records of shared/model; they name nothing of the domain, not even a type.
    name: 'storage knows nothing of the domain',
    from: ['shared/db'],
    never: ['shared/domain'],
  },
  {
    // The vocabulary sits below every layer that reads or stores it: valibot, shared/enums and itself.
    name: 'shared/model imports no layer of the service',
    from: ['shared/model'],
    never: [
      ...SERVICE_LAYERS,
      'shared/notify',
      'shared/net',
      'shared/charts',
      'shared/config',
      'shared/errors',
    ],
  },
  {
    // The auth rules declare what they read (`ApiKeyStore`, `PrincipalRecords`); shared/http wires
    // the repositories to them. Storage knows nothing of the rules, not even their types.
    name: 'storage does not depend on the auth rules',
    from: ['shared/db'],
    never: ['shared/auth'],
  },
  {
    name: 'auth rules touch no storage, domain or HTTP',
    from: ['shared/auth'],
    never: ['shared/db', 'shared/domain', 'shared/http', 'shared/warehouse', 'shared/cloud', '@aws-sdk/'],
  },
  {
    name: 'cloud adapters are leaves',
    from: ['shared/cloud'],
    never: ['shared/db', 'shared/domain', 'shared/http', 'shared/warehouse', 'shared/auth'],
  },
  {
    name: 'cloud SDK clients live in shared/cloud (and DynamoDB in shared/db)',
    from: ['functions', 'shared'],
    never: ['@aws-sdk/'],
    except: {
      'shared/db': 'the DynamoDB repositories are the table adapter',
      'shared/cloud': 'the SQS and Secrets Manager adapters',
      'shared/warehouse/object-store.ts': "the billing bucket (S3): the warehouse's own adapter",
      'shared/warehouse/athena/client.ts': "the Athena query runner: the warehouse's own adapter",
    },
  },
  {
    // Demo data generators, the seeded random source and the OpenAPI generator live under infra/
    // (infra/local/demo-data/, infra/openapi.ts): no Lambda entry can bundle them.
    name: 'runtime code never reaches local, build, test or demo-data code',
    from: ['functions', 'shared'],
    never: ['infra', 'scripts', 'test', 'bench', 'console'],
  },
  {
    name: 'shared/notify holds the senders: nothing beneath them imports it',
    from: ['shared/net', 'shared/cloud', 'shared/db', 'shared/warehouse', 'shared/auth', 'shared/http'],
    never: ['shared/notify'],
  },
  {
    name: 'shared/net (address policy, guarded HTTP client) is a leaf',
    from: ['shared/net'],
    never: ['shared/notify', ...SERVICE_LAYERS],
  },
  {
    // Ingestion, the warehouse refresh and the outbox live in shared/domain/billing, which both
    // call (a published dimension or a saved enrichment asks billing for a refresh): neither area
    // reaches into the other.
    name: 'dimensions and enrichments do not import each other',
    from: ['shared/domain/dimensions'],
    never: ['shared/domain/enrichments'],
  },
  {
    name: 'enrichments and dimensions do not import each other',
    from: ['shared/domain/enrichments'],
    never: ['shared/domain/dimensions'],
  },
  {
    // A web console reuses the chart-spec builder, so a chart looks the same in both.
    name: 'the chart-spec builder and the console links run in a browser: no Node built-in, service layer or SDK',
    from: ['shared/charts', 'shared/links.ts'],
    never: [...builtinModules, ...builtinModules.map((m) => `node:${m}`), ...SERVICE_LAYERS],
  },
];

function breaks(rule: Rule, imports: Import[]): string[] {
  return imports
    .filter((i) => rule.from.some((place) => within(i.from, place)))
    .filter((i) => !Object.keys(rule.except ?? {}).some((place) => within(i.from, place)))
    .filter((i) => rule.never.some((place) => within(i.target, place)))
    .map((i) => `${i.from} imports ${i.target}${i.typeOnly ? ' (types)' : ''}`);
}

const files = [...sourceFiles('functions'), ...sourceFiles('shared')];
const imports = files.flatMap(importsOf);

/**
 * Key shapes and index names live only in shared/db/keys.ts: a string literal (or the head of a
 * template) that starts like a key prefix (`'DUE#'`, `` `DELIVERY#${…}` ``), or that names an index
 * of the table, anywhere else is a second copy of the contract. Comments are not code and not read.
 */
const KEYS_FILE = 'shared/db/keys.ts';
const KEY_LITERAL = /^[A-Z]+#/;
const INDEX_NAMES = new Set<string>(tableDefinition.indexes.map((ix) => ix.name));

function literalsIn(node: unknown, out: string[]): void {
  if (Array.isArray(node)) {
    for (const child of node) literalsIn(child, out);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Record<string, unknown> & { type?: string };
  if (n.type === 'StringLiteral' && typeof n.value === 'string') out.push(n.value);
  if (n.type === 'TemplateLiteral') {
    const head = (n.quasis as { cooked?: string; raw?: string }[] | undefined)?.[0];
    if (head) out.push(head.cooked ?? head.raw ?? '');
  }
  for (const value of Object.values(n)) if (value && typeof value === 'object') literalsIn(value, out);
}

function keyLiterals(file: string, source: string): string[] {
  if (file === KEYS_FILE) return [];
  const found: string[] = [];
  literalsIn(parseSync(source, { syntax: 'typescript', target: 'es2022' }).body, found);
  return found
    .filter((text) => KEY_LITERAL.test(text) || INDEX_NAMES.has(text))
    .map((text) => `${file}: ${JSON.stringify(text)}`);
}

describe('import boundaries', () => {
  it('reads every source file of functions/ and shared/, and their imports', () => {
    expect(files.length).toBeGreaterThan(150);
    expect(imports.length).toBeGreaterThan(500);
    // The parser sees the arrows a rule needs: a known import of each kind is found.
    expect(imports).toContainEqual({
      from: 'shared/http/identity.ts',
      target: 'shared/db/principals-repo',
      typeOnly: false,
    });
    expect(imports).toContainEqual({
      from: 'shared/db/reports-repo.ts',
      target: 'shared/model/reports',
      typeOnly: true,
    });
  });

  it('key shapes and index names are spelled only in shared/db/keys.ts', () => {
    const found = files.flatMap((file) => keyLiterals(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
    // It sees them in every form, and not in comments.
    const forged = [
      "const a = { ':p': `DUE#$" + '{shard}` };',
      "const b = { skPrefix: 'DELIVERY#' };",
      "const c = { IndexName: 'gsi2' };",
      '/** `ORG#o#DASH#d` / `META` */ const d = 1;',
    ].join('\n');
    expect(keyLiterals('shared/db/x-repo.ts', forged)).toEqual([
      'shared/db/x-repo.ts: "DUE#"',
      'shared/db/x-repo.ts: "DELIVERY#"',
      'shared/db/x-repo.ts: "gsi2"',
    ]);
    expect(keyLiterals(KEYS_FILE, forged)).toEqual([]);
  });

  it.each(RULES.map((r) => [r.name, r] as const))('%s', (_name, rule) => {
    expect(breaks(rule, imports)).toEqual([]);
  });

  it('catches an import that breaks a rule, whatever its form', () => {
    const forged = (from: string, target: string, typeOnly = false): Import => ({ from, target, typeOnly });
    const rule = (name: string) => RULES.find((r) => r.name.startsWith(name)) as Rule;
    const handlers = rule('handlers reach storage');
    const domain = rule('the domain knows');
    const db = rule('storage knows nothing');
    const model = rule('shared/model');
    const auth = rule('auth rules touch');
    const sdk = rule('cloud SDK clients');
    expect(breaks(handlers, [forged('functions/http/x.ts', 'shared/db/keys')])).toHaveLength(1);
    expect(breaks(domain, [forged('shared/domain/a/b.ts', '@aws-sdk/client-sqs')])).toHaveLength(1);
    expect(breaks(domain, [forged('shared/domain/a/b.ts', 'shared/http/route', true)])).toHaveLength(1);
    expect(breaks(db, [forged('shared/db/a.ts', 'shared/domain/x/model', true)])).toHaveLength(1);
    expect(breaks(db, [forged('shared/db/a.ts', 'shared/model/alerts', true)])).toEqual([]);
    expect(breaks(model, [forged('shared/model/a.ts', 'shared/domain/x/y', true)])).toHaveLength(1);
    expect(breaks(model, [forged('shared/model/a.ts', 'shared/warehouse/x')])).toHaveLength(1);
    expect(breaks(model, [forged('shared/model/a.ts', 'shared/enums')])).toEqual([]);
    expect(breaks(auth, [forged('shared/auth/a.ts', 'shared/db')])).toHaveLength(1);
    expect(breaks(sdk, [forged('shared/warehouse/object-store.ts', '@aws-sdk/client-s3')])).toEqual([]);
    expect(breaks(sdk, [forged('shared/warehouse/duckdb/x.ts', '@aws-sdk/client-s3')])).toHaveLength(1);
    const charts = RULES.at(-1)!;
    expect(breaks(charts, [forged('shared/charts/a.ts', 'node:fs')])).toHaveLength(1);
    expect(breaks(charts, [forged('shared/charts/a.ts', 'path')])).toHaveLength(1);
    expect(breaks(charts, [forged('shared/charts/a.ts', 'shared/charts/spec')])).toEqual([]);
    expect(
      breaks(rule('runtime code'), [forged('shared/domain/a.ts', 'infra/local/demo-data/random')]),
    ).toHaveLength(1);
    expect(breaks(rule('runtime code'), [forged('functions/http/x.ts', 'infra/openapi')])).toHaveLength(1);
    expect(breaks(rule('shared/notify'), [forged('shared/net/a.ts', 'shared/notify/slack')])).toHaveLength(1);
    expect(breaks(rule('shared/notify'), [forged('shared/domain/a.ts', 'shared/notify/slack')])).toEqual([]);
    expect(
      breaks(rule('storage does not'), [forged('shared/db/a.ts', 'shared/auth/principal', true)]),
    ).toHaveLength(1);
    expect(breaks(rule('shared/net'), [forged('shared/net/a.ts', 'shared/config')])).toEqual([]);
    // `shared/dbx` is not `shared/db`.
    expect(breaks(handlers, [forged('functions/x.ts', 'shared/dbx/y')])).toEqual([]);
  });
});
