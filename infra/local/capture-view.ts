/**
 * The outbox: the Slack and Teams messages the local stack sent, as one HTML page (served by the
 * capture server at GET /outbox). A pure function of the recorded calls and files: every Slack
 * `chat.postMessage` (its blocks), every `files.completeUploadExternal` (its comment and files:
 * images shown, other files as download links) and every Teams webhook post (its Adaptive
 * Cards), newest first, a thread's replies under their message. Every text of a message is
 * HTML-escaped; the page has no script and its CSP (`OUTBOX_CSP`) allows none.
 */
import { createHash } from 'node:crypto';
import { esc, jsonText, rec, str } from './capture-view-html';
import { slackFiles, slackMessage } from './capture-view-slack';
import { teamsMessage } from './capture-view-teams';
import type { CapturedCall, CapturedFile } from './captured';

/** Where the capture server serves the view. */
export const OUTBOX_PATH = '/outbox';

export type OutboxKind = 'slack' | 'teams';

interface Entry {
  call: CapturedCall;
  /** A Slack message's ts (its answer's), which replies name as `thread_ts`. */
  ts: string | undefined;
  channel: string | undefined;
  threadTs: string | undefined;
  replies: Entry[];
}

/** The Slack Web API method of a call (`chat.postMessage`), from its path. */
const slackMethod = (call: CapturedCall) => call.path.split('?')[0]?.split('/').pop() ?? '';

/** Whether the outbox shows the call: a Slack message or file share, or a Teams post. */
function isMessage(call: CapturedCall): boolean {
  if (call.kind === 'teams') return call.method === 'POST';
  if (call.kind !== 'slack') return false;
  const m = slackMethod(call);
  return m === 'chat.postMessage' || m === 'files.completeUploadExternal';
}

function entryOf(call: CapturedCall): Entry {
  const body = rec(call.body) ?? {};
  return {
    call,
    ts: str(rec(call.answer)?.ts),
    channel: str(body.channel) ?? str(body.channel_id),
    threadTs: str(body.thread_ts),
    replies: [],
  };
}

/** The messages to show, newest first, each Slack reply under the message of its thread. */
export function outboxEntries(calls: readonly CapturedCall[], kind?: OutboxKind): Entry[] {
  const entries = calls.filter((c) => isMessage(c) && (!kind || c.kind === kind)).map(entryOf);
  const top: Entry[] = [];
  for (const e of entries) {
    const parent = e.threadTs
      ? entries.find((p) => p !== e && p.ts === e.threadTs && p.channel === e.channel && !p.threadTs)
      : undefined;
    (parent ? parent.replies : top).push(e);
  }
  return top.sort((a, b) => b.call.id - a.call.id);
}

/** An ISO time as `2026-11-20 06:02:11 UTC`. */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

function entryHtml(e: Entry, files: readonly CapturedFile[], reply = false): string {
  const { call } = e;
  const answer = rec(call.answer);
  const refused =
    answer?.ok === false
      ? ` <span class="refused">${esc(`refused: ${str(answer.error) ?? 'error'}`)}</span>`
      : '';
  const slack = call.kind === 'slack';
  const method = slack ? slackMethod(call) : 'webhook';
  const isFiles = method === 'files.completeUploadExternal';
  const where = slack
    ? `<span class="where">${esc(e.channel ? `#${e.channel}` : 'no channel')}</span>`
    : `<span class="where">${esc(call.path)}</span>`;
  const thread =
    e.threadTs && !reply ? ` <span class="note">${esc(`reply in thread ${e.threadTs}`)}</span>` : '';
  const label = slack ? (isFiles ? 'Slack files' : 'Slack') : 'Teams';
  const content = slack
    ? isFiles
      ? slackFiles(call.body, files)
      : slackMessage(call.body)
    : teamsMessage(call.body);
  const replies = e.replies.length
    ? `<div class="thread"><p class="thread-label">${e.replies.length} ${e.replies.length === 1 ? 'reply' : 'replies'} in thread</p>${e.replies
        .map((r) => entryHtml(r, files, true))
        .join('')}</div>`
    : '';
  return `<article class="entry ${slack ? 'slack' : 'teams'}${reply ? ' reply' : ''}" id="call-${call.id}">
<header class="meta"><span class="badge ${slack ? 'slack' : 'teams'}">${label}</span> ${where} <time datetime="${esc(call.receivedAt)}">${esc(when(call.receivedAt))}</time> <a class="id" href="#call-${call.id}">#${call.id}</a>${refused}${thread}</header>
<div class="msg ${slack ? 's-msg' : 't-msg'}">${content}</div>
<details class="raw"><summary>JSON</summary><pre>${jsonText(call.body, 20000)}</pre></details>
${replies}</article>`;
}

const nav = (current: OutboxKind | undefined, counts: Record<'all' | OutboxKind, number>, jsonUrl: string) =>
  `<nav>${(
    [
      [undefined, 'All', counts.all],
      ['slack', 'Slack', counts.slack],
      ['teams', 'Teams', counts.teams],
    ] as const
  )
    .map(
      ([k, name, n]) =>
        `<a href="${OUTBOX_PATH}${k ? `?kind=${k}` : ''}"${k === current ? ' aria-current="page"' : ''}>${name} <span class="count">${n}</span></a>`,
    )
    .join('')}<a href="${esc(jsonUrl)}">JSON</a></nav>`;

