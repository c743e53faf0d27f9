import { resetEmailClient, sendRawEmail } from '../../shared/cloud/ses';
import { resetConfig } from '../../shared/config';
import type { Notification } from '../../shared/domain/alerts/notification';
import { renderAlertMessage } from '../../shared/domain/alerts/render';
import { formatReport } from '../../shared/domain/reports/render/format';
import { buildRawEmail, composeEmail } from '../../shared/notify/email';
import { buildReportEmail } from '../../shared/notify/report-senders';
import { SAMPLES } from '../support/alerts-preview';
import { api, session } from '../support/session';
import { periodChangeBody } from '../unit/alerts/fixtures';

/**
 * E-mail header injection (docs/security.md#e-mail). Names (alert and report names become subjects)
 * and addresses come from users. None of CR, LF, NEL, U+2028/U+2029, encoded words, or commas,
 * semicolons and angle brackets in a name can add a header or a recipient: an address with any of
 * them is refused when saved (400, nothing stored); a name is refused (alerts: control characters)
 * or made one line when the subject is rendered, and the composer refuses any line break left in a
 * header. Proven on the raw MIME the service builds and on what the SES emulator parsed from it.
 */

const s = () => session();
const token = () => s().apiKeys.admin;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const MARKER = `mail${run}`;
const EVIL = `evil-${run}@attacker.test`;

/** Names that try to end the subject line or smuggle a recipient. */
const NAMES: [string, string][] = [
  ['CRLF Bcc', `Spend\r\nBcc: ${EVIL}`],
  ['LF Cc', `Spend\nCc: ${EVIL}`],
  ['CR To', `Spend\rTo: ${EVIL}`],
  ['CRLF CRLF body', `Spend\r\n\r\nInjected body`],
  ['NEL', `Spend\u0085Bcc: ${EVIL}`],
  ['line separator', `Spend\u2028Bcc: ${EVIL}`],
  ['paragraph separator', `Spend\u2029Bcc: ${EVIL}`],
  ['encoded word', `=?UTF-8?Q?Spend=0D=0ABcc:=20${EVIL.replace('@', '=40')}?=`],
  ['comma and angle brackets', `Spend, <${EVIL}>`],
  ['semicolon group', `Spend; Bcc: ${EVIL};`],
  ['quoted display name', `"Finance" <${EVIL}>`],
  ['NUL and tab', `Spend\u0000\tBcc: ${EVIL}`],
];

/** Addresses that try to be more than one address, or to carry a header. */
const ADDRESSES = [
  `ok@example.com\r\nBcc: ${EVIL}`,
  `ok@example.com\nBcc: ${EVIL}`,
  `ok@example.com, ${EVIL}`,
  `ok@example.com,${EVIL}`,
  `ok@example.com; ${EVIL}`,
  `Finance <ok@example.com>`,
  `"ok@example.com" <${EVIL}>`,
  `ok@example.com <${EVIL}>`,
  `=?UTF-8?Q?ok=40example.com=2C${EVIL.replace('@', '=40')}?=`,
  `ok@example.com\u2028${EVIL}`,
  `ok@example.com (${EVIL})`,
];

const expect400 = (what: string, res: { status: number; body: unknown }, field: string) => {
  expect({ what, status: res.status }).toEqual({ what, status: 400 });
  expect({ what, names: JSON.stringify(res.body).includes(field) }).toEqual({ what, names: true });
};

describe('when saved', () => {
  it.each(ADDRESSES)(
    'the address %j is refused on alerts, tests and report destinations',
    async (address) => {
      const alert = await api('POST', '/alerts-v2/costAlerts', {
        token: token(),
        body: periodChangeBody({ name: `${MARKER} a`, notificationChannel: 'EMAIL', emails: [address] }),
      });
      expect400('alert', alert, 'emails');
      const test = await api('POST', '/alerts-v2/budgetAlerts/sendTest', {
        token: token(),
        body: { notificationChannel: 'EMAIL', emails: [address] },
      });
      expect400('sendTest', test, 'emails');
      const report = await api('POST', '/reports', {
        token: token(),
        body: {
          name: `${MARKER} r`,
          scheduledPeriod: 'WEEKLY',
          scheduledWeekday: 1,
          destinations: [{ destinationType: 'EMAIL', destinationValues: [address] }],
        },
      });
      expect400('report', report, 'destinationValues');
    },
  );

  const controls = (n: string) => [...n].some((c) => c.charCodeAt(0) < 0x20);
  it.each(NAMES.filter(([, n]) => controls(n)))(
    'an alert name with control characters (%s) is refused',
    async (_label, name) => {
      const res = await api('POST', '/alerts-v2/costAlerts', {
        token: token(),
        body: periodChangeBody({
          name: `${MARKER} ${name}`,
          notificationChannel: 'EMAIL',
          emails: ['a@example.com'],
        }),
      });
      expect400(name, res, 'name');
    },
  );

  it('nothing refused was stored', async () => {
    for (const path of ['/alerts-v2/costAlerts?limit=100', '/reports?limit=100']) {
      const res = await api<{ items: { name: string }[] }>('GET', path, { token: token() });
      expect(res.body.items.filter((i) => i.name.includes(MARKER))).toEqual([]);
    }
  });
});

