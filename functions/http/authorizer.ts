import type {
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';
import type { AuthContext } from '../../shared/auth/principal';
import { authenticate } from '../../shared/http/identity';
import { log } from '../../shared/log';

type Context = Record<string, string>;

/**
 * The API Gateway (HTTP API, simple responses) Lambda authorizer. Its result is cached per
 * Authorization header, so it proves only who the credential belongs to; role, teams and key
 * revocation are checked per request by the route middleware.
 */
export async function handler(
  event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers' | 'identitySource'>,
): Promise<APIGatewaySimpleAuthorizerWithContextResult<Context>> {
  const header = event.headers?.authorization ?? event.headers?.Authorization ?? event.identitySource?.[0];
  try {
    const auth: AuthContext = await authenticate(header);
    return {
      isAuthorized: true,
      context: {
        authenticated: 'true',
        orgId: auth.orgId,
        principalId: auth.principalId,
        kind: auth.kind,
        credential: auth.credential,
        keyId: auth.keyId ?? '',
        claimRole: auth.claimRole ?? '',
      },
    };
  } catch (error) {
    // Allowed through with no identity: the route answers 401 {error} in the spec's shape, which
    // a gateway-level deny (403 {message}) could not. Nothing is reachable without an identity.
    log.debug('authorizer refused a credential', { reason: (error as Error).name });
    return { isAuthorized: true, context: { authenticated: 'false' } };
  }
}
