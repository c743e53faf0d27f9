import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AlertFiring, renderAlertMessage } from '../../../shared/domain/alerts/render';
import { rootCausesOf } from '../../../shared/domain/alerts/root-causes';
import { parseExplorerQueryString } from '../../../shared/links';
import { buildRawEmail } from '../../../shared/notify/email';
import { teamsPayload } from '../../../shared/notify/teams';
import { emailNotification } from '../../support/notification';
import { costQuery } from './fixtures';

const ARTIFACTS = join(__dirname, '..', '..', 'artifacts', 'alerts');

function conditionFiring(extra: Partial<AlertFiring['alert']> = {}): AlertFiring {
  return {
    alert: {
      id: 'alrt_01sample',
      name: 'EC2 spike',
      description: 'EC2 daily cost far above its usual level',
      currency: 'USD',
      queries: [costQuery('ec2', { alias: 'EC2 cost' })] as AlertFiring['alert']['queries'],
      queryName: 'ec2',
      condition: 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5 and ec2 > 100',
      thresholdType: 'ABOVE',
      evaluationPeriod: 'DAILY',
      urlState: 'groupBy=ServiceName&datePreset=TRAILING_30_DAYS',
      ...extra,
    },
    thresholds: [],
    evaluatedDay: '2026-11-20',
    period: { start: '2026-11-20', end: '2026-11-20' },
    values: { ec2: 1240 },
    baselines: { 'rollingMedian(ec2,28,DAY)': 540 },
    appUrl: 'https://app.example.com/',
  };
}

function periodChangeFiring(): AlertFiring {
  return {
    alert: {
      id: 'alrt_01week',
      name: 'Week over week +20%',
      description: '',
      currency: 'GBP',
      queries: [costQuery('spend', { alias: 'Total spend' })] as AlertFiring['alert']['queries'],
      queryName: 'spend',
      condition: null,
      thresholdType: 'ABOVE',
      evaluationPeriod: 'WEEKLY',
      urlState: '',
    },
    thresholds: [
      { value: 20, severityLevel: 'WARNING', metricMode: 'PERIOD_CHANGE', changeBasis: 'PERCENTAGE' },
    ],
    evaluatedDay: '2026-11-15',
    period: { start: '2026-11-09', end: '2026-11-15' },
    values: { spend: 1200 },
    baselines: {},
    previousValue: 960,
    appUrl: 'https://app.example.com',
  };
}

/** The period-change firing with its root causes, as the evaluator attaches them. */
function withRootCauses(): AlertFiring {
  const firing = periodChangeFiring();
  const before = new Map([
    ['Amazon EC2 / 1111 / us-east-1', 500],
    ['Amazon S3 / 1111 / us-east-1', 200],
    ['Amazon RDS / 2222 / eu-west-1', 260],
  ]);
  const after = new Map([
    ['Amazon EC2 / 1111 / us-east-1', 760],
    ['Amazon S3 / 1111 / us-east-1', 180],
    ['Amazon RDS / 2222 / eu-west-1', 260],
  ]);
  firing.rootCauses = rootCausesOf(
    {
      dimension: 'service / sub-account / region',
      query: 'Total spend',
      period: firing.period,
      baseline: {
        start: '2026-11-02',
        end: '2026-11-08',
        label: 'the previous week (2026-11-02 to 2026-11-08)',
      },
    },
    before,
    after,
  );
  return firing;
}

