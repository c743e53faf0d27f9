/**
 * Renders sample alert notifications as people see them, for looking at (never run by a test):
 * `npx tsx test/support/alerts-preview.ts` writes, per sample, the e-mail HTML as sent and the
 * Slack message and the Teams card as the local stack's outbox page shows them
 * (`infra/local/capture-view.ts`) into test/artifacts/alerts/. Screenshots by hand:
 * `chromium --headless --no-sandbox --window-size=760,900 --screenshot=x.png file.html`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderOutbox } from '../../infra/local/capture-view';
import type { CapturedCall } from '../../infra/local/captured';
import { type AlertFiring, renderAlertMessage } from '../../shared/domain/alerts/render';
import type { Query } from '../../shared/model/query-model';
import { teamsPayload } from '../../shared/notify/teams';

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

/** One captured call: the outbox page (infra/local/capture-view.ts) renders it as the stack's outbox would. */
const captured = (kind: 'slack' | 'teams', path: string, body: unknown): CapturedCall => ({
  id: 1,
  kind,
  method: 'POST',
  path,
  headers: {},
  body,
  receivedAt: '2026-11-21T06:02:00.000Z',
  ...(kind === 'slack' ? { answer: { ok: true } } : {}),
});

function main(): void {
  mkdirSync(OUT, { recursive: true });
  for (const [name, firing] of Object.entries(SAMPLES)) {
    for (const test of [false, true]) {
      if (test && name !== 'median') continue;
      const m = renderAlertMessage({ ...firing, test });
      const stem = `preview-${name}${test ? '-test' : ''}`;
      writeFileSync(join(OUT, `${stem}.email.html`), m.html);
      writeFileSync(join(OUT, `${stem}.email.txt`), `Subject: ${m.subject}\n\n${m.text}\n`);
      const slack = captured('slack', '/slack/api/chat.postMessage', {
        channel: 'C0ALERTS',
        text: m.slackText,
        blocks: m.slackBlocks,
      });
      const teams = captured('teams', '/teams/workflows/alerts', teamsPayload(m.teamsCard));
      writeFileSync(join(OUT, `${stem}.slack.html`), renderOutbox([slack], []));
      writeFileSync(join(OUT, `${stem}.teams.html`), renderOutbox([teams], []));
    }
  }
  process.stdout.write(`wrote ${OUT}\n`);
}

if (require.main === module) main();