// --- the raw MIME and the SES emulator ---------------------------------------------------------

const TO = `owner-${run}@example.com`;
const FROM = 'FinOps <finops@example.com>';

/** The header block of a raw message, unfolded: one entry per header, `[name, value]`. */
function headersOf(raw: Buffer): [string, string][] {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  expect(end).toBeGreaterThan(0);
  const unfolded = text.slice(0, end).replace(/\r\n[ \t]/g, ' ');
  return unfolded.split('\r\n').map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
  });
}

/** Every line of the header block is CRLF-terminated: no bare CR or LF to start a header with. */
const bareBreaks = (raw: Buffer) => {
  const text = raw.toString('latin1');
  return /\r(?!\n)|(?<!\r)\n/.test(text.slice(0, text.indexOf('\r\n\r\n')));
};

interface Stored {
  messageId: string;
  subject: string;
  replyTo: string[];
  destination: { to: string[]; cc: string[]; bcc: string[] };
}

async function storedWithSubjectPart(part: string): Promise<Stored[]> {
  const store = (await (await fetch(`${process.env.SES_ENDPOINT}/store`)).json()) as { emails: Stored[] };
  return store.emails.filter((e) => e.subject.includes(part));
}

beforeAll(() => {
  resetConfig();
  resetEmailClient();
});

/** Checks one built message: its headers, then what the SES emulator makes of it. */
async function expectOneRecipient(label: string, raw: Buffer, allowed: string[]) {
  const headers = headersOf(raw);
  const names = headers.map(([n]) => n);
  // Only the headers the composer writes, each once; the recipient is the one intended.
  expect({ label, unexpected: names.filter((n) => !allowed.includes(n)) }).toEqual({ label, unexpected: [] });
  expect({ label, duplicates: names.filter((n, i) => names.indexOf(n) !== i) }).toEqual({
    label,
    duplicates: [],
  });
  expect({ label, to: headers.find(([n]) => n === 'to')?.[1] }).toEqual({ label, to: TO });
  expect({ label, bare: bareBreaks(raw) }).toEqual({ label, bare: false });
  // The smuggled address may appear as text in the subject, in no other header.
  expect({ label, elsewhere: headers.filter(([n, v]) => n !== 'subject' && v.includes(EVIL)) }).toEqual({
    label,
    elsewhere: [],
  });
  await sendRawEmail(raw);
  const [stored, ...more] = await storedWithSubjectPart(label);
  expect({ label, more: more.length }).toEqual({ label, more: 0 });
  expect({
    label,
    to: stored?.destination.to,
    cc: stored?.destination.cc,
    bcc: stored?.destination.bcc,
    replyTo: stored?.replyTo,
    oneLine: /[\r\n\u0085\u2028\u2029]/.test(stored?.subject ?? '\n'),
  }).toEqual({ label, to: [TO], cc: [], bcc: [], replyTo: [], oneLine: false });
}

const ALERT_HEADERS = [
  'from',
  'to',
  'subject',
  'x-notification-id',
  'message-id',
  'date',
  'mime-version',
  'content-type',
];
const REPORT_HEADERS = ['from', 'to', 'subject', 'message-id', 'date', 'mime-version', 'content-type'];

describe('an alert name that reaches the subject adds no header and no recipient', () => {
  it.each(NAMES)('%s', async (label, name) => {
    const firing = structuredClone(SAMPLES.median!);
    firing.alert.name = `${MARKER} alert ${label} ${name}`;
    const message = renderAlertMessage(firing);
    const n = { id: `ntf_${run}`, emails: [TO], message } as unknown as Notification;
    await expectOneRecipient(`${MARKER} alert ${label}`, await buildRawEmail(n, FROM), ALERT_HEADERS);
  });
});

describe('a report name that reaches the subject adds no header and no recipient', () => {
  it.each(NAMES)('%s', async (label, name) => {
    const rendered = formatReport(
      { name: `${MARKER} report ${label} ${name}`, description: '' },
      '2026-11-27T08:00:00Z',
      [],
    );
    await expectOneRecipient(
      `${MARKER} report ${label}`,
      await buildReportEmail(TO, rendered, FROM),
      REPORT_HEADERS,
    );
  });
});

describe('the composer itself refuses a line break in any header value', () => {
  it.each([
    ['subject', { subject: 'a\r\nBcc: x@attacker.test' }],
    ['subject (LF)', { subject: 'a\nBcc: x@attacker.test' }],
    ['subject (U+2028)', { subject: 'a\u2028Bcc: x@attacker.test' }],
    ['recipient', { to: [`${TO}\r\nBcc: x@attacker.test`] }],
    ['from', { from: 'FinOps <f@example.com>\r\nBcc: x@attacker.test' }],
    ['extra header', { headers: { 'X-Id': '1\r\nBcc: x@attacker.test' } }],
  ])('%s', async (_label, over) => {
    await expect(
      composeEmail({ from: FROM, to: [TO], subject: 'ok', text: 't', html: '<p>t</p>', ...over }),
    ).rejects.toThrow(/must not contain CR or LF/);
  });
});
