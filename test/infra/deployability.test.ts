import { INTEGRATION_TIMEOUT, routeArea } from '../../infra/constructs/route-area';
import { CLOUDFORMATION_RESOURCE_LIMIT } from '../../infra/stack';
import type { RouteDef } from '../../shared/http/route';
import { routes } from '../../shared/routes';
import {
  type BuiltStack,
  buildStack,
  type CfnTemplate,
  refOf,
  refsIn,
  resourcesOf,
  serviceFunctions,
} from './support';

// What lets the stack be deployed, grown and deployed again: every template well under
// CloudFormation's resource limit (with room for twice today's routes), no route function that
// outlives the HTTP API's wait, no region written into the template, and names that a stack
// created again after a delete does not share with the old one's retained resources.

/** The share of CloudFormation's limit one template may use: the rest is headroom for new work. */
const BUDGET = Math.floor(CLOUDFORMATION_RESOURCE_LIMIT * 0.8);

let prod: BuiltStack;
let doubled: BuiltStack;

/** Every real route twice: a copy with its own id and path in the same area. */
const twiceTheRoutes: RouteDef[] = [
  ...routes,
  ...routes.map((def) => ({ ...def, id: `${def.id}Copy`, path: `/copy${def.path}` })),
];

const counts = (built: BuiltStack) =>
  built.templates.map((t) => ({ template: t.path, resources: Object.keys(t.json.Resources ?? {}).length }));

beforeAll(() => {
  prod = buildStack('prod');
  doubled = buildStack('dev', { routes: twiceTheRoutes });
});

describe('resource budget per template', () => {
  test(`no template (parent or nested) holds more than ${BUDGET} resources (80 % of ${CLOUDFORMATION_RESOURCE_LIMIT})`, () => {
    const over = counts(prod).filter((c) => c.resources > BUDGET);
    expect(over).toEqual([]);
    // The nested stacks are really used: the parent holds no route function.
    expect(prod.templates.length).toBeGreaterThan(2);
    const parent = prod.templates[0]!.json;
    const parentFunctions = Object.values(parent.Resources ?? {}).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    expect(parentFunctions).toEqual([]);
  });

  test('twice the routes of today still fit every template within the budget', () => {
    expect(counts(doubled).filter((c) => c.resources > BUDGET)).toEqual([]);
    expect(Object.keys(resourcesOf(doubled.template, 'AWS::ApiGatewayV2::Route'))).toHaveLength(
      2 * routes.length,
    );
  });

  test('route areas are nested stacks: the parent does not grow with the routes', () => {
    const parentCount = (b: BuiltStack) => Object.keys(b.templates[0]!.json.Resources ?? {}).length;
    // dev and prod differ only in settings, not in resource count, for the same manifests.
    const single = buildStack('dev');
    expect(parentCount(doubled)).toBe(parentCount(single));
    const areas = new Set(routes.map((r) => routeArea(r)));
    for (const area of areas) {
      expect(prod.templates.map((t) => t.path)).toContain(`CostManagement-prod/Routes-${area}`);
    }
  });

  test('a route area is the handler folder under functions/http', () => {
    expect(routeArea({ entry: 'admin/sync-team' })).toBe('Admin');
    expect(routeArea({ entry: 'usage-metrics/read' })).toBe('UsageMetrics');
    expect(routeArea({ entry: '../../test/infra/fixtures/sample-route' })).toBe('Test');
  });
});

describe('integration timeout', () => {
  test('every route function times out no later than the HTTP API stops waiting for it', () => {
    const integrations = resourcesOf(prod.template, 'AWS::ApiGatewayV2::Integration');
    const functions = serviceFunctions(prod.template);
    const apiRoutes = Object.values(resourcesOf(prod.template, 'AWS::ApiGatewayV2::Route'));
    expect(apiRoutes).toHaveLength(routes.length);
    for (const route of apiRoutes) {
      const integrationId = [...refsIn(route.Properties!.Target)].find((id) => integrations[id])!;
      const integration = integrations[integrationId]!.Properties!;
      const fnId = refOf(integration.IntegrationUri)!;
      const waitMs = integration.TimeoutInMillis as number;
      const timeoutS = functions[fnId]!.Properties!.Timeout as number;
      expect({ route: route.Properties!.RouteKey, waitMs, fits: timeoutS * 1000 <= waitMs }).toEqual({
        route: route.Properties!.RouteKey,
        waitMs: INTEGRATION_TIMEOUT.toMilliseconds(),
        fits: true,
      });
    }
  });

  test('a route declaring a longer timeout fails synth', () => {
    const slow: RouteDef = { ...routes[0]!, id: 'slowRoute', path: '/slow', timeoutSeconds: 60 };
    expect(() => buildStack('dev', { routes: [...routes, slow] })).toThrow(
      /\/slow: a 60 s timeout exceeds the HTTP API's 29 s integration timeout/,
    );
  });
});

