import { join } from 'node:path';
import { startCaptureServer } from '../../infra/local/capture-server';
import { OUTBOX_CSP } from '../../infra/local/capture-view';
import type { CapturedFile } from '../../infra/local/captured';
import type { Emulator } from '../../infra/local/emulators';
import { renderAlertMessage } from '../../shared/domain/alerts/render';
import { burnChartPng } from '../../shared/domain/budgets/alerts/burn-chart';
import { BURN_CHART_FILE, renderBudgetAlertMessage } from '../../shared/domain/budgets/alerts/render';
import { sampleBudgetFiring } from '../../shared/domain/budgets/alerts/send-test';
import { cardWithImages, teamsPayload } from '../../shared/notify/teams';
import { SAMPLES } from '../support/alerts-preview';
import { sidewaysScroll, suiteBrowser } from '../support/browser';
import { session } from '../support/session';

/**
 * The capture server's outbox (GET /outbox, infra/local/capture-view.ts) on a capture server of its
 * own: a cost alert and a budget alert posted to Slack the way the service posts them (the burn
 * chart uploaded into the message's thread with a PDF beside it), and their Teams cards (the chart
 * by URL) posted to a webhook path. The page answers HTML with its CSP, shows every text, and reads
 * in Chromium at desk and phone size without sideways scrolling, every image loaded and nothing
 * refused by the CSP. Screenshots: test/artifacts/outbox/.
 */
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'outbox');
const browser = suiteBrowser(ARTIFACTS);

let capture: Emulator & { files: CapturedFile[] };
const TOKEN = 'Bearer xoxb-outbox-test';
const CHANNEL = 'C0OUTBOX';
const HOOK = '/teams/workflows/outbox-test';

const alert = renderAlertMessage({ ...SAMPLES.markdown!, test: true });
const budgetFiring = sampleBudgetFiring(new Date('2026-11-21T06:00:00Z'), 'https://console.example/');
const budget = renderBudgetAlertMessage(budgetFiring);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
let png: Buffer;

