import { OUTBOX_CSP, OUTBOX_CSS, renderOutbox } from '../../../infra/local/capture-view';
import { fileType, mrkdwn } from '../../../infra/local/capture-view-slack';
import { teamsMessage } from '../../../infra/local/capture-view-teams';
import type { CapturedCall, CapturedFile } from '../../../infra/local/captured';
import { renderAlertMessage } from '../../../shared/domain/alerts/render';
import { renderBudgetAlertMessage } from '../../../shared/domain/budgets/alerts/render';
import { sampleBudgetFiring } from '../../../shared/domain/budgets/alerts/send-test';
import { renderExpiryMessage } from '../../../shared/domain/commitments/expiry-alert';
import { formatReport } from '../../../shared/domain/reports/render/format';
import { markdownToHtml, markdownToMrkdwn } from '../../../shared/domain/reports/render/markdown';
import type { WidgetData } from '../../../shared/domain/reports/render/widget-data';
import { cardWithImages, teamsPayload } from '../../../shared/notify/teams';
import { SAMPLES } from '../../support/alerts-preview';

/**
 * The outbox view (infra/local/capture-view.ts) on calls built here as the capture server records
 * them: every Block Kit block and Adaptive Card element the service sends renders its text, user
 * text is escaped, only http(s) URLs become links, a shared PNG is shown, anything unknown is a
 * labelled JSON block.
 */
let nextId = 1;
const at = (id: number) => new Date(Date.UTC(2026, 10, 20, 6, 0, id)).toISOString();

function slackCall(
  method: string,
  body: unknown,
  answer: Record<string, unknown> = { ok: true },
): CapturedCall {
  const id = nextId++;
  return {
    id,
    kind: 'slack',
    method: 'POST',
    path: `/slack/api/${method}`,
    headers: {},
    body,
    receivedAt: at(id),
    answer: method === 'chat.postMessage' && answer.ok ? { ts: `1790000000.${id}`, ...answer } : answer,
  };
}

function teamsCall(body: unknown, path = '/teams/hook-1'): CapturedCall {
  const id = nextId++;
  return { id, kind: 'teams', method: 'POST', path, headers: {}, body, receivedAt: at(id) };
}

const post = (blocks: unknown[], text = 'fallback text', channel = 'C0ALERTS') =>
  slackCall('chat.postMessage', { channel, text, blocks });
const card = (body: unknown[], actions: unknown[] = []) =>
  teamsCall(teamsPayload({ type: 'AdaptiveCard', version: '1.5', body, actions }));
const page = (calls: CapturedCall[], files: CapturedFile[] = []) => renderOutbox(calls, files);

/** The fragments (text, or a pattern) the HTML lacks: all of them are listed when one fails. */
const missing = (html: string, fragments: (string | RegExp)[]) =>
  fragments.filter((f) => (typeof f === 'string' ? !html.includes(f) : !f.test(html)));

