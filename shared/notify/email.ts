import MailComposer from 'nodemailer/lib/mail-composer';
import { sendRawEmail } from '../cloud/ses';
import { config } from '../config';
import type { Notification } from '../domain/alerts/notification';

export class HeaderInjectionError extends Error {
  override name = 'HeaderInjectionError';
}

/**
 * Header values come from users (alert name, addresses): CR, LF, NUL, NEL or a Unicode line or
 * paragraph separator in any of them is refused outright (the renderers already make subjects one
 * line with `oneLine`, shared/domain/common/text.ts).
 */
function headerValue(name: string, value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse them
  if (/[\r\n\u0000\u0085\u2028\u2029]/.test(value))
    throw new HeaderInjectionError(`${name} must not contain CR or LF (nor another line break)`);
  return value;
}

/**
 * A subject is the user's text (an alert or report name): an RFC 2047 encoded word typed into it
 * (`=?UTF-8?Q?…=0D=0A…?=`) must stay those characters, not decode to a line break in the reader.
 * A zero-width space after each `=` of `=?` makes it no encoded word, and makes the composer encode
 * the whole subject itself (it then holds a non-ASCII character), so it reads as typed.
 */
function literalText(value: string): string {
  return value.replaceAll('=?', '=\u200b?');
}

/**
 * A file sent with a report (a chart PNG, a dashboard PDF): the bytes themselves, never a path or a
 * URL. Structurally the render's attachment type, so a rendered report's list passes as is.
 */
export interface Attachment {
  filename: string;
  contentType: 'image/png' | 'application/pdf';
  content: Uint8Array;
  /** Shown in the HTML body (images): its Content-ID is the filename, `<img src="cid:…">`. */
  inline: boolean;
}

/** One e-mail: every header value is checked for CR/LF before it reaches the composer. */
export interface EmailParts {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  attachments?: readonly Attachment[];
}

const CONTENT_TYPES = new Set<string>(['image/png', 'application/pdf']);

/** A filename is a header parameter and a Content-ID: printable, no CR/LF, no angle brackets, no path. */
function attachmentName(filename: string): string {
  headerValue('Attachment filename', filename);
  const control = [...filename].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (!filename || filename.length > 200 || control || /[<>"\\/]/.test(filename))
    throw new HeaderInjectionError(`attachment filename ${JSON.stringify(filename)} is not allowed`);
  return filename;
}

const escapeAttr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The HTML with every inline image referenced: an inline attachment whose `cid:` the HTML does not
 * already use is shown at the end of the body, so an inline image is never sent unseen.
 */
export function withInlineImages(html: string, attachments: readonly Attachment[]): string {
  const missing = attachments.filter((a) => a.inline && !html.includes(`cid:${a.filename}`));
  if (missing.length === 0) return html;
  const imgs = missing
    .map(
      (a) =>
        `<p><img src="cid:${escapeAttr(a.filename)}" alt="${escapeAttr(a.filename)}" style="max-width:100%"></p>`,
    )
    .join('');
  const end = html.lastIndexOf('</body>');
  return end >= 0 ? `${html.slice(0, end)}${imgs}${html.slice(end)}` : `${html}${imgs}`;
}

/**
 * The MIME message built by nodemailer's composer: multipart/alternative (text and HTML), inside
 * multipart/related when images are inline (Content-ID = filename), inside multipart/mixed when files
 * are attached (PDF). Its file and URL access are disabled so no content can make it read a local
 * file or fetch a URL; attachments are bytes only. A PNG is inline only when `inline` says so; a
 * PDF is always an attachment.
 */
export async function composeEmail(e: EmailParts): Promise<Buffer> {
  const attachments = e.attachments ?? [];
  for (const a of attachments) {
    attachmentName(a.filename);
    if (!CONTENT_TYPES.has(a.contentType))
      throw new Error(`attachment content type ${a.contentType} is not allowed`);
    if (!(a.content instanceof Uint8Array)) throw new Error('attachment content must be bytes');
  }
  const names = attachments.map((a) => a.filename);
  if (new Set(names).size !== names.length) throw new Error('attachment filenames must be unique');
  const composer = new MailComposer({
    from: headerValue('From', e.from),
    to: e.to.map((to) => headerValue('To', to)),
    subject: literalText(headerValue('Subject', e.subject)),
    text: e.text,
    html: withInlineImages(e.html, attachments),
    headers: Object.fromEntries(
      Object.entries(e.headers ?? {}).map(([k, v]) => [headerValue('Header name', k), headerValue(k, v)]),
    ),
    attachments: attachments.map((a) => {
      const inline = a.inline && a.contentType === 'image/png';
      return {
        filename: a.filename,
        contentType: a.contentType,
        content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
        contentTransferEncoding: 'base64' as const,
        contentDisposition: inline ? ('inline' as const) : ('attachment' as const),
        ...(inline ? { cid: a.filename } : {}),
      };
    }),
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}

/** A notification's PNG images as inline attachments (Content-ID: the filename). */
export function imagesOf(n: Notification): Attachment[] {
  return (n.message.images ?? []).map((i) => ({
    filename: i.filename,
    contentType: 'image/png' as const,
    content: new Uint8Array(Buffer.from(i.base64, 'base64')),
    inline: true,
  }));
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
    attachments: imagesOf(n),
  });
}

export async function sendEmail(n: Notification): Promise<void> {
  if (n.emails.length === 0) throw new Error('EMAIL notification without recipients');
  const raw = await buildRawEmail(n, config().mailFrom);
  await sendRawEmail(raw);
}
