import type { Node } from 'constructs';

export type DeployStage = 'dev' | 'prod';

/**
 * Deploy-time settings that differ per account: where tokens come from, who e-mail is sent as and
 * which secret holds the Slack bot token. They are read from CDK context (`-c jwtIssuer=…`), so
 * nothing account-specific lives in the repository.
 */
export interface DeployConfig {
  stage: DeployStage;
  jwtIssuer: string;
  jwtAudience: string;
  jwksUri: string;
  jwtOrgClaim: string;
  jwtRoleClaim: string;
  /** SES identity (a verified domain or address) that send grants are scoped to. */
  sesIdentity: string;
  /** The From header, e.g. `FinOps <finops@example.com>`; must belong to `sesIdentity`. */
  mailFrom: string;
  /** Name of the Secrets Manager secret holding the Slack bot token (`xoxb-…`). */
  slackTokenSecretName: string;
  slackApiBaseUrl: string;
  teamsAllowedHosts: string;
  appBaseUrl: string;
  /** Stage-wide HTTP API throttling. */
  throttleRateLimit: number;
  throttleBurstLimit: number;
  /** The identity provider's invitation API (team sync invites unknown e-mails); unset: no invitations. */
  idpApiBaseUrl?: string;
  /** Name of the Secrets Manager secret holding that API's bearer token; unset: no token is sent. */
  idpTokenSecretName?: string;
  /**
   * API keys made in the identity provider (docs/auth.md#api-keys-from-the-identity-provider): its
   * OAuth 2.0 token introspection endpoint (https); unset: only the service's own keys are accepted.
   */
  apiKeyIntrospectionUrl?: string;
  /** The service's client id at that endpoint (HTTP Basic); unset: `Bearer <secret>`. */
  apiKeyIntrospectionClientId?: string;
  /** Name of the Secrets Manager secret holding the client secret (read by the route functions). */
  apiKeyIntrospectionSecretName?: string;
  /** Seconds an introspection answer is kept per container (0 to 300; default 60). */
  apiKeyIntrospectionCacheSeconds?: string;
  /** An e-mail address subscribed to the alarm topic; unset: the topic has no subscription. */
  alarmEmail?: string;
  /** The web console's OpenID Connect sign-in (docs/console.md); unset: keys and pasted JWTs only. */
  consoleOidcIssuer?: string;
  consoleOidcClientId?: string;
  consoleOidcAuthorizationEndpoint?: string;
  consoleOidcTokenEndpoint?: string;
  /** Where the daily `fx-fetch` schedule reads the euro reference rates (https). */
  fxRatesUrl: string;
  /** Organisations whose admins may load rates through `POST /admin/fx-rates` (comma-separated). */
  platformOrgIds: string;
}