describe('environment', () => {
  const REGION =
    /\b(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:gov-)?(?:north|south|east|west|central|northeast|southeast|northwest|southwest)-\d\b/;

  test('the synthesized templates name no region and no account, even when the CLI knows both', () => {
    const saved = { region: process.env.CDK_DEFAULT_REGION, account: process.env.CDK_DEFAULT_ACCOUNT };
    process.env.CDK_DEFAULT_REGION = 'eu-central-1';
    process.env.CDK_DEFAULT_ACCOUNT = '123456789012';
    let built: BuiltStack;
    try {
      built = buildStack('prod');
    } finally {
      for (const [key, value] of [
        ['CDK_DEFAULT_REGION', saved.region],
        ['CDK_DEFAULT_ACCOUNT', saved.account],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    for (const { path, json } of built.templates) {
      const text = JSON.stringify(json);
      expect({ path, region: REGION.exec(text)?.[0] ?? null }).toEqual({ path, region: null });
      expect({ path, account: text.includes('123456789012') }).toEqual({ path, account: false });
    }
    const text = JSON.stringify(built.template.toJSON());
    expect(text).toContain('"Ref":"AWS::Region"');
  });
});

describe('names that survive delete and re-create', () => {
  /** Evaluates the few intrinsics the names use, with the pseudo parameters of one stack instance. */
  function evaluate(value: unknown, stackId: string): string {
    if (typeof value === 'string') return value;
    const v = value as Record<string, unknown>;
    if (v.Ref === 'AWS::StackId') return stackId;
    if (v.Ref === 'AWS::AccountId') return '123456789012';
    if (v.Ref === 'AWS::Region') return 'eu-west-1';
    if (Array.isArray(v['Fn::Join'])) {
      const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
      return parts.map((p) => evaluate(p, stackId)).join(sep);
    }
    if (Array.isArray(v['Fn::Select'])) {
      const [index, list] = v['Fn::Select'] as [number, unknown];
      return evaluateList(list, stackId)[index]!;
    }
    throw new Error(`cannot evaluate ${JSON.stringify(value)}`);
  }
  function evaluateList(value: unknown, stackId: string): string[] {
    const split = (value as Record<string, unknown>)['Fn::Split'] as [string, unknown];
    return evaluate(split[1], stackId).split(split[0]);
  }

  const instanceA =
    'arn:aws:cloudformation:eu-west-1:123456789012:stack/CostManagement-prod/0a1b2c3d-1111-2222-3333-444455556666';
  const instanceB =
    'arn:aws:cloudformation:eu-west-1:123456789012:stack/CostManagement-prod/9f8e7d6c-aaaa-bbbb-cccc-ddddeeeeffff';

  function names(template: CfnTemplate, stackId: string) {
    const of = (type: string) => Object.values(template.Resources ?? {}).filter((r) => r.Type === type);
    const buckets = of('AWS::S3::Bucket').filter((b) => b.Properties?.BucketName !== undefined);
    const [database] = of('AWS::Glue::Database');
    const [workgroup] = of('AWS::Athena::WorkGroup');
    return {
      buckets: buckets.map((b) => evaluate(b.Properties!.BucketName, stackId)),
      database: evaluate((database!.Properties!.DatabaseInput as { Name: unknown }).Name, stackId),
      workgroup: evaluate(workgroup!.Properties!.Name, stackId),
    };
  }

  test('only the billing bucket is named, and its name, the Glue database and the workgroup carry the stack id', () => {
    const parent = prod.templates[0]!.json;
    const a = names(parent, instanceA);
    const b = names(parent, instanceB);
    expect(a).toEqual({
      buckets: ['costmanagement-prod-billing-444455556666'],
      database: 'cost_management_prod_444455556666',
      workgroup: 'cost-management-prod-444455556666',
    });
    // The same stack created again after a delete gets names of its own.
    expect(b.buckets[0]).not.toBe(a.buckets[0]);
    expect(b.database).not.toBe(a.database);
    expect(b.workgroup).not.toBe(a.workgroup);
    for (const n of [a, b]) {
      expect(n.buckets[0]).toMatch(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/);
      expect(n.database).toMatch(/^[a-z0-9_]{1,255}$/);
      expect(n.workgroup).toMatch(/^[a-zA-Z0-9._-]{1,128}$/);
    }
  });

  test('the functions read the same names the resources have', () => {
    const parent = prod.templates[0]!.json;
    const expected = names(parent, instanceA);
    const fn = Object.values(serviceFunctions(prod.template)).find(
      (f) => (f.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.ATHENA_WORKGROUP,
    )!;
    const env = (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(evaluate(env.ATHENA_WORKGROUP, instanceA)).toBe(expected.workgroup);
    expect(evaluate(env.GLUE_DATABASE, instanceA)).toBe(expected.database);
  });
});
