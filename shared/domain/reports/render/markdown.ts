/**
 * A small, safe Markdown subset for TEXT widgets, rendered to HTML (email) and to Slack mrkdwn.
 * Supported: `#`–`###` headings, paragraphs, `-`/`*` and `1.` lists, `**bold**`, `*italic*`/`_italic_`,
 * `` `code` ``, `~~strike~~` and `[text](https://…)` links (http, https and mailto only). Everything
 * else is text: raw HTML is escaped, never passed through, so there is nothing to sanitise after
 * rendering. Chosen over a full CommonMark library because those pass raw HTML through (needing a
 * DOM-based sanitiser in Lambda) and have no Slack mrkdwn output; one parser feeds both outputs.
 */
type Inline =
  | { t: 'text'; v: string }
  | { t: 'b' | 'i' | 's'; c: Inline[] }
  | { t: 'code'; v: string }
  | { t: 'link'; href: string; c: Inline[] };

export type Block =
  | { t: 'h'; level: 1 | 2 | 3; c: Inline[] }
  | { t: 'p'; c: Inline[] }
  | { t: 'ul' | 'ol'; items: Inline[][] };

const SAFE_URL = /^(https?:\/\/|mailto:)[^\s<>"']+$/i;

/** Inline rules, tried in order at each position; the first that matches wins. */
const INLINE_RULES: { re: RegExp; make: (m: RegExpMatchArray) => Inline | null }[] = [
  { re: /^`([^`]+)`/, make: (m) => ({ t: 'code', v: m[1]! }) },
  { re: /^\*\*(.+?)\*\*/, make: (m) => ({ t: 'b', c: parseInline(m[1]!) }) },
  { re: /^~~(.+?)~~/, make: (m) => ({ t: 's', c: parseInline(m[1]!) }) },
  {
    re: /^([*_])([^*_\s][^*_]*?)\1/,
    make: (m) => ({ t: 'i', c: parseInline(m[2]!) }),
  },
  {
    re: /^\[([^\]]+)\]\(([^)\s]+)\)/,
    make: (m) => (SAFE_URL.test(m[2]!) ? { t: 'link', href: m[2]!, c: parseInline(m[1]!) } : null),
  },
];

function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  let text = '';
  let i = 0;
  outer: while (i < src.length) {
    const rest = src.slice(i);
    for (const rule of INLINE_RULES) {
      const m = rest.match(rule.re);
      const node = m ? rule.make(m) : null;
      if (m && node) {
        if (text) out.push({ t: 'text', v: text });
        text = '';
        out.push(node);
        i += m[0].length;
        continue outer;
      }
    }
    text += src[i];
    i++;
  }
  if (text) out.push({ t: 'text', v: text });
  return out;
}

export function parseMarkdown(md: string): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  let list: { t: 'ul' | 'ol'; items: Inline[][] } | null = null;
  const endPara = () => {
    if (para.length) blocks.push({ t: 'p', c: parseInline(para.join(' ')) });
    para = [];
  };
  const endList = () => {
    if (list) blocks.push(list);
    list = null;
  };
  for (const raw of md.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trimEnd();
    const heading = line.match(/^(#{1,3})\s+(.*)$/);
    const item = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
    if (!line.trim()) {
      endPara();
      endList();
    } else if (heading) {
      endPara();
      endList();
      blocks.push({ t: 'h', level: heading[1]!.length as 1 | 2 | 3, c: parseInline(heading[2]!) });
    } else if (item) {
      const m = item;
      endPara();
      const kind = /\d/.test(m[1]!) ? 'ol' : 'ul';
      if (!list || list.t !== kind) {
        endList();
        list = { t: kind, items: [] };
      }
      list.items.push(parseInline(m[2]!));
    } else {
      endList();
      para.push(line.trim());
    }
  }
  endPara();
  endList();
  return blocks;
}

export function escapeHtml(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** How a target writes each inline element: text and code as given, the others around their content. */
interface InlineFormat {
  text: (v: string) => string;
  code: (v: string) => string;
  b: (inner: string) => string;
  i: (inner: string) => string;
  s: (inner: string) => string;
  link: (href: string, inner: string) => string;
}

function renderInline(c: Inline[], f: InlineFormat): string {
  return c
    .map((n): string => {
      switch (n.t) {
        case 'text':
        case 'code':
          return f[n.t](n.v);
        case 'b':
        case 'i':
        case 's':
          return f[n.t](renderInline(n.c, f));
        case 'link':
          return f.link(n.href, renderInline(n.c, f));
        default:
          return '';
      }
    })
    .join('');
}

const HTML_INLINE: InlineFormat = {
  text: escapeHtml,
  code: (v) => `<code>${escapeHtml(v)}</code>`,
  b: (inner) => `<strong>${inner}</strong>`,
  i: (inner) => `<em>${inner}</em>`,
  s: (inner) => `<s>${inner}</s>`,
  link: (href, inner) => `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${inner}</a>`,
};
const inlineHtml = (c: Inline[]) => renderInline(c, HTML_INLINE);

export function markdownToHtml(md: string): string {
  return parseMarkdown(md)
    .map((b) => {
      if (b.t === 'h') return `<h${b.level + 1}>${inlineHtml(b.c)}</h${b.level + 1}>`;
      if (b.t === 'p') return `<p>${inlineHtml(b.c)}</p>`;
      return `<${b.t}>${b.items.map((i) => `<li>${inlineHtml(i)}</li>`).join('')}</${b.t}>`;
    })
    .join('\n');
}

/** Slack's own escaping: `&`, `<` and `>` are the only control characters of mrkdwn text. */
export function escapeMrkdwn(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const MRKDWN_INLINE: InlineFormat = {
  text: escapeMrkdwn,
  code: (v) => `\`${escapeMrkdwn(v)}\``,
  b: (inner) => `*${inner}*`,
  i: (inner) => `_${inner}_`,
  s: (inner) => `~${inner}~`,
  link: (href, inner) => `<${href.replaceAll('|', '%7C').replaceAll('>', '%3E')}|${inner}>`,
};
const inlineMrkdwn = (c: Inline[]) => renderInline(c, MRKDWN_INLINE);

export function markdownToMrkdwn(md: string): string {
  return parseMarkdown(md)
    .map((b) => {
      if (b.t === 'h') return `*${inlineMrkdwn(b.c)}*`;
      if (b.t === 'p') return inlineMrkdwn(b.c);
      return b.items.map((i, n) => `${b.t === 'ol' ? `${n + 1}.` : '•'} ${inlineMrkdwn(i)}`).join('\n');
    })
    .join('\n\n');
}

function inlineText(c: Inline[]): string {
  return c
    .map((n) =>
      n.t === 'text' || n.t === 'code'
        ? n.v
        : n.t === 'link'
          ? `${inlineText(n.c)} (${n.href})`
          : inlineText(n.c),
    )
    .join('');
}

export function markdownToText(md: string): string {
  return parseMarkdown(md)
    .map((b) =>
      b.t === 'h' || b.t === 'p'
        ? inlineText(b.c)
        : b.items.map((i, n) => `${b.t === 'ol' ? `${n + 1}.` : '-'} ${inlineText(i)}`).join('\n'),
    )
    .join('\n\n');
}
