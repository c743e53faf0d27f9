import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { DUCKDB_NODE_MODULES } from '../../infra/bundling';
import { queueUrlVariable } from '../../infra/constructs/work-queues';
import { FORECAST_ANSWER_ATTRIBUTES } from '../../shared/db/forecast-answers-repo';
import { tableDefinition } from '../../shared/db/keys';
import { ORGANIZATION_ATTRIBUTES } from '../../shared/db/organizations-repo';
import type { RouteDef } from '../../shared/http/route';
import {
  type QueueDef,
  queues,
  type ScheduleDef,
  schedules,
  type WorkerDef,
  workers,
} from '../../shared/queues';
import { routes } from '../../shared/routes';
import { FOCUS_1_3_COLUMNS, glueColumns } from '../../shared/warehouse/focus-columns';
import { type BuiltStack, buildStack, refOf, refsIn, resourcesOf, serviceFunctions } from './support';

// Two stacks, built once: prod from the real manifests, dev from samples that exercise workers,
// schedules and warehouse grants (the real worker and schedule manifests may still be empty).
const FIXTURES = '../test/infra/fixtures';

const sampleRoute: RouteDef = {
  id: 'sampleCosts',
  method: 'GET',
  path: '/_sample/costs',
  entry: `../${FIXTURES}/sample-route`,
  auth: 'member',
  summary: 'sample warehouse query',
  tag: 'Sample',
  usesWarehouse: true,
  sendsTo: ['sample-work'],
};
/** The real queues (routes of the real manifest send to them) plus one the samples use. */
const sampleQueues: QueueDef[] = [
  ...queues,
  { name: 'sample-work', visibilityTimeoutSeconds: 120, maxReceiveCount: 4 },
];
const sampleWorkers: WorkerDef[] = [
  {
    name: 'sample-ingest',
    queue: 'billing-ingest',
    entry: `${FIXTURES}/sample-worker`,
    batchSize: 1,
    timeoutSeconds: 900,
    memoryMb: 1024,
    usesWarehouse: true,
    sendsTo: ['sample-work'],
  },
  {
    name: 'sample-delivery',
    queue: 'notifications',
    entry: `${FIXTURES}/sample-worker`,
    batchSize: 20,
    timeoutSeconds: 30,
    memoryMb: 512,
    sendsEmail: true,
  },
];
const sampleSchedules: ScheduleDef[] = [
  {
    name: 'sample-sweep',
    expression: 'rate(15 minutes)',
    localIntervalSeconds: 60,
    entry: `${FIXTURES}/sample-schedule`,
    timeoutSeconds: 60,
    sendsTo: ['sample-work'],
  },
  {
    name: 'sample-daily',
    expression: 'cron(0 6 * * ? *)',
    localIntervalSeconds: 600,
    entry: `${FIXTURES}/sample-schedule`,
    timeoutSeconds: 120,
  },
];

let prod: BuiltStack;
let dev: BuiltStack;
let prodIdp: BuiltStack;
const IDP_CONTEXT = {
  idpApiBaseUrl: 'https://login.acme.test/api',
  idpTokenSecretName: 'finops/prod/idp-token',
};

beforeAll(() => {
  prod = buildStack('prod');
  prodIdp = buildStack('prod', { context: IDP_CONTEXT });
  dev = buildStack('dev', {
    routes: [...routes, sampleRoute],
    queues: sampleQueues,
    workers: sampleWorkers,
    schedules: sampleSchedules,
  });
});

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

/** Logical id of the function with this description (route key, `Worker …`, `Schedule …`). */
function functionId(template: Template, description: string): string {
  const found = Object.entries(serviceFunctions(template)).filter(
    ([, r]) => r.Properties?.Description === description,
  );
  if (found.length !== 1) throw new Error(`expected one function "${description}", found ${found.length}`);
  return found[0]![0];
}

function functionProps(template: Template, id: string): Record<string, unknown> {
  return serviceFunctions(template)[id]!.Properties!;
}

function envOf(template: Template, id: string): Record<string, unknown> {
  return (functionProps(template, id).Environment as { Variables: Record<string, unknown> }).Variables;
}

/** Every Allow statement attached to the function's role (inline policies and managed ones). */
function statementsOf(template: Template, id: string): Statement[] {
  const roleId = refOf(functionProps(template, id).Role)!;
  const out: Statement[] = [];
  for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
    const roles = (policy.Properties!.Roles as unknown[]).map(refOf);
    if (!roles.includes(roleId)) continue;
    out.push(...(policy.Properties!.PolicyDocument as { Statement: Statement[] }).Statement);
  }
  return out;
}

function actionsOf(statements: Statement[]): Set<string> {
  return new Set(statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])));
}

