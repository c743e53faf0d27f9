import MailComposer from 'nodemailer/lib/mail-composer';
import { sendRawEmail } from '../cloud/email';
import { config } from '../config';
import type { Notification } from '../domain/alerts/notification';

export class HeaderInjectionError extends Error {
  override name = 'HeaderInjectionError';
}

/** Header values come from users (alert name, addresses): CR or LF in any of them is refused outright. */
function headerValue(name: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new HeaderInjectionError(`${name} must not contain CR or LF`);
  return value;
}

/**
 * The MIME message (multipart/alternative, text and HTML) built by nodemailer's composer, with its
 * file and URL access disabled so no content can make it read a local file or fetch a URL.
 */
export async function buildRawEmail(n: Notification, from: string): Promise<Buffer> {
  const composer = new MailComposer({
    from: headerValue('From', from),
    to: n.emails.map((e) => headerValue('To', e)),
    subject: headerValue('Subject', n.message.subject),
    text: n.message.text,
    html: n.message.html,
    headers: { 'X-Notification-Id': headerValue('X-Notification-Id', n.id) },
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}

export async function sendEmail(n: Notification): Promise<void> {
  if (n.emails.length === 0) throw new Error('EMAIL notification without recipients');
  const raw = await buildRawEmail(n, config().mailFrom);
  await sendRawEmail(raw);
}