/**
 * The page: the messages of `kind` (all when absent), newest first. `jsonUrl` is the raw record's
 * address (/messages, filtered like the page).
 */
export function renderOutbox(
  calls: readonly CapturedCall[],
  files: readonly CapturedFile[],
  opts: { kind?: OutboxKind | undefined } = {},
): string {
  const entries = outboxEntries(calls, opts.kind);
  const count = (k?: OutboxKind) => calls.filter((c) => isMessage(c) && (!k || c.kind === k)).length;
  const counts = { all: count(), slack: count('slack'), teams: count('teams') };
  const others = calls.filter((c) => !isMessage(c)).length;
  const jsonUrl = `/messages${opts.kind ? `?kind=${opts.kind}` : ''}`;
  const body = entries.length
    ? entries.map((e) => entryHtml(e, files)).join('\n')
    : `<p class="empty">${opts.kind === 'teams' ? 'No Teams message' : opts.kind === 'slack' ? 'No Slack message' : 'No Slack or Teams message'} captured yet. What the stack sends appears here; reload to see new ones.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Outbox · Slack and Teams</title><style>${OUTBOX_CSS}</style></head>
<body><main>
<header class="top"><h1>Outbox</h1><p class="lede">Slack and Teams messages the local stack sent, newest first (times in UTC). Reload to see new ones.</p>
${nav(opts.kind, counts, jsonUrl)}${others ? `<p class="note">${others} other ${others === 1 ? 'call' : 'calls'} (upload steps, IdP invitations…) only in the <a href="/messages">JSON</a>.</p>` : ''}</header>
${body}
</main></body></html>
`;
}

