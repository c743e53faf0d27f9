/**
 * Renders sample alert notifications as people see them, for looking at (never run by a test):
 * `npx tsx test/support/alerts-preview.ts` writes, per sample, the e-mail HTML as sent and a
 * faithful HTML rendering of the Slack blocks (Block Kit: header, plain_text and mrkdwn sections, two-column
 * fields, context, a button) and of the Teams Adaptive Card (TextBlock sizes, weights, colours,
 * subtle text and wrapping, FactSet, RichTextBlock/TextRun shown literally, ColumnSet,
 * Action.OpenUrl, Teams' markdown subset) into
 * test/artifacts/alerts/. Screenshots by hand:
 * `chromium --headless --no-sandbox --window-size=760,900 --screenshot=x.png file.html`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AlertFiring, renderAlertMessage } from '../../shared/domain/alerts/render';
import type { Query } from '../../shared/model/query-model';

const OUT = join(__dirname, '..', 'artifacts', 'alerts');

const cost = (name: string, alias?: string) =>
  ({
    type: 'cost',
    name,
    colorIndex: 0,
    chartType: 'LINE',
    metricId: 'cost',
    ...(alias ? { alias } : {}),
  }) as Query;

const base = (alert: Partial<AlertFiring['alert']>, rest: Partial<AlertFiring>): AlertFiring => ({
  alert: {
    id: 'alrt_01preview',
    name: 'EC2 spike',
    description: '',
    currency: 'USD',
    queries: [cost('ec2', 'EC2 cost')],
    queryName: 'ec2',
    condition: null,
    thresholdType: 'ABOVE',
    evaluationPeriod: 'DAILY',
    urlState: 'groupBy=ServiceName&datePreset=TRAILING_30_DAYS',
    ...alert,
  },
  thresholds: [],
  evaluatedDay: '2026-11-20',
  period: { start: '2026-11-20', end: '2026-11-20' },
  values: {},
  baselines: {},
  appUrl: 'https://app.example.com/',
  ...rest,
});

export const SAMPLES: Record<string, AlertFiring> = {
  median: base(
    {
      description: 'EC2 daily cost far above its usual level',
      condition: 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5 and ec2 > 100',
    },
    { values: { ec2: 1240 }, baselines: { 'rollingMedian(ec2,28,DAY)': 540 } },
  ),
  std: base(
    {
      name: 'Data-transfer anomaly on the production analytics accounts (eu-west-1 and eu-central-1), weekdays',
      currency: 'EUR',
      queries: [cost('dt', 'Data transfer')],
      queryName: 'dt',
      condition: 'dt > rollingMedian(dt, 14, DAY) + 3 * rollingStd(dt, 14, DAY)',
    },
    {
      values: { dt: 18234.5 },
      baselines: { 'rollingMedian(dt,14,DAY)': 9120.25, 'rollingStd(dt,14,DAY)': 1210.4 },
    },
  ),
  markdown: base(
    {
      name: '**Prod** _EC2_ [click me](https://evil.example) & <b>team</b> {{DATE(2026-11-20T06:00:00Z)}}',
      queries: [cost('ec2', 'EC2 *spot* & <on-demand>')],
      condition: 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5',
    },
    { values: { ec2: 1240 }, baselines: { 'rollingMedian(ec2,28,DAY)': 540 } },
  ),
  under: base(
    {
      name: 'Backups stopped?',
      currency: 'GBP',
      queries: [cost('s3', 'S3 backup storage')],
      queryName: 's3',
      thresholdType: 'UNDER',
    },
    {
      thresholds: [
        { value: 50, severityLevel: 'WARNING', metricMode: 'ABSOLUTE_SPEND', changeBasis: 'ABSOLUTE_DELTA' },
        { value: 10, severityLevel: 'CRITICAL', metricMode: 'ABSOLUTE_SPEND', changeBasis: 'ABSOLUTE_DELTA' },
      ],
      values: { s3: 4.2 },
    },
  ),
  percent: base(
    {
      name: 'Week over week +20%',
      queries: [cost('spend', 'Total spend')],
      queryName: 'spend',
      evaluationPeriod: 'WEEKLY',
      urlState: '',
    },
    {
      thresholds: [
        { value: 20, severityLevel: 'WARNING', metricMode: 'PERIOD_CHANGE', changeBasis: 'PERCENTAGE' },
      ],
      evaluatedDay: '2026-11-22',
      period: { start: '2026-11-16', end: '2026-11-22' },
      values: { spend: 125_310.4 },
      previousValue: 98_004.75,
    },
  ),
};

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const page = (title: string, body: string, css: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>${css}</style></head><body>${body}</body></html>\n`;

// Slack Block Kit ------------------------------------------------------------------------------

/** Slack mrkdwn (already Slack-escaped: &amp; &lt; &gt;) to HTML: *bold*, _italic_, line breaks. */
function mrkdwn(text: string): string {
  return text
    .replace(/"/g, '&quot;')
    .replace(/(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,:;!?])/g, '$1<b>$2</b>')
    .replace(/(^|[\s(])_([^_\n]+)_(?=$|[\s).,:;!?])/g, '$1<i>$2</i>')
    .replace(/\n/g, '<br>');
}