describe('alert message renderer', () => {
  test('root causes: the top contributors with their amounts and share of the change, in every format', () => {
    const m = renderAlertMessage(withRootCauses());
    // 960 → 1200: +240; EC2 +260 is 108.3 % of it, S3 −20 is −8.3 %; RDS did not move.
    const heading =
      'Top contributors by service / sub-account / region (Total spend: £1,200 against £960 for the previous week (2026-11-02 to 2026-11-08), +£240; these explain 100.0% of the change)';
    const ec2 = 'Amazon EC2 / 1111 / us-east-1: £500 → £760 (+£260, +52.0%; 108.3% of the change)';
    const s3 = 'Amazon S3 / 1111 / us-east-1: £200 → £180 (−£20.00, -10.0%; -8.3% of the change)';
    expect(m.text).toContain(`${heading}:\n- ${ec2}\n- ${s3}\n`);
    expect(m.text).not.toContain('Amazon RDS');
    // The e-mail shows them as a table: contributor, before, after, change, share.
    const cells = [...m.html.matchAll(/<td style="[^"]*">([^<]*)<\/td>/g)].map((x) => x[1]);
    const at = cells.indexOf('Amazon EC2 / 1111 / us-east-1');
    expect(cells.slice(at, at + 10)).toEqual([
      ...['Amazon EC2 / 1111 / us-east-1', '£500', '£760', '+£260, +52.0%', '108.3%'],
      ...['Amazon S3 / 1111 / us-east-1', '£200', '£180', '−£20.00, -10.0%', '-8.3%'],
    ]);
    expect(JSON.stringify(m.slackBlocks)).toContain(
      JSON.stringify(`${heading}:\n• ${ec2}\n• ${s3}`).slice(1, -1),
    );
    const card = JSON.stringify(m.teamsCard);
    for (const line of [`${heading}:`, `• ${ec2}`, `• ${s3}`]) expect(card).toContain(JSON.stringify(line));
  });

  test('without root causes a message has no contributors section', () => {
    expect(renderAlertMessage(periodChangeFiring()).text).not.toContain('Top contributors');
  });

  test('a condition alert explains itself with the values that made it true', () => {
    const m = renderAlertMessage(conditionFiring());
    expect(m.subject).toBe('Cost alert: EC2 spike — 2026-11-20');
    // 1240 / 540 = 2.296… → 2.3×
    expect(m.text).toContain('EC2 cost on 2026-11-20 was $1,240, 2.3× its 28-day median of $540');
    expect(m.text).toContain(
      'Why it fired: EC2 cost is above the 28-day median of EC2 cost × 1.5, and EC2 cost is above $100.',
    );
    // The console's hash route, the alert's saved grouping, its queries over the evaluated day.
    const link = /Open in the explorer: (\S+)/.exec(m.text)![1]!;
    expect(link.startsWith('https://app.example.com/#/explorer?')).toBe(true);
    expect(parseExplorerQueryString(link.slice(link.indexOf('?')))).toEqual({
      title: 'EC2 spike',
      groupBy: ['ServiceName'],
      startDate: '2026-11-20',
      endDate: '2026-11-20',
      aggBy: 'Day',
      queries: JSON.parse(JSON.stringify(conditionFiring().alert.queries)),
    });
    expect(m.text).toContain('Open the alert: https://app.example.com/#/alerts/alrt_01sample');
    expect(m.html).toContain('EC2 cost on 2026-11-20 was $1,240, 2.3× its 28-day median of $540');
    expect(m.html).toContain(`href="${link.replaceAll('&', '&amp;')}"`);
    expect(m.html).toContain('href="https://app.example.com/#/alerts/alrt_01sample"');
    const slackUrls = JSON.stringify(m.slackBlocks).match(/"url":"[^"]+"/g);
    expect(slackUrls).toEqual([`"url":"${link}"`, '"url":"https://app.example.com/#/alerts/alrt_01sample"']);
    const teamsUrls = (m.teamsCard.actions as { url: string }[]).map((a) => a.url);
    expect(teamsUrls).toEqual([link, 'https://app.example.com/#/alerts/alrt_01sample']);
    expect(JSON.stringify(m.slackBlocks)).toContain('2.3× its 28-day median of $540');
    expect(JSON.stringify(m.teamsCard)).toContain('Action.OpenUrl');
  });

  test('a period-change alert states the change against the previous period', () => {
    const m = renderAlertMessage(periodChangeFiring());
    // (1200 - 960) / 960 = 25 %
    expect(m.text).toContain(
      "Total spend from 2026-11-09 to 2026-11-15 was £1,200, up 25.0% (+£240) on the previous week's £960",
    );
    expect(m.text).toContain('the change of Total spend against the previous week is above +20.0% (WARNING)');
    expect(m.text).toContain('Open the alert: https://app.example.com/#/alerts/alrt_01week');
    expect(m.text).toContain(
      `Open in the explorer: https://app.example.com/#/explorer?title=Week+over+week+%2B20%25&startDate=2026-11-09&endDate=2026-11-15&aggBy=Day&queries=`,
    );
  });

  test('user text is escaped in HTML and Slack, and a subject is one line', () => {
    const m = renderAlertMessage(
      conditionFiring({ name: '<img src=x onerror=alert(1)> & co\r\nBcc: x@evil.test' }),
    );
    expect(m.html).not.toContain('<img src=x');
    expect(m.html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; co');
    // Slack: the name is only in the plain_text header (never parsed); mrkdwn text never carries raw < or >.
    const header = m.slackBlocks[0] as { text: { type: string; text: string } };
    expect(header.text.type).toBe('plain_text');
    expect(header.text.text).toBe('Cost alert: <img src=x onerror=alert(1)> & co Bcc: x@evil.test');
    expect(JSON.stringify(m.slackBlocks.slice(1))).not.toContain('<img');
    expect(m.subject).not.toMatch(/[\r\n]/);
  });

  test('the Teams card shows user text literally: no markdown element carries it', () => {
    const name = '**Prod** _EC2_ [click me](https://evil.example) & <b>x</b> {{DATE(2026-11-20T06:00:00Z)}}';
    const alias = 'EC2 *spot* & <on-demand>';
    const m = renderAlertMessage(
      conditionFiring({ name, queries: [costQuery('ec2', { alias })] as AlertFiring['alert']['queries'] }),
    );
    const elements: Record<string, unknown>[] = [];
    const walk = (x: unknown) => {
      if (Array.isArray(x)) x.forEach(walk);
      else if (x && typeof x === 'object') {
        const o = x as Record<string, unknown>;
        if (typeof o.type === 'string') elements.push(o);
        Object.values(o).forEach(walk);
      }
    };
    walk(m.teamsCard.body);
    const types = new Set(elements.map((e) => e.type));
    // TextBlock and FactSet are where Teams applies markdown; none is left.
    expect(types.has('TextBlock')).toBe(false);
    expect(types.has('FactSet')).toBe(false);
    const runs = elements.filter((e) => e.type === 'TextRun').map((e) => String(e.text));
    const literal = (t: string) => t.replaceAll('{\u2060{', '{{');
    // The title is the name verbatim, only the DATE template broken so the client cannot expand it.
    expect(runs[0]).toBe(`Cost alert: ${name.replace('{{', '{\u2060{')}`);
    expect(runs.map(literal)).toContain(`Cost alert: ${name}`);
    expect(runs.some((r) => r.includes('{{'))).toBe(false);
    // The alias reaches the explanation and a figure's label unaltered.
    expect(runs.some((r) => r.startsWith(`${alias} on 2026-11-20 was $1,240`))).toBe(true);
    expect(runs).toContain(alias);
    // Slack: the fallback text (read as mrkdwn) has &, < and > escaped; user words are only in
    // plain_text (Slack has no escape for * and _ in mrkdwn), and mrkdwn texts are escaped too.
    expect(m.slackText).toContain('&amp; &lt;b&gt;x&lt;/b&gt;');
    expect(m.slackText).not.toMatch(/[<>]/);
    const texts: { type: string; text: string }[] = [];
    const collect = (x: unknown) => {
      if (Array.isArray(x)) x.forEach(collect);
      else if (x && typeof x === 'object') {
        const o = x as Record<string, unknown>;
        if ((o.type === 'mrkdwn' || o.type === 'plain_text') && typeof o.text === 'string')
          texts.push({ type: o.type, text: o.text });
        Object.values(o).forEach(collect);
      }
    };
    collect(m.slackBlocks);
    const mrkdwn = texts.filter((t) => t.type === 'mrkdwn').map((t) => t.text);
    expect(mrkdwn.length).toBeGreaterThan(0);
    for (const t of mrkdwn) {
      expect(t).not.toContain('spot');
      expect(t).not.toMatch(/[<>]/);
      expect(t).not.toMatch(/&(?!amp;|lt;|gt;)/);
    }
    const plain = texts.filter((t) => t.type === 'plain_text').map((t) => t.text);
    expect(plain.some((t) => t.startsWith(`${alias} on 2026-11-20 was $1,240`))).toBe(true);
    expect(plain).toContain(`${alias}\n$1,240`);
  });

  test('a factor is a plain number on either side, and a deviation alert says how many deviations', () => {
    const m = renderAlertMessage({
      ...conditionFiring({
        currency: 'EUR',
        condition: 'ec2 > rollingMedian(ec2, 14, DAY) + 3 * rollingStd(ec2, 14, DAY)',
      }),
      values: { ec2: 18234.5 },
      baselines: { 'rollingMedian(ec2,14,DAY)': 9120.25, 'rollingStd(ec2,14,DAY)': 1210.4 },
    });
    expect(m.text).toContain(
      'Why it fired: EC2 cost is above the 14-day median of EC2 cost + 3 × the 14-day standard deviation of EC2 cost.',
    );
    // (18,234.5 − 9,120.25) / 1,210.4 = 7.53
    expect(m.text).toContain(
      'EC2 cost on 2026-11-20 was €18,235, 2.0× its 14-day median of €9,120, 7.5 standard deviations above its 14-day median (14-day standard deviation: €1,210).',
    );
    const under = renderAlertMessage({
      ...conditionFiring({ condition: '2 * ec2 < 100' }),
      values: { ec2: 20 },
    });
    expect(under.text).toContain('Why it fired: 2 × EC2 cost is below $100.');
  });

  test('renders samples of every format to test/artifacts/alerts', async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    for (const [name, firing] of [
      ['condition', conditionFiring()],
      ['period-change', periodChangeFiring()],
      ['root-causes', withRootCauses()],
    ] as const) {
      const m = renderAlertMessage(firing);
      writeFileSync(join(ARTIFACTS, `${name}.html`), m.html);
      writeFileSync(join(ARTIFACTS, `${name}.txt`), m.text);
      writeFileSync(
        join(ARTIFACTS, `${name}.slack.json`),
        JSON.stringify({ text: m.slackText, blocks: m.slackBlocks }, null, 2),
      );
      writeFileSync(
        join(ARTIFACTS, `${name}.teams.json`),
        JSON.stringify(teamsPayload(m.teamsCard), null, 2),
      );
      const n = emailNotification(m, {
        id: `sample-${name}`,
        orgId: 'org_sample',
        alertId: firing.alert.id,
        createdAt: '2026-11-21T06:00:00Z',
      });
      const raw = (await buildRawEmail(n, 'FinOps <finops@example.com>')).toString('utf8');
      writeFileSync(join(ARTIFACTS, `${name}.eml`), raw);
      expect(raw).toMatch(/Content-Type: multipart\/alternative/);
      expect(raw).toMatch(/Content-Type: text\/plain/);
      expect(raw).toMatch(/Content-Type: text\/html/);
      expect(raw).toMatch(/X-Notification-Id: sample-/i);
    }
  });

  test('the e-mail builder refuses CR or LF in any header value', async () => {
    const m = renderAlertMessage(conditionFiring());
    const n = emailNotification(m, {
      id: 'n1',
      alertId: 'a',
      emails: ['a@example.com\r\nBcc: victim@example.com'],
      createdAt: '2026-11-21T06:00:00Z',
    });
    await expect(buildRawEmail(n, 'FinOps <f@example.com>')).rejects.toThrow(/To must not contain CR or LF/);
    await expect(
      buildRawEmail(
        { ...n, emails: ['a@example.com'], message: { ...m, subject: 'x\nBcc: y@example.com' } },
        'f@example.com',
      ),
    ).rejects.toThrow(/Subject/);
    await expect(buildRawEmail({ ...n, emails: ['a@example.com'] }, 'f@example.com\r\nX: y')).rejects.toThrow(
      /From/,
    );
  });
});