/** Logical ids of the queues a stack holds, split into main queues (with redrive) and the rest. */
function queueIds(template: Template) {
  const all = resourcesOf(template, 'AWS::SQS::Queue');
  const main = Object.entries(all).filter(([, q]) => q.Properties?.RedrivePolicy);
  return { all, main };
}

describe('functions', () => {
  test('one Lambda per manifest route (and one per worker and schedule), nothing else', () => {
    const fns = serviceFunctions(prod.template);
    expect(Object.keys(fns)).toHaveLength(routes.length + workers.length + schedules.length);
    for (const def of routes) functionId(prod.template, `${def.method} ${def.path}`);
  });

  test('the sample stack adds one function per sample route, worker and schedule', () => {
    const fns = serviceFunctions(dev.template);
    expect(Object.keys(fns)).toHaveLength(routes.length + 1 + sampleWorkers.length + sampleSchedules.length);
  });

  test.each([
    ['prod', () => prod],
    ['dev', () => dev],
  ])(
    '%s: every function is nodejs22.x on arm64 (x86_64 for DuckDB workers) with explicit memory, timeout, tracing and its own log group',
    (_, get) => {
      const { template, stack, idOf } = get();
      const logGroups = resourcesOf(template, 'AWS::Logs::LogGroup');
      const duckDbIds = [...stack.workerFunctions]
        .filter(([name]) => workers.find((w) => w.name === name)?.needsDuckDb)
        .map(([, fn]) => idOf(fn.fn.node.defaultChild as CfnFunction));
      for (const [id, fn] of Object.entries(serviceFunctions(template))) {
        const p = fn.Properties!;
        expect({ id, runtime: p.Runtime, arch: p.Architectures }).toEqual({
          id,
          runtime: 'nodejs22.x',
          arch: [duckDbIds.includes(id) ? 'x86_64' : 'arm64'],
        });
        expect(p.MemorySize).toEqual(expect.any(Number));
        expect(p.Timeout).toEqual(expect.any(Number));
        expect(p.TracingConfig).toEqual({ Mode: 'Active' });
        expect(p.Handler).toBe('index.handler');
        const logGroup = refOf((p.LoggingConfig as { LogGroup: unknown }).LogGroup);
        expect(logGroups[logGroup!]?.Properties?.RetentionInDays).toEqual(expect.any(Number));
      }
    },
  );

  test('DuckDB ships to billing-ingest only: on x86_64, installed beside its bundle; every other function is arm64 and DuckDB-free', () => {
    // The manifest names exactly the workers that open DuckDB in AWS.
    expect(workers.filter((w) => w.needsDuckDb).map((w) => w.name)).toEqual(['billing-ingest']);
    const all = [
      ...prod.stack.routeFunctions.values(),
      ...prod.stack.workerFunctions.values(),
      ...prod.stack.scheduleFunctions.values(),
    ];
    expect(all).toHaveLength(Object.keys(serviceFunctions(prod.template)).length);
    const ingest = prod.stack.workerFunctions.get('billing-ingest')!;
    expect(ingest.nodeModules).toEqual(DUCKDB_NODE_MODULES);
    expect(ingest.nodeModules).toEqual(['@duckdb/node-api']);
    const ingestId = functionId(prod.template, 'Worker billing-ingest (queue billing-ingest)');
    expect(functionProps(prod.template, ingestId).Architectures).toEqual(['x86_64']);
    expect(envOf(prod.template, ingestId)).toMatchObject({ HOME: '/tmp', WAREHOUSE: 'athena' });
    for (const fn of all.filter((f) => f !== ingest)) {
      expect({ entry: fn.entry, nodeModules: fn.nodeModules, arch: fn.architecture.name }).toEqual({
        entry: fn.entry,
        nodeModules: [],
        arch: 'arm64',
      });
    }
    // The sample stack's ingest worker does not ask for DuckDB, so it gets none.
    for (const fn of dev.stack.workerFunctions.values()) expect(fn.nodeModules).toEqual([]);
  });

  test('IdP invitations: only the sync route and the team-operations worker get the API URL and read the token secret, when deployed', () => {
    const syncRoutes = routes.filter((r) => r.invitesUsers);
    expect(syncRoutes.map((r) => r.id)).toEqual(['syncTeam']);
    expect(workers.filter((w) => w.invitesUsers).map((w) => w.name)).toEqual(['team-operations']);
    const idp = prodIdp;
    const syncId = functionId(idp.template, 'POST /iac/teams/{id}/SYNC');
    const workerId = functionId(idp.template, 'Worker team-operations (queue team-operations)');
    for (const id of [syncId, workerId]) {
      const env = envOf(idp.template, id);
      expect(env.IDP_API_BASE_URL).toBe('https://login.acme.test/api');
      expect(JSON.stringify(env.IDP_API_TOKEN_SECRET_ARN)).toContain(':secret:finops/prod/idp-token');
      expect(env).not.toHaveProperty('IDP_API_TOKEN');
      const reads = statementsOf(idp.template, id).filter((st) =>
        actionsOf([st]).has('secretsmanager:GetSecretValue'),
      );
      expect(reads.map((st) => JSON.stringify(st.Resource))).toEqual([
        expect.stringContaining(':secret:finops/prod/idp-token-??????'),
      ]);
    }
    for (const id of Object.keys(serviceFunctions(idp.template))) {
      if (id === syncId || id === workerId) continue;
      const vars = envOf(idp.template, id);
      expect({ id, url: vars.IDP_API_BASE_URL, arn: vars.IDP_API_TOKEN_SECRET_ARN }).toEqual({
        id,
        url: undefined,
        arn: undefined,
      });
      const secretReads = statementsOf(idp.template, id)
        .filter((st) => actionsOf([st]).has('secretsmanager:GetSecretValue'))
        .map((st) => JSON.stringify(st.Resource));
      expect(secretReads.filter((r) => r.includes('idp-token'))).toEqual([]);
    }
    // Without the context the sync function deploys without them (a sync that must invite is a 503).
    const plain = envOf(prod.template, functionId(prod.template, 'POST /iac/teams/{id}/SYNC'));
    expect(plain).not.toHaveProperty('IDP_API_BASE_URL');
    expect(plain).not.toHaveProperty('IDP_API_TOKEN_SECRET_ARN');
    // A URL alone: the URL, and no secret grant.
    const urlOnly = buildStack('dev', { context: { idpApiBaseUrl: 'https://login.example.test' } });
    const urlOnlyId = functionId(urlOnly.template, 'POST /iac/teams/{id}/SYNC');
    expect(envOf(urlOnly.template, urlOnlyId)).toMatchObject({
      IDP_API_BASE_URL: 'https://login.example.test',
    });
    expect(envOf(urlOnly.template, urlOnlyId)).not.toHaveProperty('IDP_API_TOKEN_SECRET_ARN');
  });

  test('IdP API keys: every route function gets the introspection endpoint and reads its client secret; workers do not', () => {
    const built = buildStack('prod', {
      context: {
        apiKeyIntrospectionUrl: 'https://login.acme.test/oauth2/introspect',
        apiKeyIntrospectionClientId: 'finops-api',
        apiKeyIntrospectionSecretName: 'finops/prod/introspection-secret',
        apiKeyIntrospectionCacheSeconds: '30',
      },
    });
    const routeIds = routes.map((r) => functionId(built.template, `${r.method} ${r.path}`));
    expect(routeIds).toHaveLength(routes.length);
    for (const id of routeIds) {
      const env = envOf(built.template, id);
      expect({
        id,
        url: env.API_KEY_INTROSPECTION_URL,
        client: env.API_KEY_INTROSPECTION_CLIENT_ID,
        cache: env.API_KEY_INTROSPECTION_CACHE_SECONDS,
        secret: env.API_KEY_INTROSPECTION_SECRET,
      }).toEqual({
        id,
        url: 'https://login.acme.test/oauth2/introspect',
        client: 'finops-api',
        cache: '30',
        secret: undefined,
      });
      expect(JSON.stringify(env.API_KEY_INTROSPECTION_SECRET_ARN)).toContain(
        ':secret:finops/prod/introspection-secret',
      );
      const reads = statementsOf(built.template, id)
        .filter((st) => actionsOf([st]).has('secretsmanager:GetSecretValue'))
        .map((st) => JSON.stringify(st.Resource));
      expect(reads.filter((r) => r.includes('introspection-secret'))).toHaveLength(1);
    }
    for (const id of Object.keys(serviceFunctions(built.template))) {
      if (routeIds.includes(id)) continue;
      expect(envOf(built.template, id)).not.toHaveProperty('API_KEY_INTROSPECTION_URL');
    }
    // Without the context no function gets any of it.
    for (const id of Object.keys(serviceFunctions(prod.template)))
      expect(
        Object.keys(envOf(prod.template, id)).filter((k) => k.startsWith('API_KEY_INTROSPECTION')),
      ).toEqual([]);
  });

  test('memory and timeout come from the manifest, with 256 MB / 10 s defaults', () => {
    for (const def of routes) {
      const p = functionProps(prod.template, functionId(prod.template, `${def.method} ${def.path}`));
      expect([p.MemorySize, p.Timeout]).toEqual([def.memoryMb ?? 256, def.timeoutSeconds ?? 10]);
    }
    const ingest = functionProps(
      dev.template,
      functionId(dev.template, 'Worker sample-ingest (queue billing-ingest)'),
    );
    expect([ingest.MemorySize, ingest.Timeout]).toEqual([1024, 900]);
  });

  test('log retention is longer in prod, and prod keeps log groups on delete', () => {
    const retention = (t: Template) =>
      new Set(Object.values(resourcesOf(t, 'AWS::Logs::LogGroup')).map((g) => g.Properties!.RetentionInDays));
    expect([...retention(prod.template)]).toEqual([90]);
    expect([...retention(dev.template)]).toEqual([14]);
    prod.template.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Retain' });
  });

  test('every function gets the configuration variables of shared/config.ts', () => {
    for (const id of Object.keys(serviceFunctions(prod.template))) {
      const env = envOf(prod.template, id);
      expect(env).toMatchObject({
        STAGE: 'prod',
        TABLE_NAME: expect.anything(),
        JWT_ISSUER: 'https://auth.acme.test/',
        JWT_AUDIENCE: 'finops-api',
        JWKS_URI: 'https://auth.acme.test/.well-known/jwks.json',
        JWT_ORG_CLAIM: 'org_id',
        JWT_ROLE_CLAIM: 'org_role',
        SLACK_API_BASE_URL: 'https://slack.com/api',
        TEAMS_ALLOWED_HOSTS: '.logic.azure.com,.api.powerplatform.com',
        MAIL_FROM: 'FinOps <finops@acme.test>',
        APP_BASE_URL: 'https://finops.acme.test',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      });
      expect(refOf(env.TABLE_NAME)).toBe(
        Object.keys(resourcesOf(prod.template, 'AWS::DynamoDB::GlobalTable'))[0],
      );
    }
  });

  test('the dev stack uses obvious placeholders', () => {
    const env = envOf(dev.template, functionId(dev.template, 'GET /reports/{id}'));
    expect(env).toMatchObject({
      STAGE: 'dev',
      JWT_ISSUER: 'https://idp.example.com/',
      MAIL_FROM: expect.stringContaining('example.com'),
    });
  });
});

