import { createHash } from 'node:crypto';
import { readSecretString, resetSecretsClient } from '../../cloud/secrets';
import { config } from '../../config';

/**
 * The identity provider's invitation API, as the team sync uses it for e-mails unknown to the org.
 * `POST {IDP_API_BASE_URL}/invitations` with a JSON body and an `Idempotency-Key`; a 2xx answer
 * carries the invitation's `id`. The bearer token is the Secrets Manager secret
 * `IDP_API_TOKEN_SECRET_ARN` names (AWS: the stack sets it on the sync function only), else
 * `IDP_API_TOKEN` (local and dev), else none. Locally the base URL points at the capture server,
 * which records the call (kind `idp`) and answers 201 `{id, status: 'pending'}`.
 */
export interface Invitation {
  orgId: string;
  teamId: string;
  teamName: string;
  email: string;
  invitedById: string;
  /** The same invitation retried (e.g. after a failed sync) carries the same key, so the IdP sends it once. */
  idempotencyKey: string;
}

export interface InvitationSender {
  /** False when no invitation API is configured: a sync that needs to invite is refused. */
  readonly configured: boolean;
  send(invitation: Invitation): Promise<{ invitationId?: string }>;
}

export class InvitationError extends Error {
  override name = 'InvitationError';
  constructor(
    readonly email: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The idempotency key of an invitation: stable for the same org, team, e-mail and team membership
 * version, so a retried sync does not invite twice, while a later re-invitation (after the pending
 * invitation was cancelled, which bumps the version) is a new one.
 */
export function invitationKey(
  orgId: string,
  teamId: string,
  email: string,
  membershipVersion: number,
): string {
  return createHash('sha256')
    .update(`${orgId}\n${teamId}\n${email.toLowerCase()}\n${membershipVersion}`)
    .digest('hex')
    .slice(0, 40);
}

const TIMEOUT_MS = 5_000;

/** The token read from Secrets Manager, per secret ARN, kept for the life of the container. */
let cachedToken: { arn: string; token: Promise<string> } | undefined;

/**
 * The IdP API token of `IDP_API_TOKEN_SECRET_ARN`: read with one GetSecretValue per container (the
 * first invitation of a cold container pays it), then cached. A failed read is not cached, so the
 * next invitation tries again. The secret's string is the token (surrounding whitespace ignored).
 * Rotating the secret reaches running containers when they are recycled.
 */
function secretToken(arn: string): Promise<string> {
  if (cachedToken?.arn !== arn) {
    const token = readSecretString(arn);
    token.catch(() => {
      if (cachedToken?.token === token) cachedToken = undefined;
    });
    cachedToken = { arn, token };
  }
  return cachedToken.token;
}

/** For tests: forget the cached token and client. */
export function resetInvitationToken(): void {
  cachedToken = undefined;
  resetSecretsClient();
}

/** The bearer token for the IdP API, if any: the secret when its ARN is configured, else `IDP_API_TOKEN`. */
export async function idpApiToken(): Promise<string | undefined> {
  const { idpApiTokenSecretArn, idpApiToken: raw } = config();
  return idpApiTokenSecretArn ? secretToken(idpApiTokenSecretArn) : raw;
}

export function httpInvitationSender(): InvitationSender {
  const { idpApiBaseUrl } = config();
  return {
    configured: Boolean(idpApiBaseUrl),
    async send(inv) {
      if (!idpApiBaseUrl) throw new InvitationError(inv.email, 'no identity provider is configured');
      let token: string | undefined;
      try {
        token = await idpApiToken();
      } catch (error) {
        throw new InvitationError(inv.email, 'the identity provider token could not be read', {
          cause: error,
        });
      }
      let res: Response;
      try {
        res = await fetch(`${idpApiBaseUrl.replace(/\/+$/, '')}/invitations`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': inv.idempotencyKey,
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({
            email: inv.email,
            organizationId: inv.orgId,
            teamId: inv.teamId,
            teamName: inv.teamName,
            invitedBy: inv.invitedById,
            role: 'member',
          }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (error) {
        throw new InvitationError(inv.email, 'identity provider unreachable', { cause: error });
      }
      if (!res.ok) throw new InvitationError(inv.email, `identity provider answered ${res.status}`);
      const body = (await res.json().catch(() => ({}))) as { id?: unknown };
      return typeof body.id === 'string' ? { invitationId: body.id } : {};
    },
  };
}