/** Settings that may be left out in every stage: without them the feature they enable is off. */
const OPTIONAL_SETTINGS: readonly {
  key:
    | 'idpApiBaseUrl'
    | 'idpTokenSecretName'
    | 'apiKeyIntrospectionUrl'
    | 'apiKeyIntrospectionClientId'
    | 'apiKeyIntrospectionSecretName'
    | 'apiKeyIntrospectionCacheSeconds'
    | 'alarmEmail'
    | 'consoleOidcIssuer'
    | 'consoleOidcClientId'
    | 'consoleOidcAuthorizationEndpoint'
    | 'consoleOidcTokenEndpoint';
  help: string;
}[] = [
  {
    key: 'idpApiBaseUrl',
    help: 'base URL of the IdP invitation API (POST <url>/invitations); without it a team sync that must invite answers 503',
  },
  {
    key: 'idpTokenSecretName',
    help: 'Secrets Manager secret name holding the IdP API bearer token (read by the team sync function only)',
  },
  {
    key: 'apiKeyIntrospectionUrl',
    help: "the IdP's OAuth 2.0 token introspection endpoint (RFC 7662, https): ak_ keys made in the IdP's dashboard are accepted; without it only the service's own keys",
  },
  {
    key: 'apiKeyIntrospectionClientId',
    help: "the service's client id at the introspection endpoint (HTTP Basic with the secret); without it the secret is sent as a Bearer token",
  },
  {
    key: 'apiKeyIntrospectionSecretName',
    help: 'Secrets Manager secret name holding the introspection client secret (read by the route functions)',
  },
  {
    key: 'apiKeyIntrospectionCacheSeconds',
    help: 'seconds an introspection answer is kept per container, 0 to 300 (default 60): how late a key revoked in the IdP stops working',
  },
  {
    key: 'alarmEmail',
    help: 'e-mail address subscribed to the CloudWatch alarm topic (it must confirm the subscription once)',
  },
  {
    key: 'consoleOidcIssuer',
    help: "the web console's OpenID Connect IdP (https issuer URL; its discovery document gives the endpoints); with consoleOidcClientId",
  },
  {
    key: 'consoleOidcClientId',
    help: "the console's public client id at that IdP (PKCE, no secret); the API's jwtAudience must accept its ID tokens",
  },
  {
    key: 'consoleOidcAuthorizationEndpoint',
    help: "the IdP's authorization endpoint, when not to be discovered (with consoleOidcTokenEndpoint)",
  },
  {
    key: 'consoleOidcTokenEndpoint',
    help: "the IdP's token endpoint, when not to be discovered; its origin is added to the console's CSP connect-src",
  },
];

/** A context key, what it means, and the placeholder used in dev when it is not given. */
interface Setting {
  key: keyof DeployConfig;
  /** Required in prod: synth fails when it is missing. */
  required: boolean;
  devDefault: string;
  prodDefault?: string;
  help: string;
}

const SETTINGS: readonly Setting[] = [
  {
    key: 'jwtIssuer',
    required: true,
    devDefault: 'https://idp.example.com/',
    help: 'issuer (`iss`) of the IdP session JWTs',
  },
  {
    key: 'jwtAudience',
    required: true,
    devDefault: 'cost-management-dev',
    help: 'audience (`aud`, or `client_id` for access tokens) the JWTs are issued for',
  },
  {
    key: 'jwksUri',
    required: true,
    devDefault: 'https://idp.example.com/.well-known/jwks.json',
    help: 'JWKS URL of the IdP',
  },
  {
    key: 'jwtOrgClaim',
    required: false,
    devDefault: 'org_id',
    help: 'JWT claim holding the organisation id',
  },
  { key: 'jwtRoleClaim', required: false, devDefault: 'org_role', help: 'JWT claim holding the org role' },
  {
    key: 'sesIdentity',
    required: true,
    devDefault: 'example.com',
    help: 'verified SES identity (domain or address) e-mail is sent from',
  },
  {
    key: 'mailFrom',
    required: true,
    devDefault: 'FinOps <finops@example.com>',
    help: 'From header of outgoing e-mail, within the SES identity',
  },
  {
    key: 'slackTokenSecretName',
    required: true,
    devDefault: 'cost-management/dev/slack-bot-token',
    help: 'Secrets Manager secret name holding the Slack bot token',
  },
  {
    key: 'slackApiBaseUrl',
    required: false,
    devDefault: 'https://slack.com/api',
    help: 'Slack Web API base URL',
  },
  {
    key: 'teamsAllowedHosts',
    required: false,
    devDefault: '.logic.azure.com,.api.powerplatform.com',
    help: 'comma-separated host suffixes Teams webhooks may point at',
  },
  {
    key: 'appBaseUrl',
    required: true,
    devDefault: 'https://finops.dev.example.com',
    help: 'public URL of the web app, used in links inside reports and alerts',
  },
  {
    key: 'fxRatesUrl',
    required: false,
    devDefault: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml',
    help: 'https URL the daily fx-fetch schedule loads euro reference rates from (ECB XML or CSV)',
  },
  {
    key: 'platformOrgIds',
    required: false,
    devDefault: '',
    help: 'comma-separated organisation ids whose admins may load rates with POST /admin/fx-rates',
  },
  {
    key: 'throttleRateLimit',
    required: false,
    devDefault: '50',
    prodDefault: '500',
    help: 'HTTP API steady-state requests per second',
  },
  {
    key: 'throttleBurstLimit',
    required: false,
    devDefault: '100',
    prodDefault: '1000',
    help: 'HTTP API burst',
  },
];

