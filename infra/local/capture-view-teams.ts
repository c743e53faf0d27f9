/**
 * Teams in the outbox view: a webhook post's Adaptive Card(s) as HTML, close to how Teams shows
 * them: TextBlock (size, weight, colour, subtle, wrap; Teams' markdown subset), RichTextBlock of
 * TextRuns (always literal), FactSet, Image and ImageSet, ColumnSet/Column, Container, ActionSet
 * and the card's actions. Any other element is shown as a labelled JSON block. Styles are classes
 * only (the page's CSP allows its one stylesheet, no inline style).
 */
import {
  esc,
  formatAround,
  imageSrc,
  link,
  list,
  MAX_DEPTH,
  rec,
  str,
  unknownElement,
} from './capture-view-html';

type El = Record<string, unknown>;

/** A class of the value when it is one of `allowed` (Adaptive Card enums are case-insensitive). */
function enumClass(prefix: string, v: unknown, allowed: readonly string[]): string {
  const value = typeof v === 'string' ? v.toLowerCase() : '';
  return allowed.includes(value) ? ` ${prefix}-${value}` : '';
}

const SIZES = ['small', 'default', 'medium', 'large', 'extralarge'];
const COLORS = ['default', 'dark', 'light', 'accent', 'good', 'warning', 'attention'];

/** The text styles TextBlock and TextRun share. */
function textClasses(e: El): string {
  return [
    enumClass('size', e.size, SIZES),
    enumClass('color', e.color, COLORS),
    e.weight === 'Bolder' || e.weight === 'bolder' ? ' bolder' : '',
    e.weight === 'Lighter' || e.weight === 'lighter' ? ' lighter' : '',
    e.isSubtle === true ? ' subtle' : '',
    e.fontType === 'Monospace' || e.fontType === 'monospace' ? ' mono' : '',
  ].join('');
}

/**
 * Teams' markdown subset of TextBlock and FactSet, escaped first: `**bold**`, `_italic_` or
 * `*italic*`, `[label](url)` (http(s) links only); line breaks stay.
 */
export function teamsMarkdown(text: string): string {
  return formatAround(
    text,
    /\[([^\]\n]+)\]\(([^)\s]+)\)/g,
    ([, label, url]) => link(url, esc(label)),
    (raw) =>
      esc(raw)
        .replace(/\*\*(?!\s)([^*\n]+?)(?<!\s)\*\*/g, '<b>$1</b>')
        .replace(/(?<![\p{L}\p{N}_*])[*_](?!\s)([^*_\n]+?)(?<!\s)[*_](?![\p{L}\p{N}_*])/gu, '<i>$1</i>'),
  );
}

function textBlock(e: El): string {
  const align = enumClass('align', e.horizontalAlignment, ['left', 'center', 'right']);
  const wrap = e.wrap === true ? '' : ' nowrap';
  return `<div class="t-text${textClasses(e)}${align}${wrap}">${teamsMarkdown(str(e.text) ?? '')}</div>`;
}

function textRun(r: unknown): string {
  if (typeof r === 'string') return esc(r);
  const e = rec(r);
  if (e?.type !== 'TextRun') return unknownElement('RichTextBlock inline', r);
  const cls = [
    textClasses(e),
    e.italic === true ? ' italic' : '',
    e.strikethrough === true ? ' strike' : '',
    e.underline === true ? ' underline' : '',
    e.highlight === true ? ' highlight' : '',
  ].join('');
  const span = `<span class="t-run${cls}">${esc(str(e.text) ?? '')}</span>`;
  const action = rec(e.selectAction);
  return action?.type === 'Action.OpenUrl' ? link(action.url, span) : span;
}

function image(e: El): string {
  const src = imageSrc(e.url);
  const alt = esc(str(e.altText) ?? '');
  const size = enumClass('img', e.size, ['auto', 'stretch', 'small', 'medium', 'large']);
  if (!src) return `<div class="nolink t-image">${esc(`[image ${str(e.url) ?? ''}] `)}${alt}</div>`;
  const img = `<img class="t-image${size}" src="${esc(src)}" alt="${alt}">`;
  const action = rec(e.selectAction);
  return action?.type === 'Action.OpenUrl' ? link(action.url, img) : img;
}