// biome-ignore lint/suspicious/noExplicitAny: Block Kit and Adaptive Card JSON, read loosely by a preview script
type Block = Record<string, any>;

/** A Block Kit text object: plain_text literally (line breaks kept), mrkdwn formatted. */
function slackText(t: Block): string {
  return t.type === 'plain_text' ? esc(String(t.text)).replace(/\n/g, '<br>') : mrkdwn(String(t.text));
}

function slackHtml(blocks: Block[], fallback: string): string {
  const parts = blocks.map((b) => {
    switch (b.type) {
      case 'header':
        return `<div class="header">${esc(b.text.text)}</div>`;
      case 'section':
        return `<div class="section">${b.text ? `<div>${slackText(b.text)}</div>` : ''}${
          b.fields
            ? `<div class="fields">${b.fields.map((f: Block) => `<div>${slackText(f)}</div>`).join('')}</div>`
            : ''
        }</div>`;
      case 'context':
        return `<div class="context">${b.elements.map((e: Block) => slackText(e)).join(' ')}</div>`;
      case 'actions':
        return `<div class="actions">${b.elements
          .map((e: Block) => `<a class="button" href="${esc(e.url)}">${esc(e.text.text)}</a>`)
          .join('')}</div>`;
      default:
        return `<div class="unknown">unknown block ${esc(String(b.type))}</div>`;
    }
  });
  return page(
    fallback,
    `<div class="msg"><div class="avatar">$</div><div class="content"><div class="who">FinOps alerts <span class="app">APP</span> <span class="time">06:02</span></div>${parts.join('')}</div></div><p class="fallback">Notification text: ${esc(fallback)}</p>`,
    `body{font-family:Lato,Helvetica,Arial,sans-serif;font-size:15px;color:#1d1c1d;margin:0;padding:20px;width:720px;background:#fff}
.msg{display:flex;gap:8px}.avatar{width:36px;height:36px;border-radius:4px;background:#2eb67d;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center;flex:none}
.content{flex:1;min-width:0}.who{font-weight:900}.app{font-size:10px;background:#e8e8e8;color:#616061;padding:1px 3px;border-radius:2px;font-weight:700}.time{color:#616061;font-size:12px;font-weight:400}
.header{font-size:18px;font-weight:900;margin:6px 0 4px;line-height:1.33}.section{margin:6px 0;line-height:1.46}
.fields{display:grid;grid-template-columns:1fr 1fr;gap:8px 16px;margin-top:4px}.context{color:#616061;font-size:13px;margin:6px 0}
.actions{margin:8px 0}.button{display:inline-block;border:1px solid #c6c6c6;border-radius:4px;padding:4px 12px;font-weight:700;font-size:13px;color:#1d1c1d;text-decoration:none}
.fallback{margin-top:24px;color:#999;font-size:12px}`,
  );
}

// Teams Adaptive Card --------------------------------------------------------------------------

const SIZES: Record<string, number> = { Small: 12, Default: 14, Medium: 17, Large: 21, ExtraLarge: 26 };
const COLORS: Record<string, string> = {
  Default: '#242424',
  Attention: '#c4314b',
  Good: '#237b4b',
  Warning: '#835c00',
  Accent: '#5b5fc7',
};

/** Teams' TextBlock markdown subset: **bold**, _italic_, [text](url); everything else literal. */
function teamsMarkdown(text: string): string {
  return esc(text)
    .replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>')
    .replace(/(^|\s)_([^_]+)_(?=$|\s|[.,])/g, '$1<i>$2</i>')
    .replace(/\[([^\]]+)\]\(([^)]+)\)/g, '<a href="$2">$1</a>');
}

