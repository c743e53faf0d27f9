/**
 * Service configuration, read from the environment once and validated at start-up.
 * Local defaults make `npm start` and the tests work without any setup; in AWS the CDK stack
 * sets every variable explicitly.
 */
export interface Config {
  stage: string;
  region: string;
  tableName: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  sesEndpoint?: string;
  s3Endpoint?: string;
  queueUrls: Record<string, string>;
  jwt: { issuer: string; audience: string; jwksUri: string; orgClaim: string; roleClaim: string };
  slackApiBaseUrl: string;
  teamsAllowedHosts: string[];
  /** Local stack only: the capture server's origin, exempt from the Teams URL rules (refused in AWS). */
  teamsLocalCaptureOrigin?: string;
  /** Slack bot token itself (local and dev); in AWS the secret `slackTokenSecretArn` holds it. */
  slackBotToken?: string;
  slackTokenSecretArn?: string;
  mailFrom: string;
  appBaseUrl: string;
  /**
   * The web console's base URL, under which its hash routes live (`<base>/#/explorer?…`): every
   * link in a message is built from it (shared/links.ts). `CONSOLE_BASE_URL`; by default
   * `APP_BASE_URL` (in AWS the console's public URL); locally `<server>/console/`.
   */
  consoleBaseUrl: string;
  warehouse: 'duckdb' | 'athena';
  duckdbPath: string;
  maxBodyBytes: number;
  /** Identity provider's invitation API (team sync invites unknown e-mails); unset: invitations refused. */
  idpApiBaseUrl?: string;
  /** The IdP API bearer token itself (local and dev). */
  idpApiToken?: string;
  /** In AWS: the Secrets Manager secret holding that token (read once per container). */
  idpApiTokenSecretArn?: string;
  /**
   * API keys the organisation's identity provider issued (docs/auth.md#api-keys-from-the-identity-provider):
   * an `ak_` key that is not one of ours is checked with the provider's OAuth 2.0 token introspection
   * endpoint (RFC 7662). Unset (`API_KEY_INTROSPECTION_URL` empty): only our own keys are accepted.
   */
  apiKeyIntrospection?: ApiKeyIntrospectionConfig;
  /** Warehouse (Athena adapter): the billing bucket, Glue database/table and Athena workgroup. */
  billingBucket?: string;
  glueDatabase?: string;
  glueTable?: string;
  athenaWorkgroup?: string;
  /** Locally, the folder that stands in for the billing bucket (`npm start` sets it). */
  localBucketDir?: string;
  /**
   * Images messages show by URL (a Teams card's chart; shared/cloud/message-images.ts): the public
   * base URL (`MESSAGE_IMAGES_URL`), and the bucket (`MESSAGE_IMAGES_BUCKET`, AWS) or, locally, the
   * folder (`MESSAGE_IMAGES_DIR`) they are written to. Unset: cards go without their image.
   */
  messageImagesUrl?: string;
  messageImagesBucket?: string;
  messageImagesDir?: string;
  /**
   * Organisations whose admins may load the global euro reference rates (`POST /admin/fx-rates`);
   * `PLATFORM_ORG_IDS`, comma-separated (locally `org_demo`; in AWS nobody unless set).
   */
  platformOrgIds: string[];
  /** Where the daily `fx-fetch` schedule reads the rates (`FX_RATES_URL`; https only). */
  fxRatesUrl: string;
}

export interface ApiKeyIntrospectionConfig {
  /** `API_KEY_INTROSPECTION_URL`: https (in AWS always); locally also http on a loopback address. */
  url: string;
  /** `API_KEY_INTROSPECTION_CLIENT_ID`: with it the call authenticates with HTTP Basic (id, secret); without, `Bearer <secret>`. */
  clientId?: string;
  /** `API_KEY_INTROSPECTION_SECRET`: the secret itself (local and dev). */
  secret?: string;
  /** `API_KEY_INTROSPECTION_SECRET_ARN`: in AWS, the Secrets Manager secret holding it (read once per container). */
  secretArn?: string;
  /** `API_KEY_INTROSPECTION_CACHE_SECONDS` (default 60, 0 to 300): how long an answer is kept per container. */
  cacheSeconds: number;
  /** The URL is plain http on a loopback address (the local stand-in provider; refused in AWS). */
  loopback: boolean;
  /**
   * `API_KEY_INTROSPECTION_TIMEOUT_MS` (default 3000, 100 to 10000): how long one call may take. The
   * local stack sets 10 s, as for its AWS clients: its stand-in provider shares a loaded machine.
   */
  timeoutMs: number;
}

