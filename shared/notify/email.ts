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

/** One e-mail: every header value is checked for CR/LF before it reaches the composer. */
export interface EmailParts {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

/**
 * The MIME message (multipart/alternative, text and HTML) built by nodemailer's composer, with its
 * file and URL access disabled so no content can make it read a local file or fetch a URL.
 */
export async function composeEmail(e: EmailParts): Promise<Buffer> {
  const composer = new MailComposer({
    from: headerValue('From', e.from),
    to: e.to.map((to) => headerValue('To', to)),
    subject: headerValue('Subject', e.subject),
    text: e.text,
    html: e.html,
    headers: Object.fromEntries(
      Object.entries(e.headers ?? {}).map(([k, v]) => [headerValue('Header name', k), headerValue(k, v)]),
    ),
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}

/** An alert notification's message. */
export function buildRawEmail(n: Notification, from: string): Promise<Buffer> {
  return composeEmail({
    from,
    to: n.emails,
    subject: n.message.subject,
    text: n.message.text,
    html: n.message.html,
    headers: { 'X-Notification-Id': n.id },
  });
}

export async function sendEmail(n: Notification): Promise<void> {
  if (n.emails.length === 0) throw new Error('EMAIL notification without recipients');
  const raw = await buildRawEmail(n, config().mailFrom);
  await sendRawEmail(raw);
}
