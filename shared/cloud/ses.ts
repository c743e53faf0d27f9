import { SESClient, SendRawEmailCommand } from '@aws-sdk/client-ses';
import { config, emulatedClientConfig } from '../config';

/** SES (the SES emulator locally): the one e-mail client of the service's code, created on first use. */

let client: SESClient | undefined;

function ses(): SESClient {
  client ??= new SESClient(emulatedClientConfig(config().sesEndpoint));
  return client;
}

/** Sends one complete MIME message (headers name the sender and recipients). */
export async function sendRawEmail(raw: Uint8Array): Promise<void> {
  await ses().send(new SendRawEmailCommand({ RawMessage: { Data: raw } }));
}

/** For tests: forget the client. */
export function resetEmailClient(): void {
  client = undefined;
}