let cached: Config | undefined;

class ConfigError extends Error {
  override name = 'ConfigError';
}

function env(name: string, fallback?: string): string {
  const value = process.env[name];
  if (value !== undefined && value !== '') return value;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`Missing required environment variable ${name}`);
}

function optional(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A variable only the local stack may set: in AWS (a Lambda) its presence is a configuration error. */
function localOnly(name: string, isAws: boolean): string | undefined {
  const value = optional(name);
  if (value !== undefined && isAws)
    throw new ConfigError(`${name} is for the local stack only and must not be set in AWS`);
  return value;
}

/** Queue URLs come from variables named QUEUE_URL_<NAME> (NAME upper-cased, dashes as underscores). */
function readQueueUrls(): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('QUEUE_URL_') && value) {
      urls[key.slice('QUEUE_URL_'.length).toLowerCase().replaceAll('_', '-')] = value;
    }
  }
  return urls;
}

/** Whether `url` is plain http on a loopback address (the local stack's stand-in providers). */
export function isLoopbackHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
}

function readApiKeyIntrospection(isAws: boolean): ApiKeyIntrospectionConfig | undefined {
  const url = optional('API_KEY_INTROSPECTION_URL');
  if (url === undefined) return undefined;
  const loopback = isLoopbackHttpUrl(url);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (
    !parsed ||
    (parsed.protocol !== 'https:' && !(loopback && !isAws)) ||
    parsed.username ||
    parsed.password
  )
    throw new ConfigError(
      `API_KEY_INTROSPECTION_URL must be an https URL without credentials${isAws ? '' : ' (or http on a loopback address, locally)'}, got ${url}`,
    );
  const cacheSeconds = Number(env('API_KEY_INTROSPECTION_CACHE_SECONDS', '60'));
  if (!Number.isInteger(cacheSeconds) || cacheSeconds < 0 || cacheSeconds > 300)
    throw new ConfigError(
      'API_KEY_INTROSPECTION_CACHE_SECONDS must be a whole number of seconds from 0 to 300',
    );
  const timeoutMs = Number(env('API_KEY_INTROSPECTION_TIMEOUT_MS', '3000'));
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 10_000)
    throw new ConfigError(
      'API_KEY_INTROSPECTION_TIMEOUT_MS must be a whole number of milliseconds from 100 to 10000',
    );
  const clientId = optional('API_KEY_INTROSPECTION_CLIENT_ID');
  const secret = optional('API_KEY_INTROSPECTION_SECRET');
  const secretArn = optional('API_KEY_INTROSPECTION_SECRET_ARN');
  return {
    url,
    cacheSeconds,
    loopback,
    timeoutMs,
    ...(clientId ? { clientId } : {}),
    ...(secret ? { secret } : {}),
    ...(secretArn ? { secretArn } : {}),
  };
}