describe('least privilege', () => {
  test('GET routes read the table (and may only set an API key’s lastUsedAt, register an organisation or keep a forecast); other routes also write; nobody may Scan', () => {
    const write = ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    for (const def of routes) {
      const statements = statementsOf(prod.template, functionId(prod.template, `${def.method} ${def.path}`));
      const actions = actionsOf(statements);
      expect(actions.has('dynamodb:GetItem')).toBe(true);
      expect(actions.has('dynamodb:Query')).toBe(true);
      expect(actions.has('dynamodb:Scan')).toBe(false);
      expect(actions.has('dynamodb:UpdateItem')).toBe(true);
      for (const a of write)
        expect({ route: def.id, action: a, granted: actions.has(a) }).toEqual({
          route: def.id,
          action: a,
          granted: def.method !== 'GET',
        });
      if (def.method !== 'GET') continue;
      const forecastWrites: unknown[] = [];
      for (const update of statements.filter((st) => actionsOf([st]).has('dynamodb:UpdateItem'))) {
        const condition = (update as Statement & { Condition?: Record<string, unknown> }).Condition;
        // An API key's lastUsedAt, the organisation record of a first admin sign-in, or (a route
        // that runs the query engine) a kept forecast in the forecast partitions; nothing else.
        const attributes = condition?.['ForAllValues:StringEquals'];
        expect([
          { 'dynamodb:Attributes': [tableDefinition.partitionKey, tableDefinition.sortKey, 'lastUsedAt'] },
          {
            'dynamodb:Attributes': [
              tableDefinition.partitionKey,
              tableDefinition.sortKey,
              ...ORGANIZATION_ATTRIBUTES,
            ],
          },
          {
            'dynamodb:Attributes': [
              tableDefinition.partitionKey,
              tableDefinition.sortKey,
              ...FORECAST_ANSWER_ATTRIBUTES,
            ],
          },
        ]).toContainEqual(attributes);
        if (JSON.stringify(attributes).includes('"data"')) {
          forecastWrites.push(condition?.['ForAllValues:StringLike']);
          expect(condition?.['ForAllValues:StringLike']).toEqual({ 'dynamodb:LeadingKeys': ['FORECAST#*'] });
        }
      }
      expect({ route: def.id, forecastWrites: forecastWrites.length }).toEqual({
        route: def.id,
        forecastWrites: def.usesWarehouse ? 1 : 0,
      });
    }
  });

  test('table grants name the table and each index, never index/*', () => {
    const id = functionId(prod.template, 'GET /reports/{id}');
    const tableStatement = statementsOf(prod.template, id).find((s) =>
      actionsOf([s]).has('dynamodb:GetItem'),
    )!;
    const rendered = JSON.stringify(tableStatement.Resource);
    for (const index of tableDefinition.indexes) expect(rendered).toContain(`/index/${index.name}`);
    expect(rendered).not.toContain('/index/*');
  });

  test('a GET route reads the table and may only set lastUsedAt and register an organisation', () => {
    const id = functionId(prod.template, 'GET /reports/{id}');
    const statements = statementsOf(prod.template, id);
    expect([...actionsOf(statements)].sort()).toEqual(
      [
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ].sort(),
    );
    const updates = statements.filter((s) => actionsOf([s]).has('dynamodb:UpdateItem')) as (Statement & {
      Condition: Record<string, Record<string, unknown>>;
    })[];
    for (const update of updates) expect(actionsOf([update])).toEqual(new Set(['dynamodb:UpdateItem']));
    expect(updates.map((u) => u.Condition['ForAllValues:StringEquals'])).toEqual([
      { 'dynamodb:Attributes': [tableDefinition.partitionKey, tableDefinition.sortKey, 'lastUsedAt'] },
      {
        'dynamodb:Attributes': [
          tableDefinition.partitionKey,
          tableDefinition.sortKey,
          ...ORGANIZATION_ATTRIBUTES,
        ],
      },
    ]);
  });

  test('sendsTo gives a send grant on exactly that queue and its URL variable', () => {
    const { all } = queueIds(dev.template);
    const id = functionId(dev.template, 'Schedule sample-sweep (rate(15 minutes))');
    const env = envOf(dev.template, id);
    const urlRef = refOf(env[queueUrlVariable('sample-work')]);
    expect(all[urlRef!]).toBeDefined();
    const send = statementsOf(dev.template, id).filter(
      (s) => actionsOf([s]).has('sqs:SendMessage') && !refOf(s.Resource)?.includes('ScheduleFailures'),
    );
    expect(send).toHaveLength(1);
    expect(refsIn(send[0]!.Resource)).toEqual(new Set([urlRef]));
    expect(Object.keys(env).filter((k) => k.startsWith('QUEUE_URL_'))).toEqual([
      queueUrlVariable('sample-work'),
    ]);
  });

  test('sendsEmail gives SES send on the configured identity only', () => {
    const id = functionId(dev.template, 'Worker sample-delivery (queue notifications)');
    const ses = statementsOf(dev.template, id).find((s) => actionsOf([s]).has('ses:SendEmail'))!;
    expect(actionsOf([ses])).toEqual(new Set(['ses:SendEmail', 'ses:SendRawEmail']));
    expect(JSON.stringify(ses.Resource)).toContain(':identity/example.com');
    const other = functionId(dev.template, 'Worker sample-ingest (queue billing-ingest)');
    expect(actionsOf(statementsOf(dev.template, other)).has('ses:SendEmail')).toBe(false);
  });

  test('the notifications worker reads the Slack token secret and gets its ARN', () => {
    const id = functionId(dev.template, 'Worker sample-delivery (queue notifications)');
    expect(JSON.stringify(envOf(dev.template, id).SLACK_TOKEN_SECRET_ARN)).toContain(
      'secret:cost-management/dev/slack-bot-token',
    );
    expect(actionsOf(statementsOf(dev.template, id)).has('secretsmanager:GetSecretValue')).toBe(true);
    const route = functionId(dev.template, 'GET /reports/{id}');
    expect(envOf(dev.template, route).SLACK_TOKEN_SECRET_ARN).toBeUndefined();
    expect(actionsOf(statementsOf(dev.template, route)).has('secretsmanager:GetSecretValue')).toBe(false);
  });

  test('usesWarehouse: Athena environment and grants; routes query, workers also ingest', () => {
    const route = functionId(dev.template, 'GET /_sample/costs');
    const worker = functionId(dev.template, 'Worker sample-ingest (queue billing-ingest)');
    const [workgroup] = Object.values(resourcesOf(dev.template, 'AWS::Athena::WorkGroup'));
    const [database] = Object.values(resourcesOf(dev.template, 'AWS::Glue::Database'));
    for (const id of [route, worker]) {
      expect(envOf(dev.template, id)).toMatchObject({
        WAREHOUSE: 'athena',
        ATHENA_WORKGROUP: workgroup!.Properties!.Name,
        GLUE_DATABASE: (database!.Properties!.DatabaseInput as { Name: unknown }).Name,
        GLUE_TABLE: 'focus_billing',
        BILLING_BUCKET: expect.anything(),
      });
      const actions = actionsOf(statementsOf(dev.template, id));
      for (const a of [
        'athena:StartQueryExecution',
        'athena:GetQueryResults',
        'glue:GetTable',
        's3:GetObject',
      ]) {
        expect(actions.has(a)).toBe(true);
      }
      // Both Glue tables are readable: the billing rows and the Contract Commitment dataset, and
      // the billing bucket's keys may be listed (an organisation's contract objects).
      const glue = JSON.stringify(
        statementsOf(dev.template, id).filter((st) => actionsOf([st]).has('glue:GetTable')),
      );
      expect(glue).toContain('/focus_billing');
      expect(glue).toContain('/focus_contract_commitments');
      expect(actions.has('s3:ListBucket')).toBe(true);
    }
    expect(actionsOf(statementsOf(dev.template, route)).has('s3:PutObject')).toBe(true); // results only
    const curatedWrites = (id: string) =>
      statementsOf(dev.template, id).filter(
        (s) => actionsOf([s]).has('s3:PutObject') && JSON.stringify(s.Resource).includes('/curated/*'),
      );
    expect(curatedWrites(route)).toHaveLength(0);
    expect(curatedWrites(worker)).toHaveLength(1);
    const plain = functionId(dev.template, 'GET /reports/{id}');
    expect(envOf(dev.template, plain).WAREHOUSE).toBeUndefined();
    expect(actionsOf(statementsOf(dev.template, plain)).has('athena:StartQueryExecution')).toBe(false);
  });
});

