import { CARD_FOOTER_ID } from '../../../shared/domain/alerts/notification';
import {
  expiryNotificationId,
  expiryWindowOf,
  renderExpiryMessage,
} from '../../../shared/domain/commitments/expiry-alert';
import type { ExpiringCommitment } from '../../../shared/domain/commitments/ports';

describe('expiring-commitment windows', () => {
  test.each([
    [0, 90, 30],
    [30, 90, 30],
    [31, 90, 60],
    [60, 90, 60],
    [61, 90, 90],
    [90, 90, 90],
    [91, 90, null],
    [45, 30, null],
    [45, 60, 60],
    [-1, 90, null],
  ])('%i days left under a %i-day alert: window %p', (daysLeft, within, window) => {
    expect(expiryWindowOf(daysLeft, within)).toBe(window);
  });

  test('the notification id depends on the set announced, not its order', () => {
    const a = expiryNotificationId('alrt_1', '2026-11-28', ['30#sp-1', '90#ri-1']);
    expect(a).toBe(expiryNotificationId('alrt_1', '2026-11-28', ['90#ri-1', '30#sp-1']));
    expect(a).not.toBe(expiryNotificationId('alrt_1', '2026-11-28', ['30#sp-1']));
    expect(a).toMatch(/^[A-Za-z0-9_.:#-]{1,200}$/);
  });
});

describe('the expiring-commitment message', () => {
  const item: ExpiringCommitment = {
    id: 'arn:aws:savingsplans::1:savingsplan/sp-1',
    name: '<b>SP</b> {{DATE(x)}}',
    provider: 'AWS',
    type: 'Savings Plan',
    endDay: '2027-01-10',
    daysLeft: 1,
    hourlyCommitment: 0.1 + 0.2,
    utilization: 0.8064,
  };
  const m = renderExpiryMessage(
    { id: 'alrt_1', name: 'Renewals\r\nBcc: x', expiryWithinDays: 60 },
    [item],
    '2027-01-09',
    'https://c.example/',
  );

  test('names the commitment with its figures in every format', () => {
    expect(m.subject).toBe(
      'Commitment alert: Renewals Bcc: x — 1 commitment ending within 60 days (as of 2027-01-09)',
    );
    const line = `${item.name} (${item.id}): AWS, Savings Plan, ends 2027-01-10 (1 day left), hourly commitment 0.3/h, utilisation 80.6% (last 30 days)`;
    expect(m.text).toContain(line);
    expect(m.text).toContain('https://c.example/#/commitments');
    expect(m.text).toContain('GET /commitments/expiring?withinDays=60');
    expect(JSON.stringify(m.slackBlocks)).toContain(JSON.stringify(`• ${line}`).slice(1, -1));
    expect(m.html).toContain('&lt;b&gt;SP&lt;/b&gt;');
    expect(m.html).not.toContain('<b>SP');
    expect(JSON.stringify(m.teamsCard)).not.toContain('{{DATE');
    // The card's footer is named, so that images would go before it.
    expect((m.teamsCard.body as { id?: string }[]).at(-1)?.id).toBe(CARD_FOOTER_ID);
  });

  test('the Slack notification text is one line with the name escaped', () => {
    const named = renderExpiryMessage(
      { id: 'alrt_2', name: 'Renewals <b>soon</b> & <!channel>', expiryWithinDays: 30 },
      [item],
      '2027-01-09',
      'https://c.example/',
    );
    expect(named.slackText).toBe(
      'Commitment alert: Renewals &lt;b&gt;soon&lt;/b&gt; &amp; &lt;!channel&gt; — 1 commitment ending within 30 days (as of 2027-01-09)',
    );
    expect(m.slackText).not.toMatch(/[\r\n]/);
  });
});