export function loadConfig(): Config {
  const isAws = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
  const localDefault = (value: string) => (isAws ? undefined : value);
  const warehouse = env('WAREHOUSE', 'duckdb');
  if (warehouse !== 'duckdb' && warehouse !== 'athena') {
    throw new ConfigError(`WAREHOUSE must be duckdb or athena, got ${warehouse}`);
  }
  return {
    stage: env('STAGE', 'local'),
    region: env('AWS_REGION', 'us-east-1'),
    tableName: env('TABLE_NAME', localDefault('cost-management')),
    dynamoEndpoint: optional('DYNAMODB_ENDPOINT'),
    sqsEndpoint: optional('SQS_ENDPOINT'),
    sesEndpoint: optional('SES_ENDPOINT'),
    s3Endpoint: optional('S3_ENDPOINT'),
    queueUrls: readQueueUrls(),
    jwt: {
      issuer: env('JWT_ISSUER', localDefault('http://127.0.0.1/local-idp')),
      audience: env('JWT_AUDIENCE', localDefault('cost-management-local')),
      jwksUri: env('JWKS_URI', localDefault('http://127.0.0.1/.well-known/jwks.json')),
      orgClaim: env('JWT_ORG_CLAIM', 'org_id'),
      roleClaim: env('JWT_ROLE_CLAIM', 'org_role'),
    },
    slackApiBaseUrl: env('SLACK_API_BASE_URL', 'https://slack.com/api'),
    teamsAllowedHosts: env('TEAMS_ALLOWED_HOSTS', '.logic.azure.com,.api.powerplatform.com')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    teamsLocalCaptureOrigin: localOnly('TEAMS_LOCAL_CAPTURE_ORIGIN', isAws),
    slackBotToken: optional('SLACK_BOT_TOKEN'),
    slackTokenSecretArn: optional('SLACK_TOKEN_SECRET_ARN'),
    mailFrom: env('MAIL_FROM', 'FinOps <finops@example.com>'),
    appBaseUrl: env('APP_BASE_URL', 'http://localhost:3000'),
    consoleBaseUrl: optional('CONSOLE_BASE_URL') ?? env('APP_BASE_URL', 'http://localhost:3000'),
    warehouse,
    duckdbPath: env('DUCKDB_PATH', ':memory:'),
    maxBodyBytes: Number(env('MAX_BODY_BYTES', String(1024 * 1024))),
    idpApiBaseUrl: optional('IDP_API_BASE_URL'),
    idpApiToken: optional('IDP_API_TOKEN'),
    idpApiTokenSecretArn: optional('IDP_API_TOKEN_SECRET_ARN'),
    apiKeyIntrospection: readApiKeyIntrospection(isAws),
    billingBucket: optional('BILLING_BUCKET'),
    glueDatabase: optional('GLUE_DATABASE'),
    glueTable: optional('GLUE_TABLE'),
    athenaWorkgroup: optional('ATHENA_WORKGROUP'),
    localBucketDir: optional('LOCAL_BUCKET_DIR'),
    messageImagesUrl: optional('MESSAGE_IMAGES_URL'),
    messageImagesBucket: optional('MESSAGE_IMAGES_BUCKET'),
    messageImagesDir: localOnly('MESSAGE_IMAGES_DIR', isAws),
    platformOrgIds: (optional('PLATFORM_ORG_IDS') ?? localDefault('org_demo') ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    fxRatesUrl: env('FX_RATES_URL', 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml'),
  };
}

/** The process-wide configuration. Throws a ConfigError naming the first missing variable. */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}

/** Tests and the local runtime change the environment after import; this forgets the cached copy. */
export function resetConfig(): void {
  cached = undefined;
}

export function queueUrl(name: string): string {
  const url = config().queueUrls[name];
  if (!url)
    throw new ConfigError(
      `No URL configured for queue ${name} (QUEUE_URL_${name.toUpperCase().replaceAll('-', '_')})`,
    );
  return url;
}

/**
 * Bounds of every call to DynamoDB, SQS, SES, Secrets Manager and Athena's API, and (with a longer
 * wait for an answer, `minRequestTimeoutMs`) S3 (the SDK clients' defaults wait forever on a
 * connection or an answer): 1 s to connect, 3 s for the answer (`AWS_REQUEST_TIMEOUT_MS`), 3
 * attempts. A dependency that is down or hangs fails a request within ≈10 s, an HTTP function's
 * timeout, and the route answers 503 `{error}` (shared/http/middlewares.ts); a worker reports the
 * message as failed. The local stack and the tests allow 10 s per answer: the emulators share a
 * small machine and can be that slow under load, which DynamoDB, SQS and SES are not.
 */
export function awsClientLimits(opts: { minRequestTimeoutMs?: number } = {}) {
  const asked = Number(process.env.AWS_REQUEST_TIMEOUT_MS ?? 3000);
  const requestTimeout = Number.isFinite(asked) && asked > 0 ? asked : 3000;
  return {
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: 1000,
      requestTimeout: Math.max(requestTimeout, opts.minRequestTimeoutMs ?? 0),
      throwOnRequestTimeout: true,
    },
  };
}

/**
 * The configuration of an SDK client of DynamoDB, SQS or SES: the region, and `emulatorEndpoint`
 * (the local stack's emulator, when configured) with the placeholder credentials emulators take;
 * bounded by `awsClientLimits`.
 */
export function emulatedClientConfig(emulatorEndpoint: string | undefined) {
  return {
    region: config().region,
    ...(emulatorEndpoint
      ? { endpoint: emulatorEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    ...awsClientLimits(),
  };
}
