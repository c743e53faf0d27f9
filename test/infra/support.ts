import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type DeployStage, readDeployConfig } from '../../infra/constructs/deploy-config';
import { PROJECT_ROOT } from '../../infra/constructs/service-function';
import { CostManagementStack } from '../../infra/stack';
import type { RouteDef } from '../../shared/http/route';
import type { QueueDef, ScheduleDef, WorkerDef } from '../../shared/queues';

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
  template: Template;
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
  const stack = new CostManagementStack(app, `CostManagement-${stage}`, {
    config: readDeployConfig(app.node, stage),
    routes: opts.routes,
    queues: opts.queues,
    workers: opts.workers,
    schedules: opts.schedules,
  });
  return { app, stack, template: Template.fromStack(stack) };
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
