/**
 * Slack in the outbox view: a `chat.postMessage`'s Block Kit blocks (or its `text` when it has
 * none) and the files a `files.completeUploadExternal` shared, as HTML. Pure functions of what the
 * capture server recorded.
 */

import {
  esc,
  formatAround,
  imageSrc,
  jsonText,
  link,
  list,
  rec,
  str,
  unknownElement,
} from './capture-view-html';
import type { CapturedFile } from './captured';

// mrkdwn -------------------------------------------------------------------------------------

/** Slack's three entities, which a mrkdwn text carries for a literal `&`, `<` and `>`. */
const unSlack = (s: string) =>
  s.replace(/&(amp|lt|gt);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>' })[e as 'amp']);

/** A `<…>` of mrkdwn: a link `<url|label>`, a mention `<@U…>`, `<#C…|name>` or `<!here>`. */
function angle(inner: string): string {
  const bar = inner.indexOf('|');
  const target = unSlack(bar < 0 ? inner : inner.slice(0, bar));
  const label = bar < 0 ? undefined : unSlack(inner.slice(bar + 1));
  if (target.startsWith('!')) {
    const word = target.slice(1).split('^')[0];
    return `<span class="mention">${esc(label ?? `@${word}`)}</span>`;
  }
  if (target.startsWith('@') || target.startsWith('#'))
    return `<span class="mention">${esc(label ? `${target[0]}${label}` : target)}</span>`;
  return link(target, esc(label ?? target));
}

/** Formatting marks around text: not inside a word, and not next to a space on their inner side. */
const mark = (m: string, tag: string): [RegExp, string] => {
  const q = m === '*' ? '\\*' : m;
  return [
    new RegExp(`(?<![\\p{L}\\p{N}_${m}])${q}(?!\\s)([^${m}\\n]+?)(?<!\\s)${q}(?![\\p{L}\\p{N}_${m}])`, 'gu'),
    `<${tag}>$1</${tag}>`,
  ];
};
const MARKS = [mark('*', 'b'), mark('_', 'i'), mark('~', 's')];

/**
 * Slack mrkdwn to HTML, escaped first: `<url|label>` links (http(s) only), mentions, `` `code` ``,
 * `*bold*`, `_italic_`, `~strike~`; line breaks stay (the page keeps white space). Links and code
 * are set aside first, the rest is unescaped from Slack's entities, HTML-escaped and only then
 * formatted, so a formatting mark can add a tag but never markup of the message's own.
 */
export function mrkdwn(text: string): string {
  return formatAround(
    text,
    /<([^<>\n]*)>|`([^`\n]+)`/g,
    ([, a, code]) => (code !== undefined ? `<code>${esc(unSlack(code))}</code>` : angle(a ?? '')),
    (raw) => MARKS.reduce((html, [re, to]) => html.replace(re, to), esc(unSlack(raw))),
  );
}

// Blocks --------------------------------------------------------------------------------------

/** A Block Kit text object: plain_text literally, mrkdwn formatted. */
function textObject(t: unknown): string {
  const o = rec(t);
  if (o?.type === 'plain_text' && typeof o.text === 'string') return esc(o.text);
  if (o?.type === 'mrkdwn' && typeof o.text === 'string') return mrkdwn(o.text);
  return unknownElement('Slack text object', t);
}

function image(el: Record<string, unknown>, cls: string): string {
  const src = imageSrc(el.image_url);
  const alt = esc(str(el.alt_text) ?? '');
  if (!src) return `<span class="nolink ${cls}">${esc(`[image ${str(el.image_url) ?? ''}] ${alt}`)}</span>`;
  return `<img class="${cls}" src="${esc(src)}" alt="${alt}">`;
}

/** A button: a link when it has an http(s) URL, else its label (it would call the app back). */
function button(el: Record<string, unknown>): string {
  const style = el.style === 'primary' || el.style === 'danger' ? ` s-${el.style}` : '';
  const label = textObject(el.text);
  return el.url === undefined
    ? `<span class="s-button inert${style}" title="an interactive button (no URL)">${label}</span>`
    : link(el.url, label, `s-button${style}`);
}

/** An element of a section's accessory or an actions block. */
function element(e: unknown): string {
  const el = rec(e);
  if (el?.type === 'button') return button(el);
  if (el?.type === 'image') return image(el, 's-accessory-image');
  return unknownElement('Slack element', e);
}

function block(b: unknown): string {
  const o = rec(b);
  switch (o?.type) {
    case 'header':
      return `<div class="s-header">${textObject(o.text)}</div>`;
    case 'section': {
      const text = o.text === undefined ? '' : `<div class="s-text">${textObject(o.text)}</div>`;
      const fields = Array.isArray(o.fields)
        ? `<div class="s-fields">${o.fields.map((f) => `<div>${textObject(f)}</div>`).join('')}</div>`
        : '';
      const accessory =
        o.accessory === undefined ? '' : `<div class="s-accessory">${element(o.accessory)}</div>`;
      return `<div class="s-section"><div class="s-main">${text}${fields}</div>${accessory}</div>`;
    }
    case 'context':
      return `<div class="s-context">${list(o.elements)
        .map((e) =>
          rec(e)?.type === 'image' ? image(rec(e) ?? {}, 's-context-image') : `<span>${textObject(e)}</span>`,
        )
        .join(' ')}</div>`;
    case 'divider':
      return '<hr class="s-divider">';
    case 'image': {
      const title = o.title === undefined ? '' : `<figcaption>${textObject(o.title)}</figcaption>`;
      return `<figure class="s-image">${title}${image(o, 's-block-image')}</figure>`;
    }
    case 'actions':
      return `<div class="s-actions">${list(o.elements).map(element).join('')}</div>`;
    default:
      return unknownElement('Slack block', b);
  }
}

/** A `chat.postMessage` body: its blocks, then its `text` (the notification's), or the text alone. */
export function slackMessage(body: unknown): string {
  const o = rec(body) ?? {};
  const blocks = typeof o.blocks === 'string' ? parseJson(o.blocks) : o.blocks;
  const text = str(o.text);
  if (!Array.isArray(blocks) || blocks.length === 0)
    return text ? `<div class="s-text">${mrkdwn(text)}</div>` : unknownElement('Slack message', body);
  const rendered = blocks.map(block).join('');
  const fallback = text
    ? `<p class="fallback"><span>Notification text:</span> ${mrkdwn(text)}</p>`
    : '<p class="fallback">No notification text.</p>';
  return `${rendered}${fallback}`;
}

/** Form-encoded Slack calls carry JSON as a string (`files`, `blocks`). */
function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

// Files ---------------------------------------------------------------------------------------

/** What a file's bytes are, by their signature (not by the name the sender gave). */
export function fileType(base64: string | null): { mime: string; image: boolean; label: string } {
  const head = base64 ? Buffer.from(base64.slice(0, 16), 'base64') : Buffer.alloc(0);
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))
    return { mime: 'image/png', image: true, label: 'PNG' };
  if (starts(0xff, 0xd8, 0xff)) return { mime: 'image/jpeg', image: true, label: 'JPEG' };
  if (starts(0x47, 0x49, 0x46, 0x38)) return { mime: 'image/gif', image: true, label: 'GIF' };
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return { mime: 'application/pdf', image: false, label: 'PDF' };
  return { mime: 'application/octet-stream', image: false, label: 'file' };
}

/** Where the capture server serves a file's bytes (see capture-server.ts), and the path's shape. */
export const fileContentPath = (id: string) => `/slack/files/${encodeURIComponent(id)}/content`;
export const fileIdOfContentPath = (path: string): string | undefined => {
  const m = path.match(/^\/slack\/files\/([^/]+)\/content$/);
  return m ? decodeURIComponent(m[1] ?? '') : undefined;
};

const size = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;

function sharedFile(id: unknown, title: unknown, files: readonly CapturedFile[]): string {
  const f = files.find((x) => x.id === id);
  if (!f) return unknownElement('Slack file (not uploaded to this server)', { id, title });
  const name = esc(f.filename);
  const caption = `${esc(str(title) ?? f.title ?? f.filename)}${str(title) && title !== f.filename ? ` · ${name}` : ''}`;
  if (f.content === null)
    return `<div class="s-file">${caption} · ${size(f.length)} · bytes never uploaded</div>`;
  const type = fileType(f.content);
  const href = esc(fileContentPath(f.id));
  if (type.image)
    return `<figure class="s-file-image"><a href="${href}"><img src="${href}" alt="${esc(str(title) ?? f.filename)}"></a><figcaption>${caption} · ${type.label}, ${size(f.length)}</figcaption></figure>`;
  return `<div class="s-file"><a class="s-file-link" href="${href}" download="${name}">${name}</a> <span class="s-file-meta">${type.label}, ${size(f.length)}</span>${str(title) && title !== f.filename ? ` <span class="s-file-meta">${esc(title)}</span>` : ''}</div>`;
}

/** A `files.completeUploadExternal` body: its comment and each file it shared. */
export function slackFiles(body: unknown, files: readonly CapturedFile[]): string {
  const o = rec(body) ?? {};
  const shared = typeof o.files === 'string' ? parseJson(o.files) : o.files;
  const comment = str(o.initial_comment);
  const items = Array.isArray(shared)
    ? shared.map((x) => sharedFile(rec(x)?.id, rec(x)?.title, files)).join('')
    : `<pre>${jsonText(shared)}</pre>`;
  return `${comment ? `<div class="s-text">${mrkdwn(comment)}</div>` : ''}<div class="s-files">${items}</div>`;
}
