import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClientLimits, config } from '../config';

/** Secrets Manager: the one client of the service's code, created on first use. */

let client: SecretsManagerClient | undefined;

/** The string value of secret `arn`, trimmed; throws when it cannot be read or is empty. */
export async function readSecretString(arn: string): Promise<string> {
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