/** A 1×1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4\n%…\n').toString('base64');

const file = (id: string, filename: string, content: string | null): CapturedFile => ({
  id,
  filename,
  length: content ? Buffer.from(content, 'base64').length : 10,
  title: null,
  content,
  channels: ['C0REPORTS'],
  initialComment: null,
});

describe('Slack blocks', () => {
  /** Each block the view renders: the block, and what its HTML holds. */
  const cases: [string, unknown, (string | RegExp)[]][] = [
    [
      'header',
      { type: 'header', text: { type: 'plain_text', text: 'Weekly cloud spend' } },
      ['<div class="s-header">Weekly cloud spend</div>'],
    ],
    [
      'section with mrkdwn text, fields and a button accessory',
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*Bold words* and _slanted_ and `GET /x`\nsecond line' },
        fields: [
          { type: 'plain_text', text: 'Actual\n$1,240' },
          { type: 'mrkdwn', text: '*Budget*\n$4,000' },
        ],
        accessory: {
          type: 'button',
          text: { type: 'plain_text', text: 'Accessory button' },
          url: 'https://c.example/acc',
        },
      },
      [
        '<b>Bold words</b> and <i>slanted</i> and <code>GET /x</code>\nsecond line',
        '<div>Actual\n$1,240</div><div><b>Budget</b>\n$4,000</div>',
        '<div class="s-accessory"><a class="s-button" href="https://c.example/acc" rel="noopener noreferrer">Accessory button</a></div>',
      ],
    ],
    [
      'section with an image accessory',
      {
        type: 'section',
        text: { type: 'plain_text', text: 'With an image' },
        accessory: { type: 'image', image_url: 'https://img.example/a.png', alt_text: 'accessory alt' },
      },
      [
        'With an image',
        '<img class="s-accessory-image" src="https://img.example/a.png" alt="accessory alt">',
      ],
    ],
    [
      'context',
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Period: 2026-11-20' }] },
      ['<div class="s-context"><span>Period: 2026-11-20</span></div>'],
    ],
    ['divider', { type: 'divider' }, ['<hr class="s-divider">']],
    [
      'image',
      {
        type: 'image',
        image_url: 'https://img.example/chart.png',
        alt_text: 'the chart',
        title: { type: 'plain_text', text: 'Chart title' },
      },
      [
        '<figcaption>Chart title</figcaption><img class="s-block-image" src="https://img.example/chart.png" alt="the chart">',
      ],
    ],
    [
      'actions',
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Open in the explorer' },
            url: 'https://c.example/e',
          },
          { type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', action_id: 'a' },
        ],
      },
      [
        '<a class="s-button" href="https://c.example/e" rel="noopener noreferrer">Open in the explorer</a>',
        // A button without a URL calls the app back: its label, not a link.
        /<span class="s-button inert s-primary"[^>]*>Approve<\/span>/,
      ],
    ],
  ];

  it.each(cases)('renders a %s block, then the notification text', (_, block, fragments) => {
    const html = page([post([block])]);
    expect(missing(html, [...fragments, 'Notification text:</span> fallback text'])).toEqual([]);
    expect(html).not.toContain('class="unknown"');
  });

  it('shows the text when a message has no blocks, and mrkdwn links, entities and mentions', () => {
    const html = page([
      slackCall('chat.postMessage', {
        channel: 'C1',
        text: 'Spend &lt;up&gt; &amp; <https://c.example/a?b=1&amp;c=2|the explorer> <!here> *<https://c.example/b|bold link>*',
      }),
    ]);
    expect(html).toContain(
      'Spend &lt;up&gt; &amp; <a href="https://c.example/a?b=1&amp;c=2" rel="noopener noreferrer">the explorer</a> <span class="mention">@here</span> <b><a href="https://c.example/b" rel="noopener noreferrer">bold link</a></b>',
    );
  });

  it('puts thread replies (and files shared into the thread) under their message, newest message first', () => {
    const parent = post(
      [{ type: 'header', text: { type: 'plain_text', text: 'Parent message' } }],
      'p',
      'C9',
    );
    const ts = (parent.answer as { ts: string }).ts;
    const reply = slackCall('chat.postMessage', { channel: 'C9', text: 'First reply', thread_ts: ts });
    const later = post([{ type: 'header', text: { type: 'plain_text', text: 'Later message' } }], 'l', 'C9');
    const html = page([parent, reply, later]);
    expect(html.indexOf('Later message')).toBeLessThan(html.indexOf('Parent message'));
    const thread = html.slice(html.indexOf('Parent message'));
    expect(thread).toMatch(/1 reply in thread<\/p><article class="entry slack reply"[\s\S]*First reply/);
    expect(html.match(/<article class="entry slack"/g)).toHaveLength(2);
  });

  it('marks a refused call with its error', () => {
    const html = page([
      slackCall('chat.postMessage', { channel: 'C1', text: 'x' }, { ok: false, error: 'channel_not_found' }),
    ]);
    expect(html).toContain('<span class="refused">refused: channel_not_found</span>');
  });
});

