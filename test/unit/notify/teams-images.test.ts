import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { MESSAGE_IMAGE_NAME, publishMessageImage } from '../../../shared/cloud/message-images';
import { CARD_FOOTER_ID, type Notification } from '../../../shared/domain/alerts/notification';
import { renderAlertMessage } from '../../../shared/domain/alerts/render';
import { renderBudgetAlertMessage } from '../../../shared/domain/budgets/alerts/render';
import { sampleBudgetFiring } from '../../../shared/domain/budgets/alerts/send-test';
import { cardWithImages, sendTeams } from '../../../shared/notify/teams';
import { SAMPLES } from '../../support/alerts-preview';

/** The Teams card's chart: published by URL (an incoming webhook refuses a message that carries it). */

const card = {
  type: 'AdaptiveCard',
  version: '1.5',
  body: [
    { type: 'TextBlock', text: 'title' },
    { type: 'TextBlock', text: 'figures' },
    { type: 'TextBlock', text: 'period line', id: CARD_FOOTER_ID },
  ],
};

/** A card's body as its texts (a TextBlock's, a RichTextBlock's first run) and `Image`. */
const texts = (c: Record<string, unknown>) =>
  (c.body as { type: string; text?: string; inlines?: { text: string }[] }[]).map((b) =>
    b.type === 'Image' ? 'Image' : (b.text ?? b.inlines?.[0]?.text ?? b.type),
  );

describe('cardWithImages', () => {
  test('puts each image, full width and opening itself, before the footer', () => {
    const out = cardWithImages(card, [{ url: 'https://x.example/message-images/a.png', alt: 'Chart: A' }]);
    expect(texts(out)).toEqual(['title', 'figures', 'Image', 'period line']);
    expect((out.body as unknown[])[2]).toEqual({
      type: 'Image',
      url: 'https://x.example/message-images/a.png',
      altText: 'Chart: A',
      size: 'Stretch',
      spacing: 'Medium',
      selectAction: {
        type: 'Action.OpenUrl',
        url: 'https://x.example/message-images/a.png',
        title: 'Open the chart',
      },
    });
    // The renderer's card is left as it was.
    expect(card.body).toHaveLength(3);
  });

  test('without images the card is the renderer’s own', () => {
    expect(cardWithImages(card, [])).toBe(card);
  });

  test('the service’s cards: the cost alert’s chart before its period line, the budget alert’s after its last cause', () => {
    const image = [{ url: 'https://x.example/message-images/c.png', alt: 'Chart' }];
    const alert = renderAlertMessage(SAMPLES.markdown!);
    const withChart = texts(cardWithImages(alert.teamsCard, image));
    expect(withChart.slice(-2)).toEqual(['Image', texts(alert.teamsCard).at(-1)]);
    expect(withChart.at(-1)).toMatch(/^Period/);
    const budget = renderBudgetAlertMessage(
      sampleBudgetFiring(new Date('2026-11-21T06:00:00Z'), 'https://c.example/'),
    );
    expect(texts(cardWithImages(budget.teamsCard, image))).toEqual([...texts(budget.teamsCard), 'Image']);
  });
});

describe('sendTeams publishes the message images and names their URLs', () => {
  let server: Server;
  let origin: string;
  const posted: Record<string, unknown>[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        posted.push(JSON.parse(body));
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    posted.length = 0;
  });

  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
  const notification = (): Notification => ({
    id: 'alert_1:2026-11-20',
    orgId: 'org_a',
    kind: 'ALERT',
    alertId: 'alert_1',
    channel: 'TEAMS',
    emails: [],
    slackChannelId: null,
    teamsUrl: `${origin}/hook`,
    message: {
      subject: 's',
      html: '',
      text: '',
      slackBlocks: [],
      slackText: '',
      teamsCard: card,
      images: [{ filename: 'alert-chart.png', base64: png.toString('base64'), alt: 'Chart: EC2' }],
    },
    createdAt: '2026-11-21T06:00:00Z',
  });
  const policy = () => ({ allowedHosts: [], localCaptureOrigin: origin });
  const imagesIn = (body: Record<string, unknown>) =>
    (
      body.attachments as { content: { body: { type: string; url?: string; altText?: string }[] } }[]
    )[0]!.content.body.filter((b) => b.type === 'Image');

  test('the PNG is written under a fresh random name, and the card shows it from the base URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'message-images-'));
    const store = { baseUrl: 'https://d111.cloudfront.net/message-images', dir };
    await sendTeams(notification(), policy(), store);
    await sendTeams(notification(), policy(), store);
    const names = readdirSync(dir);
    expect(names).toHaveLength(2);
    for (const name of names) {
      expect(name).toMatch(MESSAGE_IMAGE_NAME);
      expect(readFileSync(join(dir, name)).equals(png)).toBe(true);
    }
    const urls = posted.flatMap((b) => imagesIn(b).map((i) => [i.url, i.altText]));
    expect(urls.sort()).toEqual(names.map((n) => [`${store.baseUrl}/${n}`, 'Chart: EC2']).sort());
  });

  test('without a store, or when publishing fails, the card goes without its image', async () => {
    await sendTeams(notification(), policy(), undefined);
    const file = join(mkdtempSync(join(tmpdir(), 'message-images-')), 'a-file');
    writeFileSync(file, 'not a folder');
    await sendTeams(notification(), policy(), { baseUrl: 'https://x.example/message-images', dir: file });
    expect(posted).toHaveLength(2);
    expect(posted.map((b) => imagesIn(b))).toEqual([[], []]);
  });
});

describe('publishMessageImage to the bucket (AWS)', () => {
  test('puts the PNG under message-images/<name>.png with its type and an immutable cache, and answers its URL', async () => {
    const s3 = mockClient(S3Client);
    const puts: Record<string, unknown>[] = [];
    s3.on(PutObjectCommand).callsFake((input: Record<string, unknown>) => {
      puts.push(input);
      return {};
    });
    try {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]);
      const url = await publishMessageImage(
        { baseUrl: 'https://d111.cloudfront.net/message-images', bucket: 'images-bucket' },
        png,
      );
      const name = url.slice('https://d111.cloudfront.net/message-images/'.length);
      expect(name).toMatch(MESSAGE_IMAGE_NAME);
      expect(puts).toEqual([
        {
          Bucket: 'images-bucket',
          Key: `message-images/${name}`,
          Body: png,
          ContentType: 'image/png',
          CacheControl: 'public, max-age=31536000, immutable',
        },
      ]);
    } finally {
      s3.restore();
    }
  });
});