/** A column's width: stretch, auto, a weight (1 to 5 kept) or pixels (shown as auto). */
function columnClass(width: unknown): string {
  if (width === 'stretch' || width === undefined) return 'col-stretch';
  if (typeof width === 'number' || /^\d+$/.test(String(width)))
    return `col-stretch col-w${Math.min(5, Math.max(1, Math.round(Number(width))))}`;
  return 'col-auto';
}

function action(a: unknown, depth: number): string {
  const e = rec(a);
  const title = esc(str(e?.title) ?? '');
  switch (e?.type) {
    case 'Action.OpenUrl':
      return link(e.url, title || esc(str(e.url) ?? ''), 't-action');
    case 'Action.Submit':
    case 'Action.Execute':
    case 'Action.ToggleVisibility':
      return `<span class="t-action inert" title="${esc(`${e.type}: answered by the app, not a link`)}">${title}</span>`;
    case 'Action.ShowCard':
      return `<details class="t-showcard"><summary class="t-action">${title}</summary>${card(e.card, depth + 1)}</details>`;
    default:
      return unknownElement('Adaptive Card action', a);
  }
}

const actions = (as: unknown, depth: number) =>
  Array.isArray(as) && as.length
    ? `<div class="t-actions">${as.map((a) => action(a, depth)).join('')}</div>`
    : '';

const items = (v: unknown, depth: number) =>
  list(v)
    .map((x) => element(x, depth + 1))
    .join('');

function element(x: unknown, depth: number): string {
  const e = rec(x);
  if (!e || depth > MAX_DEPTH) return unknownElement('Adaptive Card element', x);
  if (e.isVisible === false) return '';
  switch (e.type) {
    case 'TextBlock':
      return textBlock(e);
    case 'RichTextBlock':
      return `<div class="t-text t-rich">${list(e.inlines).map(textRun).join('')}</div>`;
    case 'FactSet':
      return `<table class="t-facts">${list(e.facts)
        .map(
          (f) =>
            `<tr><th>${teamsMarkdown(str(rec(f)?.title) ?? '')}</th><td>${teamsMarkdown(str(rec(f)?.value) ?? '')}</td></tr>`,
        )
        .join('')}</table>`;
    case 'Image':
      return `<div class="t-image-box">${image(e)}</div>`;
    case 'ImageSet':
      return `<div class="t-imageset">${list(e.images)
        .map((i) => (rec(i)?.type === 'Image' ? image(rec(i) ?? {}) : unknownElement('ImageSet image', i)))
        .join('')}</div>`;
    case 'ColumnSet':
      return `<div class="t-columns">${list(e.columns)
        .map((c) => {
          const col = rec(c);
          if (!col || (col.type !== undefined && col.type !== 'Column'))
            return unknownElement('ColumnSet column', c);
          return `<div class="t-column ${columnClass(col.width)}">${items(col.items, depth)}</div>`;
        })
        .join('')}</div>`;
    case 'Container': {
      const style = enumClass('style', e.style, ['emphasis', 'good', 'attention', 'warning', 'accent']);
      return `<div class="t-container${style}">${items(e.items, depth)}</div>`;
    }
    case 'ActionSet':
      return actions(e.actions, depth);
    default:
      return unknownElement('Adaptive Card element', x);
  }
}

/** An Adaptive Card: its body, then its actions. */
function card(c: unknown, depth = 0): string {
  const o = rec(c);
  if (o?.type !== 'AdaptiveCard') return unknownElement('Teams attachment content', c);
  const full = rec(o.msteams)?.width === 'Full' ? ' full' : '';
  return `<div class="t-card${full}">${items(o.body, depth)}${actions(o.actions, depth)}</div>`;
}

/**
 * A Teams webhook post: a `message` whose attachments are Adaptive Cards (what Workflows takes and
 * the service sends), or a bare card. Anything else is shown as JSON.
 */
export function teamsMessage(body: unknown): string {
  const o = rec(body);
  if (o?.type === 'AdaptiveCard') return card(o);
  if (o?.type !== 'message' || !Array.isArray(o.attachments)) return unknownElement('Teams post', body);
  if (o.attachments.length === 0) return '<p class="fallback">A message without attachments.</p>';
  return o.attachments
    .map((a) =>
      rec(a)?.contentType === 'application/vnd.microsoft.card.adaptive'
        ? card(rec(a)?.content)
        : unknownElement(`Attachment ${str(rec(a)?.contentType) ?? 'without a contentType'}`, a),
    )
    .join('');
}