/** The page's one stylesheet, allowed by its hash in the CSP: classes only, no inline style. */
export const OUTBOX_CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#1d1c1d;font:15px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
main{max-width:880px;margin:0 auto;padding:16px}
h1{margin:0;font-size:24px}
.lede{margin:4px 0 8px;color:#4b5563}
nav{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
nav a{padding:4px 10px;border-radius:999px;background:#fff;border:1px solid #d1d5db;color:#1f2937;text-decoration:none;font-size:14px}
nav a[aria-current]{background:#1f2937;color:#fff;border-color:#1f2937}
.count{opacity:.7}
.note{color:#6b7280;font-size:13px;margin:4px 0}
.empty{background:#fff;border-radius:8px;padding:24px;color:#4b5563}
.entry{background:#fff;border-radius:8px;box-shadow:0 1px 2px rgba(0,0,0,.12);margin:14px 0;padding:12px 16px;min-width:0}
.entry.reply{box-shadow:none;border-left:3px solid #d1d5db;border-radius:0;margin:10px 0 0;padding:4px 0 4px 12px}
.meta{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 10px;font-size:13px;color:#6b7280;margin-bottom:8px}
.badge{font-weight:700;font-size:12px;padding:1px 8px;border-radius:4px;color:#fff}
.badge.slack{background:#4a154b}.badge.teams{background:#464eb8}
.where{font-family:ui-monospace,Menlo,Consolas,monospace;color:#374151;overflow-wrap:anywhere}
.id{color:#9ca3af;text-decoration:none}
.refused{color:#b91c1c;font-weight:700}
.msg{white-space:pre-wrap;overflow-wrap:anywhere;min-width:0}
.msg img{max-width:100%;height:auto}
a{color:#1264a3}
.nolink{color:#6b7280;text-decoration:underline dotted}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;background:#f6f6f6;border:1px solid #e1e1e1;border-radius:3px;padding:0 3px;color:#c01343}
.mention{background:#e8f5fa;color:#1264a3;border-radius:3px;padding:0 2px}
.fallback{color:#6b7280;font-size:12px;margin:10px 0 0}
.fallback span{font-weight:600}
.raw{margin-top:8px;font-size:12px;color:#6b7280}
.raw summary{cursor:pointer}
pre{white-space:pre;overflow:auto;max-height:420px;max-width:100%;background:#f9fafb;border:1px solid #e5e7eb;border-radius:4px;padding:8px;font-size:12px;margin:4px 0}
.unknown{border:1px dashed #b45309;border-radius:4px;padding:6px;margin:6px 0;background:#fffbeb;white-space:normal}
.unknown-label{font-size:12px;font-weight:600;color:#92400e}
.thread{margin-top:10px}
.thread-label{margin:0;font-size:13px;font-weight:600;color:#1264a3}
.s-header{font-size:18px;font-weight:900;margin:4px 0}
.s-section{display:flex;gap:12px;margin:6px 0}
.s-main{flex:1;min-width:0}
.s-fields{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:8px 16px;margin-top:4px}
.s-accessory{flex:none;max-width:40%}
.s-accessory-image{width:88px;height:88px;object-fit:cover;border-radius:6px}
.s-context{color:#616061;font-size:13px;margin:6px 0}
.s-context-image{width:18px;height:18px;vertical-align:middle;border-radius:3px}
.s-divider{border:none;border-top:1px solid #e2e2e2;margin:10px 0}
.s-image{margin:8px 0}.s-image figcaption{font-size:13px;color:#616061}
.s-block-image{display:block;max-width:100%;border-radius:6px}
.s-actions{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0;white-space:normal}
.s-button{display:inline-block;border:1px solid #c6c6c6;border-radius:4px;padding:4px 12px;font-weight:700;font-size:13px;color:#1d1c1d;text-decoration:none;background:#fff}
.s-button.s-primary{background:#007a5a;border-color:#007a5a;color:#fff}
.s-button.s-danger{background:#e01e5a;border-color:#e01e5a;color:#fff}
.inert{opacity:.75;cursor:default}
.nolink.s-button,.nolink.t-action{border-style:dashed;color:#6b7280;font-weight:400}
.s-files{display:flex;flex-direction:column;gap:8px;margin-top:6px;white-space:normal}
.s-file-image{margin:0}.s-file-image img{display:block;max-width:100%;max-height:480px;border:1px solid #e5e7eb;border-radius:6px}
.s-file-image figcaption,.s-file-meta{font-size:13px;color:#616061}
.s-file{border:1px solid #e5e7eb;border-radius:6px;padding:8px 12px}
.s-file-link{font-weight:700}
.t-msg{white-space:normal}
.t-card{background:#fff;border:1px solid #e0e0e0;border-radius:6px;padding:14px;max-width:460px;font-family:"Segoe UI",system-ui,sans-serif;color:#242424;font-size:14px;margin:4px 0}
.t-card.full{max-width:none}
.t-card+.t-card{margin-top:10px}
.t-text{margin-top:8px;white-space:pre-wrap;overflow-wrap:anywhere}
.t-text:first-child{margin-top:0}
.t-text.nowrap{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.t-rich{margin-top:6px}
.size-small{font-size:12px}.size-medium{font-size:17px}.size-large{font-size:21px}.size-extralarge{font-size:26px}
.bolder{font-weight:600}.lighter{font-weight:300}.subtle{opacity:.7}.mono{font-family:ui-monospace,Menlo,Consolas,monospace}
.italic{font-style:italic}.strike{text-decoration:line-through}.underline{text-decoration:underline}.highlight{background:#fff3b0}
.color-attention{color:#c4314b}.color-good{color:#237b4b}.color-warning{color:#835c00}.color-accent{color:#5b5fc7}.color-light{color:#8a8a8a}.color-dark{color:#111}
.align-center{text-align:center}.align-right{text-align:right}
.t-facts{border-collapse:collapse;margin-top:8px}
.t-facts th{text-align:left;font-weight:600;padding:2px 12px 2px 0;vertical-align:top}
.t-facts td{padding:2px 0;vertical-align:top;overflow-wrap:anywhere}
.t-image-box{margin-top:8px}
.t-image{display:block;max-width:100%;height:auto}
.t-image.img-stretch{width:100%}.t-image.img-small{width:40px}.t-image.img-medium{width:80px}.t-image.img-large{width:160px}
.t-imageset{display:flex;flex-wrap:wrap;gap:6px;margin-top:8px}
.t-columns{display:flex;gap:12px;margin-top:4px}
.t-column{min-width:0}
.col-stretch{flex:1 1 0;min-width:min(8em,30%)}.col-auto{flex:0 1 auto}
.col-w2{flex-grow:2}.col-w3{flex-grow:3}.col-w4{flex-grow:4}.col-w5{flex-grow:5}
.t-columns .t-text{margin-top:0}
.t-container{margin-top:8px;padding:0}
.style-emphasis,.style-good,.style-attention,.style-warning,.style-accent{padding:8px;border-radius:4px}
.style-emphasis{background:#f5f5f5}.style-good{background:#e7f2da}.style-attention{background:#fcf4f6}.style-warning{background:#fbf6d9}.style-accent{background:#e8ebfa}
.t-actions{display:flex;flex-wrap:wrap;gap:8px;margin-top:14px}
.t-action{flex:1 1 auto;text-align:center;border:1px solid #d1d1d1;border-radius:4px;padding:6px 12px;color:#242424;font-weight:600;font-size:14px;text-decoration:none;background:#fff}
.t-showcard{flex:1 1 100%}
@media (max-width:520px){main{padding:8px}.entry{padding:10px 12px}.s-section{flex-direction:column}.s-accessory{max-width:none}}
`;

/**
 * The page's Content-Security-Policy. No script at all; the stylesheet by its hash; images from
 * this server (shared files), data: and any http(s) origin, since a Teams card names its images by
 * URL (locally the stack's API serves them, on another port; in a test, any host). A local
 * developer tool showing the stack's own messages, so "any image host" is the simple, honest rule.
 */
export const OUTBOX_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(OUTBOX_CSS).digest('base64')}'`,
  "img-src 'self' data: http: https:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
