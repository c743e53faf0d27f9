import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { PROJECT_ROOT } from '../../infra/constructs/service-function';
import { compileRoutes, matchRoute } from '../../infra/local/route-matcher';
import { schedules, workers } from '../../shared/queues';
import { routes } from '../../shared/routes';
import { type BuiltStack, buildStack, refOf, refsIn, resourcesOf } from './support';

// A route must exist everywhere or nowhere: in the manifest, as an API Gateway route backed by its
// own Lambda in the synthesized template, in the local server's matcher, and as a handler file.
let built: BuiltStack;

beforeAll(() => {
  built = buildStack('dev');
});

/** A concrete path for a template: `/reports/{id}` → `/reports/p-id`. */
function samplePath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\+?\}/g, (_, name: string) => `p-${name}`);
}

function handlerFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return handlerFiles(full);
    return entry.name.endsWith('.ts') ? [relative(PROJECT_ROOT, full)] : [];
  });
}

/** Route key → the Lambda logical id its integration invokes, read from the template. */
function templateRoutes(): Map<string, string | undefined> {
  const integrations = resourcesOf(built.template, 'AWS::ApiGatewayV2::Integration');
  const out = new Map<string, string | undefined>();
  for (const route of Object.values(resourcesOf(built.template, 'AWS::ApiGatewayV2::Route'))) {
    const integrationId = [...refsIn(route.Properties!.Target)].find((id) => integrations[id]);
    const fnId = integrationId ? refOf(integrations[integrationId]!.Properties!.IntegrationUri) : undefined;
    out.set(route.Properties!.RouteKey as string, fnId);
  }
  return out;
}

describe('route parity', () => {
  test('the manifest has routes, with unique ids and route keys', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
    expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length);
  });

  test.each(routes.map((def) => [`${def.method} ${def.path}`, def] as const))(
    '%s: handler file, API route, its own Lambda built from that file, and a local match',
    (routeKey, def) => {
      const entry = `functions/http/${def.entry}.ts`;
      expect({ entry, exists: existsSync(join(PROJECT_ROOT, entry)) }).toEqual({ entry, exists: true });

      const fnId = templateRoutes().get(routeKey);
      expect({ routeKey, lambda: fnId }).toEqual({ routeKey, lambda: expect.any(String) });
      expect(resourcesOf(built.template, 'AWS::Lambda::Function')[fnId!]).toBeDefined();
      const fn = built.stack.routeFunctions.get(def.id);
      expect(fn?.entry).toBe(entry);
      expect(built.idOf(fn!.fn.node.defaultChild as CfnFunction)).toBe(fnId);

      const match = matchRoute(compileRoutes(routes), def.method, samplePath(def.path));
      expect(match.kind).toBe('match');
      expect(match.kind === 'match' && match.route.def).toBe(def);
    },
  );

  test('the template has no API route that the manifest lacks, and no Lambda is shared', () => {
    const keys = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const fromTemplate = templateRoutes();
    expect([...fromTemplate.keys()].filter((k) => !keys.has(k))).toEqual([]);
    const lambdas = [...fromTemplate.values()];
    expect(new Set(lambdas).size).toBe(lambdas.length);
  });

  test('every handler file under functions/http has a route', () => {
    const entries = new Set(routes.map((r) => `functions/http/${r.entry}.ts`));
    const orphans = handlerFiles(join(PROJECT_ROOT, 'functions', 'http')).filter(
      (file) => !entries.has(file),
    );
    expect(orphans).toEqual([]);
  });

  test('every worker and schedule entry file exists', () => {
    const missing = [...workers, ...schedules]
      .map((def) => `functions/${def.entry}.ts`)
      .filter((entry) => !existsSync(join(PROJECT_ROOT, entry)));
    expect(missing).toEqual([]);
  });

  test('every worker and schedule of the manifest has its function in the template', () => {
    expect([...built.stack.workerFunctions.keys()].sort()).toEqual(workers.map((w) => w.name).sort());
    expect([...built.stack.scheduleFunctions.keys()].sort()).toEqual(schedules.map((s) => s.name).sort());
    for (const w of workers)
      expect(built.stack.workerFunctions.get(w.name)?.entry).toBe(`functions/${w.entry}.ts`);
    for (const s of schedules)
      expect(built.stack.scheduleFunctions.get(s.name)?.entry).toBe(`functions/${s.entry}.ts`);
  });
});