describe('HTTP API', () => {
  test('no gateway authorizer: every route is open at the gateway and verifies its credential itself', () => {
    prod.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    const apiRoutes = Object.values(resourcesOf(prod.template, 'AWS::ApiGatewayV2::Route'));
    expect(apiRoutes).toHaveLength(routes.length);
    for (const r of apiRoutes) expect(r.Properties!.AuthorizationType ?? 'NONE').toBe('NONE');
  });

  test('the stage logs access as JSON and sets default throttling', () => {
    prod.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
      AccessLogSettings: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
    dev.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });
});

describe('table', () => {
  test('keys, indexes and TTL come from tableDefinition; on-demand with PITR', () => {
    const attributes = [
      tableDefinition.partitionKey,
      tableDefinition.sortKey,
      ...tableDefinition.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
    ];
    prod.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayEquals(
        [...new Set(attributes)].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      ),
      GlobalSecondaryIndexes: tableDefinition.indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ],
    });
  });

  test('prod protects the table from deletion and retains it; dev does neither', () => {
    prod.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    dev.template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    dev.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });
});

describe('queues, workers and schedules', () => {
  test.each([
    ['prod (real manifest)', () => prod, queues],
    ['dev (sample manifest)', () => dev, sampleQueues],
  ])(
    '%s: every queue has its own encrypted, TLS-only DLQ with the manifest receive count',
    (_, get, defs) => {
      const { template } = get();
      const { all, main } = queueIds(template);
      const mainOfManifest = main.filter(([id]) => id.startsWith('Queues'));
      expect(mainOfManifest).toHaveLength(defs.length);
      const dlqs = new Set<string>();
      for (const def of defs) {
        const entry = mainOfManifest.find(
          ([id]) => id.startsWith(`Queues${def.name.replaceAll('-', '')}`) && !id.includes('dlq'),
        );
        expect(entry).toBeDefined();
        const [, queue] = entry!;
        expect(queue.Properties!.VisibilityTimeout).toBe(def.visibilityTimeoutSeconds);
        const redrive = queue.Properties!.RedrivePolicy as {
          deadLetterTargetArn: unknown;
          maxReceiveCount: number;
        };
        expect(redrive.maxReceiveCount).toBe(def.maxReceiveCount);
        const dlq = refOf(redrive.deadLetterTargetArn)!;
        expect(all[dlq]).toBeDefined();
        dlqs.add(dlq);
      }
      expect(dlqs.size).toBe(defs.length);
      for (const q of Object.values(all)) expect(q.Properties!.SqsManagedSseEnabled).toBe(true);
      const policies = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy'));
      const tlsOnly = new Set(
        policies
          .filter((p) =>
            JSON.stringify(p.Properties!.PolicyDocument).includes('"aws:SecureTransport":"false"'),
          )
          .flatMap((p) => [...refsIn(p.Properties!.Queues)]),
      );
      for (const id of Object.keys(all)) expect(tlsOnly.has(id)).toBe(true);
    },
  );

  test('workers get an SQS event source that reports batch item failures, with the manifest batch size', () => {
    const mappings = Object.values(resourcesOf(dev.template, 'AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(sampleWorkers.length);
    for (const def of sampleWorkers) {
      const fnId = functionId(dev.template, `Worker ${def.name} (queue ${def.queue})`);
      const mapping = mappings.find((m) => refOf(m.Properties!.FunctionName) === fnId);
      expect(mapping?.Properties).toMatchObject({
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: def.batchSize,
      });
    }
    expect(
      mappings.find((m) => m.Properties!.BatchSize === 20)?.Properties?.MaximumBatchingWindowInSeconds,
    ).toBe(1);
  });

  test('prod: one event source per real worker and one rule per real schedule', () => {
    expect(Object.keys(resourcesOf(prod.template, 'AWS::Lambda::EventSourceMapping'))).toHaveLength(
      workers.length,
    );
    const expressions = Object.values(resourcesOf(prod.template, 'AWS::Events::Rule')).map(
      (r) => r.Properties!.ScheduleExpression,
    );
    expect(expressions.sort()).toEqual(schedules.map((s) => s.expression).sort());
  });

  test('event source mappings in every stack report batch item failures', () => {
    for (const t of [prod.template, dev.template]) {
      for (const m of Object.values(resourcesOf(t, 'AWS::Lambda::EventSourceMapping'))) {
        expect(m.Properties!.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      }
    }
  });

  test('each schedule is an EventBridge rule targeting its function, with retries and a DLQ', () => {
    const rules = Object.values(resourcesOf(dev.template, 'AWS::Events::Rule'));
    expect(rules).toHaveLength(sampleSchedules.length);
    for (const def of sampleSchedules) {
      const fnId = functionId(dev.template, `Schedule ${def.name} (${def.expression})`);
      const rule = rules.find((r) => r.Properties!.ScheduleExpression === def.expression);
      expect(rule).toBeDefined();
      const [target] = rule!.Properties!.Targets as Array<Record<string, unknown>>;
      expect(refOf(target!.Arn)).toBe(fnId);
      expect(target).toMatchObject({
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
        DeadLetterConfig: { Arn: expect.anything() },
      });
      expect(functionProps(dev.template, fnId).DeadLetterConfig).toEqual({ TargetArn: expect.anything() });
    }
  });

  test('a worker whose timeout exceeds its queue visibility timeout fails synth', () => {
    expect(() =>
      buildStack('dev', {
        queues: sampleQueues,
        workers: [{ ...sampleWorkers[1]!, timeoutSeconds: 600 }],
        schedules: [],
      }),
    ).toThrow(/hides messages for 180 s, less than the worker's 600 s timeout/);
  });

  test('real workers: queue visibility is at least 6× the worker timeout', () => {
    for (const w of workers) {
      const q = queues.find((x) => x.name === w.queue);
      expect({
        worker: w.name,
        ok: q !== undefined && q.visibilityTimeoutSeconds >= 6 * w.timeoutSeconds,
      }).toEqual({
        worker: w.name,
        ok: true,
      });
    }
  });
});

describe('warehouse', () => {
  test('billing bucket: encrypted, private, TLS-only, versioned, access-logged', () => {
    dev.template.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: Match.anyValue(),
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'billing/' }),
    });
    for (const policy of Object.values(resourcesOf(dev.template, 'AWS::S3::BucketPolicy'))) {
      expect(JSON.stringify(policy.Properties!.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
  });

  test('uploads/ notifies the billing-ingest queue, which allows only that bucket', () => {
    const buckets = resourcesOf(dev.template, 'AWS::S3::Bucket');
    const [billingId, billing] = Object.entries(buckets).find(
      ([, b]) => b.Properties!.NotificationConfiguration,
    )!;
    const config = billing.Properties!.NotificationConfiguration as {
      QueueConfigurations: Array<{ Event: string; Queue: unknown; Filter: unknown }>;
    };
    expect(config.QueueConfigurations).toHaveLength(1);
    const [notification] = config.QueueConfigurations;
    expect(notification!.Event).toBe('s3:ObjectCreated:*');
    expect(notification!.Filter).toEqual({ S3Key: { Rules: [{ Name: 'prefix', Value: 'uploads/' }] } });
    const ingestQueueId = refOf(notification!.Queue)!;
    expect(ingestQueueId).toMatch(/^Queuesbillingingest/);
    const policy = Object.entries(resourcesOf(dev.template, 'AWS::SQS::QueuePolicy')).find(([, p]) =>
      refsIn(p.Properties!.Queues).has(ingestQueueId),
    )!;
    expect(JSON.stringify(policy[1].Properties!.PolicyDocument)).toContain('s3.amazonaws.com');
    expect(buckets[billingId]!.DependsOn).toEqual(expect.arrayContaining([policy[0]]));
    // No custom resource is needed for the notification.
    expect(Object.keys(resourcesOf(dev.template, 'Custom::S3BucketNotifications'))).toHaveLength(0);
  });

  test('Glue table: FOCUS columns as Parquet under curated/, partitioned by org and month', () => {
    const tables = Object.values(resourcesOf(dev.template, 'AWS::Glue::Table'));
    expect(tables).toHaveLength(2);
    const billing = tables.find(
      (t) => (t.Properties!.TableInput as { Name: string }).Name === 'focus_billing',
    );
    const input = billing!.Properties!.TableInput as {
      Name: string;
      PartitionKeys: Array<{ Name: string }>;
      Parameters: Record<string, string>;
      StorageDescriptor: {
        Columns: Array<{ Name: string; Type: string }>;
        Location: unknown;
        SerdeInfo: unknown;
      };
    };
    expect(input.Name).toBe('focus_billing');
    expect(input.PartitionKeys.map((k) => k.Name)).toEqual(['org_id', 'billing_month']);
    const columns = new Map(input.StorageDescriptor.Columns.map((c) => [c.Name, c.Type]));
    for (const name of [
      'BilledCost',
      'EffectiveCost',
      'ListCost',
      'ContractedCost',
      'ChargePeriodStart',
      'ChargePeriodEnd',
      'ProviderName',
      'ServiceName',
      'ServiceCategory',
      'RegionId',
      'SubAccountId',
      'ResourceId',
      'ResourceType',
      'ChargeCategory',
      'ConsumedUnit',
      'ConsumedQuantity',
      'BillingCurrency',
      'Tags',
    ]) {
      expect(columns.has(name.toLowerCase())).toBe(true);
    }
    // FOCUS 1.3: the provider, split cost allocation and ContractApplied columns (JSON ones as text).
    for (const name of FOCUS_1_3_COLUMNS) expect(columns.get(name.toLowerCase())).toBe('string');
    expect(input.StorageDescriptor.Columns).toEqual(
      glueColumns().map((c) => ({ Name: c.name, Type: c.type })),
    );
    expect(columns.has('org_id')).toBe(false); // partition columns are not data columns
    expect(columns.get('billedcost')).toBe('double');
    expect(columns.get('chargeperiodstart')).toBe('timestamp');
    expect(JSON.stringify(input.StorageDescriptor.Location)).toContain('/curated/');
    expect(JSON.stringify(input.StorageDescriptor.SerdeInfo)).toContain('ParquetHiveSerDe');
    expect(input.Parameters).toMatchObject({
      classification: 'parquet',
      'projection.enabled': 'true',
      'projection.org_id.type': 'injected',
      'projection.billing_month.format': 'yyyy-MM',
    });
  });

  test('Glue table of the FOCUS 1.3 Contract Commitment dataset: Parquet per organisation, outside the billing partitions', () => {
    const table = Object.values(resourcesOf(dev.template, 'AWS::Glue::Table')).find(
      (t) => (t.Properties!.TableInput as { Name: string }).Name === 'focus_contract_commitments',
    );
    const input = table!.Properties!.TableInput as {
      PartitionKeys: Array<{ Name: string }>;
      Parameters: Record<string, string>;
      StorageDescriptor: { Columns: Array<{ Name: string; Type: string }>; Location: unknown };
    };
    expect(input.PartitionKeys.map((k) => k.Name)).toEqual(['org_id']);
    expect(input.StorageDescriptor.Columns).toEqual([
      { Name: 'contractcommitmentid', Type: 'string' },
      { Name: 'contractid', Type: 'string' },
      { Name: 'contractperiodstart', Type: 'timestamp' },
      { Name: 'contractperiodend', Type: 'timestamp' },
      { Name: 'contractcommitmentperiodstart', Type: 'timestamp' },
      { Name: 'contractcommitmentperiodend', Type: 'timestamp' },
      { Name: 'contractcommitmentdescription', Type: 'string' },
      { Name: 'contractcommitmenttype', Type: 'string' },
      { Name: 'contractcommitmentcategory', Type: 'string' },
      { Name: 'contractcommitmentunit', Type: 'string' },
      { Name: 'contractcommitmentquantity', Type: 'double' },
      { Name: 'contractcommitmentcost', Type: 'double' },
      { Name: 'billingcurrency', Type: 'string' },
      { Name: 'source_file', Type: 'string' },
      { Name: 'ingested_at', Type: 'timestamp' },
    ]);
    expect(JSON.stringify(input.StorageDescriptor.Location)).toContain('/curated/contract-commitments/');
    expect(input.Parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.org_id.type': 'injected',
    });
    // The billing table's projection reads curated/org_id=…/billing_month=…/ only: never these objects.
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
      `/curated/contract-commitments/org_id=\${org_id}/`,
    );
  });

  test('Athena workgroup enforces its configuration and encrypts results', () => {
    dev.template.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: Match.anyValue(),
      WorkGroupConfiguration: Match.objectLike({
        EnforceWorkGroupConfiguration: true,
        ResultConfiguration: {
          OutputLocation: Match.anyValue(),
          EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
        },
      }),
    });
  });
});

describe('cdk-nag', () => {
  test.each([
    ['prod', () => prod],
    ['dev with sample workers and schedules', () => dev],
    ['prod with the IdP invitation API and token secret', () => prodIdp],
  ])('%s: AwsSolutions and Serverless checks report nothing unacknowledged', (_, get) => {
    const { stack } = get();
    const findings = [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
      pack.validateScope(stack).violations.map((v) => ({
        rule: v.ruleName,
        severity: v.severity,
        resources: v.violatingResources.map((r) => r.constructPath),
      })),
    );
    expect(findings).toEqual([]);
  });

  test('every acknowledgement carries a written reason', () => {
    const acks: Array<{ id: string; reason: unknown }> = [];
    for (const c of dev.stack.node.findAll()) {
      for (const entry of c.node.metadata) {
        if (entry.type !== 'aws:cdk:acknowledged-rules') continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, unknown>))
          acks.push({ id, reason });
      }
    }
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(typeof ack.reason === 'string' && ack.reason.length > 40).toBe(true);
  });
});