/** The settings and their meaning, for docs/deploy.md and error messages. */
export const DEPLOY_SETTINGS = [
  ...SETTINGS.map(({ key, required, help }) => ({ key, required, help })),
  ...OPTIONAL_SETTINGS.map(({ key, help }) => ({ key, required: false, help })),
];

export class DeployConfigError extends Error {
  override name = 'DeployConfigError';
}

function isHttpsUrlWithoutCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** Reads `env` (dev|prod) from context; anything else is a synth error. */
export function readStage(node: Node): DeployStage {
  const raw = node.tryGetContext('env') ?? 'dev';
  if (raw !== 'dev' && raw !== 'prod') {
    throw new DeployConfigError(`Context "env" must be dev or prod, got "${String(raw)}" (-c env=prod).`);
  }
  return raw;
}

/**
 * Resolves the deploy configuration from context. In dev, missing values become obvious
 * placeholders so `cdk synth` works offline; in prod every required value must be given, and a
 * missing one fails synth with the list of what to pass.
 */
export function readDeployConfig(node: Node, stage: DeployStage = readStage(node)): DeployConfig {
  const values: Record<string, string> = {};
  const missing: Setting[] = [];
  for (const setting of SETTINGS) {
    const given = node.tryGetContext(setting.key);
    const value = given === undefined || given === null ? '' : String(given).trim();
    if (value !== '') values[setting.key] = value;
    else if (stage === 'prod' && setting.required) missing.push(setting);
    else values[setting.key] = (stage === 'prod' ? setting.prodDefault : undefined) ?? setting.devDefault;
  }
  if (missing.length > 0) {
    const lines = missing.map((s) => `  -c ${s.key}=…   ${s.help}`);
    throw new DeployConfigError(
      [
        `Missing deploy configuration for env=prod (${missing.map((s) => s.key).join(', ')}).`,
        'Pass every value with -c, for example:',
        ...lines,
        'See docs/deploy.md ("Deploy") for every setting.',
      ].join('\n'),
    );
  }
  for (const key of ['jwtIssuer', 'jwksUri', 'appBaseUrl', 'slackApiBaseUrl'] as const) {
    if (!/^https?:\/\//.test(values[key]!)) {
      throw new DeployConfigError(`Context "${key}" must be an http(s) URL, got "${values[key]}".`);
    }
  }
  if (!/^https:\/\//.test(values.fxRatesUrl!))
    throw new DeployConfigError(`Context "fxRatesUrl" must be an https URL, got "${values.fxRatesUrl}".`);
  const fromAddress = (/<([^>]+)>\s*$/.exec(values.mailFrom!)?.[1] ?? values.mailFrom!).trim().toLowerCase();
  const identity = values.sesIdentity!.toLowerCase();
  const withinIdentity = identity.includes('@')
    ? fromAddress === identity
    : fromAddress.endsWith(`@${identity}`);
  if (!withinIdentity) {
    throw new DeployConfigError(
      `Context mailFrom (${values.mailFrom}) must be an address of the SES identity ${values.sesIdentity}: ` +
        'the send grant is scoped to that identity.',
    );
  }
  const optional: Partial<Record<(typeof OPTIONAL_SETTINGS)[number]['key'], string>> = {};
  for (const { key } of OPTIONAL_SETTINGS) {
    const given = node.tryGetContext(key);
    const value = given === undefined || given === null ? '' : String(given).trim();
    if (value !== '') optional[key] = value;
  }
  if (optional.idpApiBaseUrl !== undefined && !/^https?:\/\//.test(optional.idpApiBaseUrl)) {
    throw new DeployConfigError(
      `Context "idpApiBaseUrl" must be an http(s) URL, got "${optional.idpApiBaseUrl}".`,
    );
  }
  if (optional.idpTokenSecretName !== undefined && optional.idpApiBaseUrl === undefined) {
    throw new DeployConfigError(
      'Context idpTokenSecretName is set but idpApiBaseUrl is not: the token is only used to call the ' +
        'IdP invitation API at that URL (-c idpApiBaseUrl=https://…).',
    );
  }
  if (
    optional.apiKeyIntrospectionUrl !== undefined &&
    !isHttpsUrlWithoutCredentials(optional.apiKeyIntrospectionUrl)
  )
    throw new DeployConfigError(
      `Context "apiKeyIntrospectionUrl" must be an https URL without credentials, got "${optional.apiKeyIntrospectionUrl}".`,
    );
  const introspectionKeys = (
    [
      'apiKeyIntrospectionClientId',
      'apiKeyIntrospectionSecretName',
      'apiKeyIntrospectionCacheSeconds',
    ] as const
  ).filter((k) => optional[k] !== undefined);
  if (introspectionKeys.length > 0 && optional.apiKeyIntrospectionUrl === undefined)
    throw new DeployConfigError(
      `Context ${introspectionKeys.join(', ')} set without apiKeyIntrospectionUrl: they configure the call to ` +
        "the IdP's token introspection endpoint (-c apiKeyIntrospectionUrl=https://…).",
    );
  const cacheSeconds = optional.apiKeyIntrospectionCacheSeconds;
  if (cacheSeconds !== undefined && !(/^\d+$/.test(cacheSeconds) && Number(cacheSeconds) <= 300))
    throw new DeployConfigError(
      `Context "apiKeyIntrospectionCacheSeconds" must be a whole number from 0 to 300, got "${cacheSeconds}".`,
    );
  if (optional.alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(optional.alarmEmail)) {
    throw new DeployConfigError(
      `Context "alarmEmail" must be an e-mail address, got "${optional.alarmEmail}".`,
    );
  }
  for (const key of [
    'consoleOidcIssuer',
    'consoleOidcAuthorizationEndpoint',
    'consoleOidcTokenEndpoint',
  ] as const) {
    if (optional[key] !== undefined && !/^https:\/\/[^/?#]+/.test(optional[key]))
      throw new DeployConfigError(`Context "${key}" must be an https URL, got "${optional[key]}".`);
  }
  const oidcKeys = Object.keys(optional).filter((k) => k.startsWith('consoleOidc'));
  if (oidcKeys.length > 0 && (!optional.consoleOidcIssuer || !optional.consoleOidcClientId))
    throw new DeployConfigError(
      `Context ${oidcKeys.join(', ')} set without both consoleOidcIssuer and consoleOidcClientId: ` +
        "the console's sign-in needs the IdP's issuer and the console's client id.",
    );
  const rate = Number(values.throttleRateLimit);
  const burst = Number(values.throttleBurstLimit);
  if (!Number.isFinite(rate) || rate <= 0 || !Number.isInteger(burst) || burst <= 0) {
    throw new DeployConfigError('Context throttleRateLimit and throttleBurstLimit must be positive numbers.');
  }
  return {
    stage,
    jwtIssuer: values.jwtIssuer!,
    jwtAudience: values.jwtAudience!,
    jwksUri: values.jwksUri!,
    jwtOrgClaim: values.jwtOrgClaim!,
    jwtRoleClaim: values.jwtRoleClaim!,
    sesIdentity: values.sesIdentity!,
    mailFrom: values.mailFrom!,
    slackTokenSecretName: values.slackTokenSecretName!,
    slackApiBaseUrl: values.slackApiBaseUrl!,
    teamsAllowedHosts: values.teamsAllowedHosts!,
    appBaseUrl: values.appBaseUrl!,
    throttleRateLimit: rate,
    throttleBurstLimit: burst,
    fxRatesUrl: values.fxRatesUrl!,
    platformOrgIds: values.platformOrgIds ?? '',
    ...optional,
  };
}
