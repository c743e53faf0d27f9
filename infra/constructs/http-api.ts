import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, type HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ServiceAlarms } from './alarms';
import type { DeployConfig } from './deploy-config';

export interface HttpApiProps {
  config: DeployConfig;
  alarms: ServiceAlarms;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

/** The access log line of every request, as JSON. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    time: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    responseLength: '$context.responseLength',
    userAgent: '$context.identity.userAgent',
  }),
);

/**
 * The HTTP API, its `$default` stage (throttled, access-logged) and its 5xx alarm, created in the
 * scope given (the stack) under the ids `HttpApi`, `ApiAccessLogs` and `Alarm-Api5xxRate`.
 *
 * No gateway authorizer: each route verifies its request's credential first thing (the
 * `credential` middleware), so a missing header is the route's 401 {error} like any other bad
 * credential (an HTTP API authorizer with an identity source answers 401 {message} itself).
 * Routes are added by `RouteArea` (./route-area.ts).
 */
export function serviceHttpApi(scope: Construct, props: HttpApiProps): { api: HttpApi; stage: HttpStage } {
  const { config } = props;
  const api = new HttpApi(scope, 'HttpApi', {
    apiName: `cost-management-${config.stage}`,
    description: 'Cost management service HTTP API',
    createDefaultStage: false,
  });
  const accessLogs = new LogGroup(scope, 'ApiAccessLogs', {
    retention: props.logRetention,
    removalPolicy: props.logRemovalPolicy,
  });
  const stage = api.addStage('DefaultStage', {
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: config.throttleRateLimit, burstLimit: config.throttleBurstLimit },
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
  });
  Validations.of(stage).acknowledge({
    id: 'Serverless-APIGWXrayEnabled',
    reason:
      'HTTP APIs (API Gateway v2) do not support X-Ray tracing; every function behind it traces actively.',
  });
  props.alarms.api5xxRate(scope, 'Alarm-Api5xxRate', api);
  return { api, stage };
}