describe('Slack files', () => {
  const share = (files: { id: string; title: string }[], comment?: string) =>
    slackCall('files.completeUploadExternal', {
      files: JSON.stringify(files),
      channel_id: 'C0REPORTS',
      ...(comment ? { initial_comment: comment } : {}),
    });

  it('shows a PNG as an image from its captured bytes, a PDF as a download link with name and size, and the comment', () => {
    const html = page(
      [
        share(
          [
            { id: 'F1', title: 'chart-1.png' },
            { id: 'F2', title: 'dashboard.pdf' },
          ],
          'Files of Weekly <b>',
        ),
      ],
      [file('F1', 'chart-1.png', PNG), file('F2', 'dashboard.pdf', PDF)],
    );
    expect(
      missing(html, [
        '<img src="/slack/files/F1/content" alt="chart-1.png">',
        'PNG, 70 B',
        `<a class="s-file-link" href="/slack/files/F2/content" download="dashboard.pdf">dashboard.pdf</a> <span class="s-file-meta">PDF, ${Buffer.from(PDF, 'base64').length} B</span>`,
        'Files of Weekly &lt;b&gt;',
      ]),
    ).toEqual([]);
    expect(html).not.toContain('<img src="/slack/files/F2');
  });

  it('tells the file type by its bytes, not its name', () => {
    expect(fileType(PNG)).toMatchObject({ mime: 'image/png', image: true });
    expect(fileType(PDF)).toMatchObject({ mime: 'application/pdf', image: false });
    expect(fileType(Buffer.from('<svg onload=alert(1)>').toString('base64'))).toMatchObject({
      mime: 'application/octet-stream',
      image: false,
    });
    const html = page(
      [share([{ id: 'F3', title: 'x.png' }])],
      [file('F3', 'x.png', Buffer.from('<html>').toString('base64'))],
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('download="x.png"');
  });
});

describe('Teams cards', () => {
  /** Each element the view renders: the element, and what its HTML holds. */
  const cases: [string, unknown, (string | RegExp)[]][] = [
    [
      'TextBlock',
      {
        type: 'TextBlock',
        text: 'Big **red** title',
        size: 'Large',
        weight: 'Bolder',
        color: 'Attention',
        wrap: true,
      },
      ['<div class="t-text size-large color-attention bolder">Big <b>red</b> title</div>'],
    ],
    [
      'TextBlock, subtle and unwrapped',
      { type: 'TextBlock', text: 'Unwrapped subtle', isSubtle: true },
      ['<div class="t-text subtle nowrap">Unwrapped subtle</div>'],
    ],
    [
      'RichTextBlock',
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'A **literal** run', weight: 'Bolder' }] },
      ['<span class="t-run bolder">A **literal** run</span>'],
    ],
    [
      'FactSet',
      { type: 'FactSet', facts: [{ title: 'Actual', value: '$1,240' }] },
      ['<tr><th>Actual</th><td>$1,240</td></tr>'],
    ],
    [
      'Image',
      {
        type: 'Image',
        url: 'https://img.example/chart.png',
        altText: 'Chart alt',
        size: 'Stretch',
        selectAction: { type: 'Action.OpenUrl', url: 'https://img.example/chart.png' },
      },
      [
        '<a href="https://img.example/chart.png" rel="noopener noreferrer"><img class="t-image img-stretch" src="https://img.example/chart.png" alt="Chart alt"></a>',
      ],
    ],
    [
      'ColumnSet',
      {
        type: 'ColumnSet',
        columns: [
          { type: 'Column', width: 'stretch', items: [{ type: 'TextBlock', text: 'Left column' }] },
          { type: 'Column', width: 'auto', items: [{ type: 'TextBlock', text: 'Right column' }] },
        ],
      },
      [/<div class="t-column col-stretch">.*Left column.*<div class="t-column col-auto">.*Right column/],
    ],
    [
      'Container',
      { type: 'Container', style: 'emphasis', items: [{ type: 'TextBlock', text: 'Inside a container' }] },
      ['<div class="t-container style-emphasis"><div class="t-text nowrap">Inside a container</div></div>'],
    ],
    [
      'ActionSet',
      {
        type: 'ActionSet',
        actions: [{ type: 'Action.OpenUrl', title: 'Set action', url: 'https://c.example/s' }],
      },
      ['<a class="t-action" href="https://c.example/s" rel="noopener noreferrer">Set action</a>'],
    ],
  ];

  it.each(cases)('renders a %s, then the card actions', (_, element, fragments) => {
    const html = page([
      card(
        [element],
        [
          { type: 'Action.OpenUrl', title: 'Open the alert', url: 'https://c.example/a' },
          { type: 'Action.Submit', title: 'Acknowledge' },
        ],
      ),
    ]);
    const actions = [
      '<a class="t-action" href="https://c.example/a" rel="noopener noreferrer">Open the alert</a>',
      /<span class="t-action inert"[^>]*>Acknowledge<\/span>/,
      '/teams/hook-1',
    ];
    expect(missing(html, [...fragments, ...actions])).toEqual([]);
    expect(html).not.toContain('class="unknown"');
  });

  it('shows an unknown element as a labelled JSON block and renders the rest', () => {
    const html = teamsMessage(
      teamsPayload({
        type: 'AdaptiveCard',
        body: [
          { type: 'Input.Text', id: 'why', placeholder: 'Reason <here>' },
          { type: 'TextBlock', text: 'After it' },
        ],
      }),
    );
    expect(html).toContain(
      '<span class="unknown-label">Adaptive Card element &quot;Input.Text&quot;, not rendered:</span>',
    );
    expect(html).toContain('&quot;placeholder&quot;: &quot;Reason &lt;here&gt;&quot;');
    expect(html).toContain('After it');
    // Slack too: an unknown block, and a post that is no card at all.
    expect(page([post([{ type: 'rich_text', elements: [] }])])).toContain(
      'Slack block &quot;rich_text&quot;, not rendered:',
    );
    expect(teamsMessage('plain')).toContain('Teams post, not rendered:');
  });
});

