import { Duration, NestedStack, Validations } from 'aws-cdk-lib';
import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { FORECAST_ANSWER_ATTRIBUTES } from '../../shared/db/forecast-answers-repo';
import { FORECAST_PARTITION_PATTERN, tableDefinition } from '../../shared/db/keys';
import { ORGANIZATION_ATTRIBUTES } from '../../shared/db/organizations-repo';
import type { RouteDef } from '../../shared/http/route';
import type { ServiceAlarms } from './alarms';
import { DEFAULT_TIMEOUT_SECONDS, type ServiceFunction } from './service-function';
import type { ServiceFunctions } from './service-functions';

/**
 * The only attribute a read-only (GET) route writes: when an API key was last used (at most hourly,
 * `recordApiKeyUse`), since every route verifies its request's credential itself.
 */
export const API_KEY_LAST_USED_ATTRIBUTE = 'lastUsedAt';
/**
 * How long the HTTP API waits for a route's function (29 s, the most CDK accepts for an HTTP API). No route
 * function may run longer: the caller would get a 503 while the function runs on. Work that can
 * take longer goes to a queue, and the route answers with something to poll.
 */
export const INTEGRATION_TIMEOUT = Duration.seconds(29);

const ROUTE_AUTH_REASON =
  'Every route verifies the request’s credential itself, first thing (session JWT through aws-jwt-verify ' +
  'with a cached JWKS, or an ak_ API key by its hash), so that every refusal is the spec’s 401 {error}; ' +
  'a gateway authorizer would answer a missing header with its own 401 {message} (docs/security.md).';

/** Why no function invoked synchronously (a route, an SQS worker) has a Lambda DLQ. */
export const SYNC_INVOCATION_DLQ_REASON =
  'Invoked synchronously (API Gateway, or the SQS event source): a Lambda DLQ only receives failed ' +
  'asynchronous invocations, so it would stay empty. Failed SQS messages go to the queue’s own DLQ.';

/**
 * The area of a route: the folder of its handler under `functions/http/` (`admin/sync-team` →
 * `admin`). Each area's functions, integrations and routes live in a nested stack of their own, so
 * the resource count of one template grows with one area, not with the whole API.
 */
export function routeArea(def: Pick<RouteDef, 'entry'>): string {
  const folder = def.entry.split('/').find((part) => part !== '.' && part !== '..') ?? '';
  const words = folder.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (words.length === 0) throw new Error(`Route entry ${def.entry} has no area folder`);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** The manifest's routes by area, in manifest order; a synth error on a route declared twice or too slow. */
export function routesByArea(routes: readonly RouteDef[]): Map<string, RouteDef[]> {
  const seenRouteKeys = new Set<string>();
  const seenIds = new Set<string>();
  const out = new Map<string, RouteDef[]>();
  for (const def of routes) {
    const routeKey = `${def.method} ${def.path}`;
    if (seenRouteKeys.has(routeKey)) throw new Error(`Route ${routeKey} is declared twice`);
    if (seenIds.has(def.id)) throw new Error(`Route id ${def.id} is declared twice`);
    seenRouteKeys.add(routeKey);
    seenIds.add(def.id);
    const timeoutSeconds = def.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    if (timeoutSeconds > INTEGRATION_TIMEOUT.toSeconds()) {
      throw new Error(
        `Route ${routeKey}: a ${timeoutSeconds} s timeout exceeds the HTTP API's ${INTEGRATION_TIMEOUT.toSeconds()} s ` +
          'integration timeout (the caller would get a 503 while the function runs on): hand long work to a queue',
      );
    }
  }
  for (const def of routes) {
    const area = routeArea(def);
    out.set(area, [...(out.get(area) ?? []), def]);
  }
  return out;
}

export interface RouteAreaProps {
  stage: string;
  area: string;
  routes: readonly RouteDef[];
  api: HttpApi;
  table: TableV2;
  functions: ServiceFunctions;
  alarms: ServiceAlarms;
}

/**
 * One route area (`routeArea`) as a nested stack `Routes-<Area>`: per manifest route a function
 * (`Route-<id>`), its integration and route (`Route-<id>-Http`) and its alarm.
 */
export class RouteArea extends NestedStack {
  /** The function of each route, by route id. */
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, props: RouteAreaProps) {
    super(scope, `Routes-${props.area}`, {
      description: `Cost management service (${props.stage}): the ${props.area} routes`,
    });
    for (const def of props.routes) this.functions.set(def.id, this.addRoute(def, props));
  }

  private addRoute(def: RouteDef, props: RouteAreaProps): ServiceFunction {
    const { table } = props;
    const routeKey = `${def.method} ${def.path}`;
    const fn = props.functions.create(this, `Route-${def.id}`, {
      entry: `functions/http/${def.entry}.ts`,
      description: routeKey,
      memoryMb: def.memoryMb,
      timeoutSeconds: def.timeoutSeconds,
      needs: {
        table: def.method === 'GET' ? 'read' : 'readwrite',
        sendsTo: def.sendsTo,
        warehouse: def.usesWarehouse ? 'query' : undefined,
        invitesUsers: def.invitesUsers,
      },
    });
    Validations.of(fn).acknowledge({ id: 'Serverless-LambdaDLQ', reason: SYNC_INVOCATION_DLQ_REASON });
    props.functions.acceptIdpApiKeys(fn);
    if (def.method === 'GET') {
      const keys = [tableDefinition.partitionKey, tableDefinition.sortKey];
      // A read-only route still records when an API key was last used, and writes nothing else.
      fn.grantAttributeUpdate(table, keys, [API_KEY_LAST_USED_ATTRIBUTE]);
      // The first session JWT of an org admin registers its organisation (`registerOrganization`,
      // from the route's `credential` step): a conditional UpdateItem of that record's attributes.
      fn.grantAttributeUpdate(table, keys, ORGANIZATION_ATTRIBUTES);
      // One that runs the query engine keeps the forecasts it computes (docs/queries.md,
      // "Forecast"): an update of the answer's attributes, in the forecast partitions only.
      if (def.usesWarehouse)
        fn.grantAttributeUpdate(table, keys, FORECAST_ANSWER_ATTRIBUTES, [FORECAST_PARTITION_PATTERN]);
    }
    const httpRoute = new HttpRoute(this, `Route-${def.id}-Http`, {
      httpApi: props.api,
      routeKey: HttpRouteKey.with(def.path, HttpMethod[def.method]),
      integration: new HttpLambdaIntegration(`Integration-${def.id}`, fn.fn, {
        timeout: INTEGRATION_TIMEOUT,
      }),
    });
    Validations.of(httpRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: ROUTE_AUTH_REASON });
    props.alarms.functionAlarm(this, `Route-${def.id}-Alarm`, fn.fn, `Route ${routeKey}`);
    return fn;
  }
}
