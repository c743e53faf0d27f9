import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClientLimits, config } from '../config';

/**
 * Secrets Manager: the one client of the service's code, created on first use. The SDK client is
 * imported then too (a dynamic import, its own chunk in a code-split bundle): most requests of a
 * route never read a secret, so its cold start does not load it (infra/bundling.ts SPLIT_FOLDERS).
 */

let client: SecretsManagerClient | undefined;

/** The string value of secret `arn`, trimmed; throws when it cannot be read or is empty. */
export async function readSecretString(arn: string): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  client ??= new SecretsManagerClient({ region: config().region, ...awsClientLimits() });
  const res = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  const value = res.SecretString?.trim();
  if (!value) throw new Error(`secret ${arn} is empty (SecretString)`);
  return value;
}

/** For tests: forget the client. */
export function resetSecretsClient(): void {
  client = undefined;
}