describe('escaping and links', () => {
  const evil = `<script>alert("x")</script> "quoted" & 'single'`;

  it('escapes a user-provided name in every place it can stand', () => {
    const html = page([
      post(
        [
          { type: 'header', text: { type: 'plain_text', text: evil } },
          { type: 'section', text: { type: 'mrkdwn', text: evil } },
          { type: 'section', fields: [{ type: 'plain_text', text: evil }] },
          {
            type: 'actions',
            elements: [
              {
                type: 'button',
                text: { type: 'plain_text', text: evil },
                url: 'https://x.example/"><script>',
              },
            ],
          },
        ],
        evil,
        `C"><script>`,
      ),
      card([
        { type: 'TextBlock', text: evil },
        { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: evil }] },
        { type: 'FactSet', facts: [{ title: evil, value: evil }] },
        { type: 'Image', url: 'https://img.example/x.png', altText: evil },
      ]),
      teamsCall({ type: 'message', attachments: [] }, '/teams/"><script>alert(1)</script>'),
    ]);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('"quoted"');
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;quoted&quot; &amp; &#39;single&#39;',
    );
    expect(html).toContain('href="https://x.example/%22%3E%3Cscript%3E"');
  });

  it('makes no link of a javascript:, data: or relative URL, and shows its text', () => {
    const urls = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<b>x',
      '/relative',
      'vbscript:x',
    ];
    for (const url of urls) {
      const html = page([
        post([
          { type: 'section', text: { type: 'mrkdwn', text: `<${url}|mrkdwn label>` } },
          {
            type: 'actions',
            elements: [{ type: 'button', text: { type: 'plain_text', text: 'Button label' }, url }],
          },
          { type: 'image', image_url: url, alt_text: 'image alt' },
        ]),
        card(
          [
            { type: 'TextBlock', text: `[md label](${url})` },
            { type: 'Image', url, altText: 'card image' },
          ],
          [{ type: 'Action.OpenUrl', title: 'Action label', url }],
        ),
      ]);
      // The only links are the page's own (its nav, each entry's anchor); no message image at all.
      const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      expect(
        hrefs.filter((h) => !/^(\/outbox(\?kind=\w+)?|\/messages(\?kind=\w+)?|#call-\d+)$/.test(h!)),
      ).toEqual([]);
      expect(html).not.toContain(' src=');
      for (const label of ['mrkdwn label', 'Button label', 'image alt', 'card image', 'Action label'])
        expect(html).toContain(label);
    }
    expect(mrkdwn('<javascript:alert(1)|click>')).toBe(
      '<span class="nolink" title="not an http(s) link: javascript:alert(1)">click</span>',
    );
  });

  it('has a CSP without scripts that allows exactly its own stylesheet', () => {
    expect(OUTBOX_CSP).toContain("default-src 'none'");
    expect(OUTBOX_CSP).not.toMatch(/script-src|unsafe-inline/);
    const { createHash } = require('node:crypto') as typeof import('node:crypto');
    expect(OUTBOX_CSP).toContain(`'sha256-${createHash('sha256').update(OUTBOX_CSS).digest('base64')}'`);
    expect(page([])).toContain(`<style>${OUTBOX_CSS}</style>`);
    expect(page([]).match(/style="/g)).toBeNull();
  });
});

describe("the service's own messages", () => {
  const report = formatReport({ name: 'Weekly <spend>', description: '' }, '2026-11-23T06:00:00Z', [
    {
      type: 'TEXT',
      title: 'Notes',
      markdown: '**Prod** up, see [the explorer](https://c.example/x)',
      html: markdownToHtml('**Prod** up, see [the explorer](https://c.example/x)'),
      mrkdwn: markdownToMrkdwn('**Prod** up, see [the explorer](https://c.example/x)'),
      text: '',
    } as WidgetData,
    {
      type: 'DASHBOARD_PDF',
      title: null,
      dashboardId: 'd1',
      dashboardName: 'Overview',
      rendered: true,
      charts: [],
    },
  ]);
  const alert = renderAlertMessage({ ...SAMPLES.markdown!, test: true });
  const budget = renderBudgetAlertMessage(
    sampleBudgetFiring(new Date('2026-11-21T06:00:00Z'), 'https://c.example/'),
  );
  const expiry = renderExpiryMessage(
    { id: 'alrt_1', name: 'Renewals <b>', expiryWithinDays: 30 },
    [
      {
        id: 'sp-1',
        name: 'SP *one*',
        provider: 'AWS',
        type: 'Savings Plan',
        endDay: '2026-12-10',
        daysLeft: 20,
        hourlyCommitment: 3,
        utilization: 0.9,
      },
    ],
    '2026-11-20',
    'https://c.example/',
  );
  const image = { url: 'http://127.0.0.1:3000/message-images/abc.png', alt: 'Chart: spend per day' };

  it('renders every block and card element the alerts, budget alerts, commitment alerts and reports use', () => {
    const html = page([
      post(report.slackBlocks, report.slackText, 'C0REPORTS'),
      post(alert.slackBlocks, alert.slackText),
      post(budget.slackBlocks, budget.slackText),
      post(expiry.slackBlocks, expiry.slackText),
      teamsCall(teamsPayload(cardWithImages(alert.teamsCard, [image]))),
      teamsCall(teamsPayload(cardWithImages(budget.teamsCard, [image]))),
      teamsCall(teamsPayload(expiry.teamsCard)),
    ]);
    expect(html).not.toContain('class="unknown"');
    expect(html).not.toMatch(/<script|<b>team<\/b>/);
    // Report: header, mrkdwn section (bold title, link), divider, PDF line.
    expect(
      missing(html, [
        '<div class="s-header">Weekly &lt;spend&gt;</div>',
        '<b>Notes</b>\n<b>Prod</b> up, see <a href="https://c.example/x" rel="noopener noreferrer">the explorer</a>',
        '<hr class="s-divider">',
        // Alerts: plain_text stays literal, buttons are links, the card's texts are TextRuns.
        '[Test] Cost alert: **Prod** _EC2_ [click me](https://evil.example) &amp; &lt;b&gt;team&lt;/b&gt;',
        '>Open in the explorer</a>',
        '<span class="t-run size-large color-attention bolder">[Test] Cost alert: **Prod**',
        '<img class="t-image img-stretch" src="http://127.0.0.1:3000/message-images/abc.png" alt="Chart: spend per day">',
        // Budget: fields, the figures' ColumnSet of the card.
        '[Test] Budget alert: Test notification',
        /<div class="t-column col-stretch"><div class="t-text t-rich"><span class="t-run bolder">[^<]+<\/span><\/div><\/div><div class="t-column col-auto">/,
        // Commitments: mrkdwn bold headline, link and code.
        '<b>1 commitment ending within 30 days (as of 2026-11-20).</b>',
        '<a href="https://c.example/#/commitments" rel="noopener noreferrer">Open the commitments</a> · API: <code>GET /commitments/expiring?withinDays=30</code>',
        'Commitment alert: Renewals &lt;b&gt;',
      ]),
    ).toEqual([]);
  });

  it('filters by kind like /messages, and counts each kind', () => {
    const calls = [post(alert.slackBlocks, alert.slackText), teamsCall(teamsPayload(alert.teamsCard))];
    const slack = renderOutbox(calls, [], { kind: 'slack' });
    const teams = renderOutbox(calls, [], { kind: 'teams' });
    expect(slack).toContain('class="entry slack"');
    expect(slack).not.toContain('class="entry teams"');
    expect(teams).toContain('class="entry teams"');
    expect(teams).not.toContain('class="entry slack"');
    expect(slack).toContain(
      '<a href="/outbox?kind=slack" aria-current="page">Slack <span class="count">1</span></a>',
    );
    expect(renderOutbox([], [])).toContain('No Slack or Teams message captured yet.');
  });
});
