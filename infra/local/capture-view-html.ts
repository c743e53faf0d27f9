/**
 * The HTML pieces the outbox view (./capture-view.ts) builds its Slack and Teams renderings from.
 * Everything a message carries goes through `esc` before it reaches the page, and only an http(s)
 * URL becomes a link or an image source.
 */
import { escapeHtml } from '../../shared/domain/reports/render/markdown';

/** HTML-escapes a message's text (`& < > " '`), whatever its type: a non-string is shown as JSON. */
export const esc = (v: unknown): string => escapeHtml(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** The record `v` is, or undefined: a message's JSON is read loosely, never trusted. */
export function rec(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The array `v` is, or an empty one. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** `v` when it is a string, else undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The URL normalised when it is an absolute http(s) URL, else undefined (javascript:, data:, relative…). */
export function httpUrl(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** An image source a message may name: http(s), or an inline data: image (Adaptive Cards allow both). */
export function imageSrc(v: unknown): string | undefined {
  if (typeof v === 'string' && /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(v)) return v;
  return httpUrl(v);
}

/**
 * `inner` (HTML already escaped) as a link to `url` when that is http(s); otherwise `inner` as text
 * with the refused URL in its tooltip, so a developer sees what the message carried.
 */
export function link(url: unknown, inner: string, cls = ''): string {
  const href = httpUrl(url);
  const c = cls ? ` class="${cls}"` : '';
  if (href) return `<a${c} href="${esc(href)}" rel="noopener noreferrer">${inner}</a>`;
  const title = typeof url === 'string' && url ? ` title="${esc(`not an http(s) link: ${url}`)}"` : '';
  return `<span class="nolink${cls ? ` ${cls}` : ''}"${title}>${inner}</span>`;
}

/** Pretty JSON of `v`, escaped, cut at `max` characters. */
export function jsonText(v: unknown, max = 4000): string {
  const text = JSON.stringify(v, null, 2) ?? String(v);
  return esc(text.length > max ? `${text.slice(0, max)}\n…` : text);
}

/**
 * An element the view does not know: a small labelled block with its JSON, so one unexpected
 * element never hides the rest of the message.
 */
export function unknownElement(what: string, v: unknown): string {
  const type = rec(v)?.type;
  const name = typeof type === 'string' ? ` "${type}"` : '';
  return `<div class="unknown"><span class="unknown-label">${esc(`${what}${name}, not rendered:`)}</span><pre>${jsonText(v, 1500)}</pre></div>`;
}

/**
 * `text` as HTML, with the spans `re` matches (links, code) set aside and rendered by `held`, and
 * the rest rendered by `rest` (which escapes it, then formats it). Formatting can thus wrap a link
 * but never reach into its URL, and a message's own markup never survives: a set-aside span stands
 * in the text as private-use characters (any in the message are replaced first).
 */
export function formatAround(
  text: string,
  re: RegExp,
  held: (match: string[]) => string,
  rest: (raw: string) => string,
): string {
  const kept: string[] = [];
  const clean = text.replace(/[\uE000\uE001]/g, '\uFFFD');
  const marked = clean.replace(re, (...m: string[]) => `\uE000${kept.push(held(m.slice(0, -2))) - 1}\uE001`);
  return rest(marked).replace(/\uE000(\d+)\uE001/g, (_, i: string) => kept[Number(i)] ?? '');
}

/** How deep cards and blocks may nest before the rest is shown as JSON. */
export const MAX_DEPTH = 24;
