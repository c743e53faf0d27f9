import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type DeployStage, readDeployConfig } from '../../infra/constructs/deploy-config';
import { PROJECT_ROOT } from '../../infra/constructs/service-function';
import { CostManagementStack, createServiceStack } from '../../infra/stack';
import type { RouteDef } from '../../shared/http/route';
import { type QueueDef, queues, type ScheduleDef, type WorkerDef } from '../../shared/queues';

/** The context `cdk synth` runs with (cdk.json feature flags), so tests see the same template. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

/** Prod settings that pass validation, as a deployer would give them with -c. */
export const PROD_CONTEXT = {
  jwtIssuer: 'https://auth.acme.test/',
  jwtAudience: 'finops-api',
  jwksUri: 'https://auth.acme.test/.well-known/jwks.json',
  sesIdentity: 'acme.test',
  mailFrom: 'FinOps <finops@acme.test>',
  slackTokenSecretName: 'finops/prod/slack-bot-token',
  appBaseUrl: 'https://finops.acme.test',
};

export interface BuiltStack {
  app: App;
  stack: CostManagementStack;
  /**
   * The parent template with every nested stack's resources folded in (see `flatten`): the whole
   * service as one template, so assertions read across stacks as if there were one.
   */
  template: Template;
  /** Each template CloudFormation receives, as synthesized: the parent's and every nested stack's. */
  templates: { path: string; json: CfnTemplate }[];
  /** The logical id an element has in `template` (nested stacks' ids carry their prefix). */
  idOf: (element: CfnElement) => string;
}

export interface CfnTemplate {
  Resources?: Record<string, CfnResource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, unknown>;
}

/** Builds one stack with bundling skipped (entries must still exist). */
export function buildStack(
  stage: DeployStage,
  opts: {
    context?: Record<string, unknown>;
    routes?: readonly RouteDef[];
    queues?: readonly QueueDef[];
    workers?: readonly WorkerDef[];
    schedules?: readonly ScheduleDef[];
  } = {},
): BuiltStack {
  const app = new App({
    context: {
      ...cdkJsonContext(),
      'aws:cdk:bundling-stacks': [],
      env: stage,
      ...(stage === 'prod' ? PROD_CONTEXT : {}),
      ...opts.context,
    },
  });
  const stack = createServiceStack(app, readDeployConfig(app.node, stage), {
    routes: opts.routes,
    queues: opts.queues,
    workers: opts.workers,
    schedules: opts.schedules,
  });
  const parent = Template.fromStack(stack).toJSON() as CfnTemplate;
  const nested = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack);
  const templates = [
    { path: stack.node.path, json: parent },
    ...nested.map((n) => ({ path: n.node.path, json: Template.fromStack(n).toJSON() as CfnTemplate })),
  ];
  const prefixOf = (s: Stack) => (s instanceof NestedStack ? nestedPrefix(s) : '');
  const flat = flatten(
    parent,
    nested.map((n, i) => ({
      prefix: nestedPrefix(n),
      parentId: stack.getLogicalId(n.nestedStackResource!),
      json: templates[i + 1]!.json,
    })),
  );
  return {
    app,
    stack,
    template: Template.fromJSON(flat as Record<string, unknown>),
    templates,
    idOf: (element) => prefixOf(Stack.of(element)) + Stack.of(element).getLogicalId(element),
  };
}

/** The prefix a nested stack's logical ids get in the flattened template. */
function nestedPrefix(nested: NestedStack): string {
  return nested.node.id.replace(/[^A-Za-z0-9]/g, '');
}

/**
 * One template holding the parent's resources and every nested stack's: nested logical ids get
 * their stack's prefix, and a nested stack's parameters are replaced by the values the parent
 * passes, so a nested function's `TABLE_NAME` is the parent table's `Ref` again.
 */
function flatten(
  parent: CfnTemplate,
  nested: { prefix: string; parentId: string; json: CfnTemplate }[],
): CfnTemplate {
  const resources = { ...parent.Resources };
  for (const { prefix, parentId, json } of nested) {
    const params = (parent.Resources?.[parentId]?.Properties?.Parameters ?? {}) as Record<string, unknown>;
    const local = new Set(Object.keys(json.Resources ?? {}));
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (!value || typeof value !== 'object') return value;
      const v = value as Record<string, unknown>;
      if (typeof v.Ref === 'string' && Object.keys(v).length === 1) {
        if (v.Ref in params) return params[v.Ref];
        if (local.has(v.Ref)) return { Ref: prefix + v.Ref };
        return v;
      }
      const getAtt = v['Fn::GetAtt'];
      if (Array.isArray(getAtt) && typeof getAtt[0] === 'string' && local.has(getAtt[0])) {
        return { 'Fn::GetAtt': [prefix + getAtt[0], ...getAtt.slice(1)] };
      }
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x)]));
    };
    for (const [id, resource] of Object.entries(json.Resources ?? {})) {
      const copy = rewrite(resource) as CfnResource;
      if (resource.DependsOn) copy.DependsOn = resource.DependsOn.map((d) => prefix + d);
      resources[prefix + id] = copy;
    }
  }
  return { ...parent, Resources: resources };
}

type CfnResource = { Type: string; Properties?: Record<string, unknown>; DependsOn?: string[] };

/** Resources of a type, keyed by logical id. */
export function resourcesOf(template: Template, type: string): Record<string, CfnResource> {
  return template.findResources(type) as Record<string, CfnResource>;
}

/** The `Ref`/`Fn::GetAtt` logical id a CloudFormation value points at, if any. */
export function refOf(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return v.Ref;
    const getAtt = v['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  }
  return undefined;
}

/** Every logical id referenced anywhere inside a value. */
export function refsIn(value: unknown, out = new Set<string>()): Set<string> {
  const ref = refOf(value);
  if (ref) out.add(ref);
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) refsIn(v, out);
  return out;
}

/** The web console's nested stack: its functions are CDK's (BucketDeployment, AwsCustomResource). */
export const WEB_CONSOLE_PREFIX = 'WebConsole';

/**
 * The service's own functions (routes, workers, schedules): every Lambda function but CDK's
 * deployment helpers in the web console's nested stack (test/infra/console-hosting.test.ts).
 */
export function serviceFunctions(template: Template): Record<string, CfnResource> {
  return Object.fromEntries(
    Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(
      ([id]) => !id.startsWith(WEB_CONSOLE_PREFIX),
    ),
  );
}

/**
 * A real synth (bundling on) into `outdir` of a dev stack with only `workers`: the asset folders of
 * their functions (the workers live in the Jobs nested stack, whose template is a file of the assembly).
 */
export function synthWorkerAssets(outdir: string, workers: WorkerDef[]): string[] {
  const app = new App({
    outdir,
    context: { ...cdkJsonContext(), env: 'dev', 'aws:cdk:enable-asset-metadata': true },
  });
  const stack = new CostManagementStack(app, 'CostManagement-dev', {
    config: readDeployConfig(app.node, 'dev'),
    routes: [],
    queues,
    workers,
    schedules: [],
  });
  app.synth();
  const template = JSON.parse(readFileSync(join(outdir, stack.jobs!.templateFile), 'utf8')) as {
    Resources: Record<
      string,
      { Type: string; Properties: { Description?: string }; Metadata?: Record<string, string> }
    >;
  };
  return Object.values(template.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description?.startsWith('Worker '))
    .map((r) => join(outdir, r.Metadata?.['aws:asset:path'] ?? 'missing'));
}