async function slack(method: string, body: Record<string, string> | object, form = false) {
  const res = await fetch(`${capture.endpoint}/slack/api/${method}`, {
    method: 'POST',
    headers: {
      authorization: TOKEN,
      'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json; charset=utf-8',
    },
    body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  expect(answer.ok).toBe(true);
  return answer;
}

/** Slack's external upload flow, as shared/notify/slack.ts runs it: answers the file's id. */
async function upload(filename: string, bytes: Buffer): Promise<string> {
  const { upload_url, file_id } = await slack(
    'files.getUploadURLExternal',
    { filename, length: String(bytes.length) },
    true,
  );
  const res = await fetch(upload_url as string, { method: 'POST', body: new Uint8Array(bytes) });
  expect(res.status).toBe(200);
  return file_id as string;
}

const teams = (body: unknown) =>
  fetch(`${capture.endpoint}${HOOK}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  capture = await startCaptureServer();
  png = Buffer.from(await burnChartPng(budgetFiring));
  await slack('chat.postMessage', { channel: CHANNEL, text: alert.slackText, blocks: alert.slackBlocks });
  const { ts } = await slack('chat.postMessage', {
    channel: CHANNEL,
    text: budget.slackText,
    blocks: budget.slackBlocks,
  });
  const ids = [await upload(BURN_CHART_FILE, png), await upload('dashboard-2-overview.pdf', PDF)];
  await slack(
    'files.completeUploadExternal',
    {
      files: JSON.stringify([
        { id: ids[0], title: BURN_CHART_FILE },
        { id: ids[1], title: 'dashboard-2-overview.pdf' },
      ]),
      channel_id: CHANNEL,
      thread_ts: ts as string,
      initial_comment: 'Files of the budget alert: burn-chart.png, dashboard-2-overview.pdf',
    },
    true,
  );
  // The card's image by URL, as the stack publishes it: here the shared PNG on this server.
  const image = { url: `${capture.endpoint}/slack/files/${ids[0]}/content`, alt: 'Burn chart' };
  expect((await teams(teamsPayload(cardWithImages(alert.teamsCard, [image])))).status).toBe(200);
  expect((await teams(teamsPayload(cardWithImages(budget.teamsCard, [image])))).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await capture?.stop();
});

describe('the outbox page', () => {
  it('answers HTML with its CSP and nosniff, every message and file with its texts', async () => {
    const res = await fetch(`${capture.endpoint}/outbox`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(OUTBOX_CSP);
    expect(OUTBOX_CSP).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toContain(
      '[Test] Cost alert: **Prod** _EC2_ [click me](https://evil.example) &amp; &lt;b&gt;team&lt;/b&gt;',
    );
    expect(html).toContain('[Test] Budget alert: Test notification');
    expect(html).toContain('Files of the budget alert: burn-chart.png, dashboard-2-overview.pdf');
    expect(html).toContain('download="dashboard-2-overview.pdf"');
    expect(html).toContain(`#${CHANNEL}`);
    expect(html).toContain(HOOK);
    expect(html).not.toMatch(/<script|<b>team/);
    // The files went into the budget message's thread: they show under it.
    expect(html).toContain('1 reply in thread');
    expect(html.match(/<article class="entry (slack|teams)"/g)).toHaveLength(4);
  });

  it('filters by kind, leads / to itself, and serves a shared file as what its bytes are', async () => {
    const teamsOnly = await (await fetch(`${capture.endpoint}/outbox?kind=teams`)).text();
    expect(teamsOnly.match(/<article class="entry teams"/g)).toHaveLength(2);
    expect(teamsOnly).not.toContain('class="entry slack');
    const root = await fetch(`${capture.endpoint}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/outbox');
    const [chart, pdf] = capture.files;
    const image = await fetch(`${capture.endpoint}/slack/files/${chart!.id}/content`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    const download = await fetch(`${capture.endpoint}/slack/files/${pdf!.id}/content`);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toBe(
      "attachment; filename*=UTF-8''dashboard-2-overview.pdf",
    );
    expect((await fetch(`${capture.endpoint}/slack/files/F404/content`)).status).toBe(404);
  });

  it("is the stack's too: session.outboxUrl is the page, chatUrl still the JSON record", async () => {
    const page = await fetch(session().outboxUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<h1>Outbox</h1>');
    const json = await fetch(session().chatUrl);
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(Array.isArray(await json.json())).toBe(true);
  });

  it('the sent e-mails have their page too: session.mailboxUrl is the SES emulator’s viewer, mailUrl the JSON', async () => {
    const page = await fetch(session().mailboxUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('/store');
    const json = await fetch(session().mailUrl);
    expect(Array.isArray(((await json.json()) as { emails?: unknown }).emails)).toBe(true);
  });

  for (const size of [
    { name: 'desk', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ])
    it(`reads in Chromium at ${size.width}×${size.height}: no sideways scroll, images loaded, nothing refused`, async () => {
      const page = await browser().newPage({ viewport: { width: size.width, height: size.height } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      await page.goto(`${capture.endpoint}/outbox`);
      await page.waitForLoadState('load');
      expect(await page.locator('.s-header').first().textContent()).toBe(
        '[Test] Budget alert: Test notification',
      );
      expect(await page.locator('article.teams').count()).toBe(2);
      // Every image (the shared chart, the cards' chart by URL) decoded.
      const images = await page.$$eval('img', (is) =>
        is.map((i) => ({ src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0 })),
      );
      expect(images.length).toBe(3);
      expect(images.filter((i) => !i.ok)).toEqual([]);
      // The text is styled: the stylesheet was allowed by its hash.
      expect(
        await page
          .locator('.badge.slack')
          .first()
          .evaluate((e) => getComputedStyle(e).color),
      ).toBe('rgb(255, 255, 255)');
      expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, `outbox-${size.name}.png`), fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
});