function textBlock(b: Block): string {
  const style = [
    `font-size:${SIZES[b.size ?? 'Default']}px`,
    `font-weight:${b.weight === 'Bolder' ? 600 : b.weight === 'Lighter' ? 300 : 400}`,
    `color:${COLORS[b.color ?? 'Default']}`,
    b.isSubtle ? 'opacity:.7' : '',
    b.wrap ? 'white-space:normal' : 'white-space:nowrap;overflow:hidden;text-overflow:ellipsis',
  ].join(';');
  return `<div class="tb" style="${style}">${teamsMarkdown(String(b.text))}</div>`;
}

/** A RichTextBlock: its TextRuns, literally (Teams applies no markdown to a TextRun). */
function richTextBlock(b: Block): string {
  const runs = (b.inlines as Block[]).map((r) => {
    const style = [
      `font-size:${SIZES[r.size ?? 'Default']}px`,
      `font-weight:${r.weight === 'Bolder' ? 600 : r.weight === 'Lighter' ? 300 : 400}`,
      `color:${COLORS[r.color ?? 'Default']}`,
      r.isSubtle ? 'opacity:.7' : '',
    ].join(';');
    return `<span style="${style}">${esc(String(r.text))}</span>`;
  });
  return `<div class="tb">${runs.join('')}</div>`;
}

function cardElement(b: Block): string {
  if (b.type === 'TextBlock') return textBlock(b);
  if (b.type === 'RichTextBlock') return richTextBlock(b);
  if (b.type === 'ColumnSet')
    return `<div class="cols">${(b.columns as Block[])
      .map(
        (c) =>
          `<div style="${c.width === 'stretch' ? 'flex:1' : 'flex:none'}">${(c.items as Block[]).map(cardElement).join('')}</div>`,
      )
      .join('')}</div>`;
  if (b.type === 'FactSet')
    return `<table class="facts">${(b.facts as Block[])
      .map((f) => `<tr><td class="t">${teamsMarkdown(f.title)}</td><td>${teamsMarkdown(f.value)}</td></tr>`)
      .join('')}</table>`;
  return `<div class="unknown">unsupported element ${esc(String(b.type))}</div>`;
}

function teamsHtml(card: Block): string {
  const body = (card.body as Block[]).map(cardElement);
  const actions = ((card.actions ?? []) as Block[]).map((a) =>
    a.type === 'Action.OpenUrl'
      ? `<a class="action" href="${esc(a.url)}">${esc(a.title)}</a>`
      : `<span class="unknown">unsupported action ${esc(String(a.type))}</span>`,
  );
  const width = card.msteams?.width === 'Full' ? 680 : 440;
  return page(
    'Teams card',
    `<div class="chat"><div class="who">FinOps alerts via Workflows <span class="time">06:02</span></div><div class="card" style="width:${width}px">${body.join('')}<div class="actions">${actions.join('')}</div></div></div>`,
    `body{font-family:"Segoe UI",system-ui,sans-serif;background:#f5f5f5;margin:0;padding:20px;width:740px}
.who{font-size:12px;color:#616161;margin-bottom:4px}.time{margin-left:6px}
.card{background:#fff;border-radius:6px;box-shadow:0 1px 2px rgba(0,0,0,.14);padding:16px;box-sizing:border-box}
.tb{margin-top:8px;line-height:1.4}.tb:first-child{margin-top:0}
.cols{display:flex;gap:12px;max-width:460px}.cols .tb{margin-top:4px}
.facts{margin-top:8px;border-collapse:collapse;font-size:14px;color:#242424}.facts td{padding:2px 12px 2px 0;vertical-align:top}.facts .t{font-weight:600;max-width:300px}
.actions{margin-top:16px;display:flex;gap:8px}.action{flex:1;text-align:center;border:1px solid #d1d1d1;border-radius:4px;padding:6px 12px;color:#242424;font-weight:600;font-size:14px;text-decoration:none}
.unknown{color:red}`,
  );
}

function main(): void {
  mkdirSync(OUT, { recursive: true });
  for (const [name, firing] of Object.entries(SAMPLES)) {
    for (const test of [false, true]) {
      if (test && name !== 'median') continue;
      const m = renderAlertMessage({ ...firing, test });
      const stem = `preview-${name}${test ? '-test' : ''}`;
      writeFileSync(join(OUT, `${stem}.email.html`), m.html);
      writeFileSync(join(OUT, `${stem}.email.txt`), `Subject: ${m.subject}\n\n${m.text}\n`);
      writeFileSync(join(OUT, `${stem}.slack.html`), slackHtml(m.slackBlocks as Block[], m.slackText));
      writeFileSync(join(OUT, `${stem}.teams.html`), teamsHtml(m.teamsCard as Block));
    }
  }
  process.stdout.write(`wrote ${OUT}\n`);
}

if (require.main === module) main();
