import dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetConfig } from '../../shared/config';
import type { Notification } from '../../shared/domain/alerts/notification';
import { guardedGet, guardedPost, guardedPostForm } from '../../shared/net/guarded-fetch';
import { postSlackMessage, uploadSlackFiles } from '../../shared/notify/slack';
import { sendTeams } from '../../shared/notify/teams';
import { routes } from '../../shared/routes';
import { budgetAlertBody } from '../fixtures/budgets/alert-body';
import { budgetBody } from '../fixtures/budgets/body';
import { fieldsIn, type SchemaNode } from '../support/schema-walk';
import { api, session } from '../support/session';
import { periodChangeBody, thresholdBody } from '../unit/alerts/fixtures';

/**
 * Outbound URLs (docs/security.md#outbound-urls). A URL the server will call is refused when it is
 * saved (400, nothing stored) if it is not https on an allowed host, carries credentials, or names
 * a loopback, private, link-local, metadata, IPv4-mapped or unspecified address in any spelling;
 * a Slack target is a channel id, never a URL. When it is called, every address its name resolves
 * to is checked at connect time (the DNS answer is the one thing replaced here: no public DNS
 * offline), and a redirect is never followed, on every outbound path (Teams, the Slack Web API,
 * Slack's upload URLs, the FX fetch, the identity provider's API key introspection).
 */

const s = () => session();
const token = () => s().apiKeys.admin;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const MARKER = `outbound${run}`;

// --- which body fields hold something the server calls ------------------------------------------

/** Field names that could hold a target the server calls. */
const TARGET_NAME = /url|uri|webhook|hook|href|endpoint|callback|teams|slack|channel|link|host|destination/i;

/**
 * Every such field of every body route of the manifest, as `<route id> <path>`, with what it is.
 * A new route or field whose name looks like a target fails the test below until it is listed.
 */
const TARGETS: Record<string, 'webhook' | 'slack channel' | 'slack or email' | string> = {
  'createReport destinations': 'container of the destinations below',
  'createReport destinations[].destinationType': 'an enum (EMAIL, SLACK)',
  'createReport destinations[].destinationValues': 'slack or email',
  'patchReport destinations': 'container of the destinations below',
  'patchReport destinations[].destinationType': 'an enum (EMAIL, SLACK)',
  'patchReport destinations[].destinationValues': 'slack or email',
  'createCostAlert urlState': 'console URL state, stored and shown, never fetched',
  'createCostAlert notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'createCostAlert slackChannelId': 'slack channel',
  'createCostAlert teamsChannelId': 'webhook',
  'updateCostAlert urlState': 'console URL state, stored and shown, never fetched',
  'updateCostAlert notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'updateCostAlert slackChannelId': 'slack channel',
  'updateCostAlert teamsChannelId': 'webhook',
  'sendBudgetAlertTest notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'sendBudgetAlertTest slackChannelId': 'slack channel',
  'sendBudgetAlertTest teamsChannelId': 'webhook',
  'backtestCostAlert urlState': 'console URL state, stored and shown, never fetched',
  'backtestCostAlert notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'backtestCostAlert slackChannelId': 'slack channel',
  'backtestCostAlert teamsChannelId': 'webhook',
  'createBudgetAlert notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'createBudgetAlert slackChannelId': 'slack channel',
  'createBudgetAlert teamsChannelId': 'webhook',
  'updateBudgetAlert notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'updateBudgetAlert slackChannelId': 'slack channel',
  'updateBudgetAlert teamsChannelId': 'webhook',
  'createCommitmentAlert notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'createCommitmentAlert slackChannelId': 'slack channel',
  'createCommitmentAlert teamsChannelId': 'webhook',
  'updateCommitmentAlert notificationChannel': 'an enum (EMAIL, SLACK, TEAMS)',
  'updateCommitmentAlert slackChannelId': 'slack channel',
  'updateCommitmentAlert teamsChannelId': 'webhook',
};

it('every body field that could name a call target is listed with what it is', () => {
  const found = new Set<string>();
  for (const r of routes) {
    if (!r.body) continue;
    for (const f of fieldsIn(r.body as SchemaNode))
      if (TARGET_NAME.test(f.key)) found.add(`${r.id} ${f.path}`);
  }
  expect([...found].filter((k) => !(k in TARGETS)).sort()).toEqual([]);
  expect(Object.keys(TARGETS).filter((k) => !found.has(k))).toEqual([]);
});

// --- refused when saved ------------------------------------------------------------------------

const ALLOWED = 'prod-1.westus.logic.azure.com';

/** URLs no webhook may have: each must be a 400 wherever a webhook URL is accepted. */
const BAD_URLS: string[] = [
  // loopback, in every spelling the WHATWG URL parser turns into 127.0.0.1
  'https://127.0.0.1/hook',
  'https://127.1/hook',
  'https://2130706433/hook',
  'https://0177.0.0.1/hook',
  'https://0x7f.0.0.1/hook',
  'https://0x7f000001/hook',
  'https://localhost/hook',
  'https://LOCALHOST./hook',
  'https://hooks.localhost/hook',
  'https://[::1]/hook',
  'http://127.0.0.1:1/hook',
  // private
  'https://10.0.0.5/hook',
  'https://172.16.0.1/hook',
  'https://172.31.255.254/hook',
  'https://192.168.1.1/hook',
  'https://100.64.0.1/hook',
  // link-local and the metadata services
  'https://169.254.169.254/latest/meta-data/',
  'https://2852039166/latest/meta-data/',
  'https://0xA9FEA9FE/latest/meta-data/',
  'https://169.254.0.1/hook',
  'https://[fe80::1]/hook',
  'https://[fd00:ec2::254]/latest/meta-data/',
  // IPv4-mapped IPv6 and the unspecified address
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:a9fe:a9fe]/latest/meta-data/',
  'https://[::ffff:10.0.0.1]/hook',
  'https://0.0.0.0/hook',
  'https://0/hook',
  'https://[::]/hook',
  // not https
  `http://${ALLOWED}/workflows/x`,
  `ftp://${ALLOWED}/workflows/x`,
  'file:///etc/passwd',
  'javascript:alert(1)',
  // credentials, other ports, hosts that only look allowed
  `https://user:pw@${ALLOWED}/workflows/x`,
  `https://user@${ALLOWED}/workflows/x`,
  `https://${ALLOWED}:8443/workflows/x`,
  `https://${ALLOWED}.evil.test/workflows/x`,
  `https://${ALLOWED}@evil.test/workflows/x`,
  `https://evil.test/#@${ALLOWED}/`,
  'https://8.8.8.8/hook',
  'not a url',
];

/** Slack targets are channel ids: a URL is not one. */
const URL_AS_SLACK_ID = [
  'https://127.0.0.1/x',
  'http://169.254.169.254/',
  'https://hooks.slack.com/x',
  'C01/../x',
];

const goodTeams = () => periodChangeBody({ name: `${MARKER} ok ${Math.random()}` });

async function alertById(id: string): Promise<Record<string, unknown> | undefined> {
  const res = await api<{ items: Record<string, unknown>[] }>('GET', '/alerts-v2/costAlerts?limit=100', {
    token: token(),
  });
  return res.body.items.find((a) => a.id === id);
}

async function createAlert(body: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', { token: token(), body });
  expect(res.status).toBe(201);
  return res.body.id;
}

let budget: Promise<string> | undefined;
/** A budget of the session's organisation for the budget-alert bodies (made once). */
function budgetId(): Promise<string> {
  budget ??= api<{ id: string }>('POST', '/budgets', {
    token: token(),
    body: budgetBody({ name: `${MARKER} budget` }),
  }).then((res) => res.body.id);
  return budget;
}

const expect400 = (what: string, res: { status: number; body: unknown }, field: string) => {
  expect({ what, status: res.status }).toEqual({ what, status: 400 });
  expect({ what, names: JSON.stringify(res.body).includes(field) }).toEqual({ what, names: true });
};

describe('a webhook URL to an internal address, not https, or with credentials is refused when saved', () => {
  it('the allowed control URL is accepted', async () => {
    const id = await createAlert(goodTeams());
    expect((await alertById(id))?.teamsChannelId).toBe(goodTeams().teamsChannelId);
  });

  it.each(BAD_URLS)('%s', async (url) => {
    const name = `${MARKER} ${url}`;
    const created = await api('POST', '/alerts-v2/costAlerts', {
      token: token(),
      body: periodChangeBody({ name, teamsChannelId: url }),
    });
    expect400(`create ${url}`, created, 'teamsChannelId');
    const backtest = await api('POST', '/alerts-v2/costAlerts/backtest', {
      token: token(),
      body: periodChangeBody({ name, teamsChannelId: url }),
    });
    expect400(`backtest ${url}`, backtest, 'teamsChannelId');
    const test = await api('POST', '/alerts-v2/budgetAlerts/sendTest', {
      token: token(),
      body: { notificationChannel: 'TEAMS', teamsChannelId: url },
    });
    expect400(`sendTest ${url}`, test, 'teamsChannelId');
    const budgetAlert = await api('POST', '/alerts-v2/budgetAlerts', {
      token: token(),
      body: budgetAlertBody(await budgetId(), {
        name,
        notificationChannel: 'TEAMS',
        emails: [],
        teamsChannelId: url,
      }),
    });
    expect400(`budget alert ${url}`, budgetAlert, 'teamsChannelId');
    const commitmentAlert = await api('POST', '/alerts-v2/commitmentAlerts', {
      token: token(),
      body: { name, withinDays: 30, notificationChannel: 'TEAMS', teamsChannelId: url },
    });
    expect400(`commitment alert ${url}`, commitmentAlert, 'teamsChannelId');
  });

  it('an update of an expiring-commitment alert to any of them is refused and nothing changes', async () => {
    const body = {
      name: `${MARKER} commitments`,
      withinDays: 30,
      notificationChannel: 'EMAIL',
      emails: ['a@example.com'],
    };
    const created = await api<{ id: string }>('POST', '/alerts-v2/commitmentAlerts', {
      token: token(),
      body,
    });
    expect(created.status).toBe(201);
    const read = async () =>
      (
        await api<{ items: { id: string }[] }>('GET', '/alerts-v2/commitmentAlerts?limit=100', {
          token: token(),
        })
      ).body.items.find((a) => a.id === created.body.id);
    const before = await read();
    for (const url of BAD_URLS) {
      const res = await api('PUT', `/alerts-v2/commitmentAlerts/${created.body.id}`, {
        token: token(),
        body: { ...body, notificationChannel: 'TEAMS', emails: [], teamsChannelId: url },
      });
      expect400(`commitment alert update ${url}`, res, 'teamsChannelId');
    }
    expect(await read()).toEqual(before);
  });

  it('an update to any of them is refused and the stored URL is unchanged', async () => {
    const id = await createAlert(goodTeams());
    const before = await alertById(id);
    for (const url of BAD_URLS) {
      const res = await api('PUT', `/alerts-v2/costAlerts/${id}`, {
        token: token(),
        body: periodChangeBody({ name: `${MARKER} upd`, teamsChannelId: url }),
      });
      expect400(`update ${url}`, res, 'teamsChannelId');
    }
    expect(await alertById(id)).toEqual(before);
  });

  it('a URL where a Slack channel id goes is refused (alerts, tests, report destinations)', async () => {
    const report = await api<{ id: string }>('POST', '/reports', {
      token: token(),
      body: { name: `${MARKER} report`, scheduledPeriod: 'WEEKLY', scheduledWeekday: 1 },
    });
    expect(report.status).toBe(201);
    const alertId = await createAlert(thresholdBody({ name: `${MARKER} slack` }));
    const alertBefore = await alertById(alertId);
    for (const value of URL_AS_SLACK_ID) {
      const dest = { destinations: [{ destinationType: 'SLACK', destinationValues: [value] }] };
      const created = await api('POST', '/reports', {
        token: token(),
        body: { name: `${MARKER} r ${value}`, scheduledPeriod: 'WEEKLY', scheduledWeekday: 1, ...dest },
      });
      expect400(`report ${value}`, created, 'destinationValues');
      const patched = await api('PATCH', `/reports/${report.body.id}`, { token: token(), body: dest });
      expect400(`patch ${value}`, patched, 'destinationValues');
      for (const [method, path] of [
        ['POST', '/alerts-v2/costAlerts'],
        ['POST', '/alerts-v2/costAlerts/backtest'],
        ['PUT', `/alerts-v2/costAlerts/${alertId}`],
      ] as const) {
        const res = await api(method, path, {
          token: token(),
          body: thresholdBody({ name: `${MARKER} s`, slackChannelId: value }),
        });
        expect400(`${path} ${value}`, res, 'slackChannelId');
      }
      const test = await api('POST', '/alerts-v2/budgetAlerts/sendTest', {
        token: token(),
        body: { notificationChannel: 'SLACK', slackChannelId: value },
      });
      expect400(`sendTest ${value}`, test, 'slackChannelId');
    }
    const after = await api<{ destinations: unknown[] }>('GET', `/reports/${report.body.id}`, {
      token: token(),
    });
    expect(after.body.destinations).toEqual([]);
    expect(await alertById(alertId)).toEqual(alertBefore);
  });

  it('no refused URL was stored: the alert and report lists hold only the controls', async () => {
    const alerts = await api<{ items: { name: string }[] }>('GET', '/alerts-v2/costAlerts?limit=100', {
      token: token(),
    });
    const stray = alerts.body.items
      .map((a) => a.name)
      .filter((n) => n.startsWith(MARKER) && !n.startsWith(`${MARKER} ok `) && n !== `${MARKER} slack`);
    expect(stray).toEqual([]);
    const reports = await api<{ items: { name: string }[] }>('GET', '/reports?limit=100', { token: token() });
    expect(reports.body.items.filter((r) => r.name.startsWith(MARKER)).map((r) => r.name)).toEqual([
      `${MARKER} report`,
    ]);
  });
});

// --- refused when called -----------------------------------------------------------------------

/** A local server that records each request and answers with `answer`. */
async function server(
  answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string },
) {
  const hits: string[] = [];
  const srv: Server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    req.resume();
    req.on('end', () => {
      const a = answer(req.url ?? '/');
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { origin, hits, close: () => new Promise<void>((resolve) => srv.close(() => resolve())) };
}

type Target = Awaited<ReturnType<typeof server>>;
let target: Target;
let redirector: Target;
let slackApi: Target;
let uploadUrl = '';

beforeAll(async () => {
  // The internal service a redirect or a rebinding name would reach.
  target = await server(() => ({ status: 200, body: '{"ok":true}' }));
  redirector = await server(() => ({ status: 302, headers: { location: `${target.origin}/stolen` } }));
  // A Slack Web API whose upload URL is chosen by each test; its own /upload redirects.
  slackApi = await server((path) => {
    if (path.startsWith('/files.getUploadURLExternal'))
      return { status: 200, body: JSON.stringify({ ok: true, upload_url: uploadUrl, file_id: 'F1' }) };
    if (path.startsWith('/upload')) return { status: 302, headers: { location: `${target.origin}/stolen` } };
    return { status: 302, headers: { location: `${target.origin}/stolen` } };
  });
  process.env.SLACK_API_BASE_URL = slackApi.origin;
  process.env.SLACK_BOT_TOKEN = 'xoxb-test';
  resetConfig();
});

afterAll(async () => {
  jest.restoreAllMocks();
  delete process.env.SLACK_API_BASE_URL;
  delete process.env.SLACK_BOT_TOKEN;
  resetConfig();
  await Promise.all([target.close(), redirector.close(), slackApi.close()]);
});

const notification = (teamsUrl: string) =>
  ({ teamsUrl, message: { teamsCard: { type: 'AdaptiveCard' } } }) as unknown as Notification;

describe('at connect time, a name that resolves to an internal address is refused', () => {
  const HOST = 'hooks.example.test';
  const policy = { allowedHosts: [HOST, '.slack.com'] };
  // What the name resolves to today (it may have resolved elsewhere when the URL was saved).
  const answers: [string, dns.LookupAddress[]][] = [
    ['loopback', [{ address: '127.0.0.1', family: 4 }]],
    ['private', [{ address: '10.1.2.3', family: 4 }]],
    ['metadata', [{ address: '169.254.169.254', family: 4 }]],
    ['IPv4-mapped', [{ address: '::ffff:127.0.0.1', family: 6 }]],
    ['IPv6 loopback', [{ address: '::1', family: 6 }]],
    ['IPv6 unique-local', [{ address: 'fd00:ec2::254', family: 6 }]],
    ['unspecified', [{ address: '0.0.0.0', family: 4 }]],
    [
      'one public, one private',
      [
        { address: '93.184.216.34', family: 4 },
        { address: '192.168.0.10', family: 4 },
      ],
    ],
  ];
  let resolved: string[] = [];
  beforeEach(() => {
    resolved = [];
  });
  afterEach(() => jest.restoreAllMocks());

  const resolveTo = (addresses: dns.LookupAddress[]) =>
    jest.spyOn(dns, 'lookup').mockImplementation(((hostname: string, _opts: unknown, cb: unknown) => {
      resolved.push(hostname);
      (cb as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
    }) as unknown as typeof dns.lookup);

  it.each(answers)(
    '%s: Teams webhook, Slack upload URL, FX fetch and API key introspection',
    async (_label, addresses) => {
      resolveTo(addresses);
      const refused = { code: 'EWEBHOOKREFUSED' };
      await expect(
        guardedPost(`https://${HOST}/hook`, { contentType: 'application/json', body: '{}' }, policy),
      ).rejects.toMatchObject(refused);
      await expect(sendTeams(notification(`https://${HOST}/hook`), policy)).rejects.toMatchObject(refused);
      uploadUrl = 'https://files.slack.com/upload/v1/abc';
      await expect(
        uploadSlackFiles('C0123', [{ filename: 'a.png', content: new Uint8Array([1, 2, 3]) }]),
      ).rejects.toMatchObject(refused);
      await expect(guardedGet(`https://${HOST}/rates.xml`, { maxBytes: 1024 })).rejects.toMatchObject(
        refused,
      );
      await expect(
        guardedPostForm(`https://${HOST}/introspect`, { token: 'ak_x' }, { timeoutMs: 3000, maxBytes: 1024 }),
      ).rejects.toMatchObject(refused);
      // Each call asked for the name: the check is the connection's own lookup, not a stale answer.
      expect(resolved).toEqual([HOST, HOST, 'files.slack.com', HOST, HOST]);
    },
  );
});

describe('a redirect is never followed', () => {
  it('Teams webhook: the 302 fails the delivery and its target is never called', async () => {
    const policy = { allowedHosts: [], localCaptureOrigin: redirector.origin };
    await expect(sendTeams(notification(`${redirector.origin}/hook`), policy)).rejects.toThrow(/redirect/);
    await expect(
      guardedPost(`${redirector.origin}/hook`, { contentType: 'application/json', body: '{}' }, policy),
    ).rejects.toThrow(/redirects are not followed/);
    expect(redirector.hits).toEqual(['/hook', '/hook']);
  });

  it('API key introspection: a 302 fails the call; http, credentials and internal literals are never called', async () => {
    const opts = { timeoutMs: 3000, maxBytes: 1024 };
    // The local stand-in's exemption (loopback http, refused by the configuration in AWS) lets
    // the call reach the redirector, whose 302 is not followed.
    await expect(
      guardedPostForm(`${redirector.origin}/introspect`, { token: 'ak_x' }, { ...opts, loopback: true }),
    ).rejects.toThrow(/redirects are not followed/);
    expect(redirector.hits.at(-1)).toBe('/introspect');
    for (const url of [
      `${target.origin}/introspect`,
      'http://login.example.test/introspect',
      'https://user:pw@login.example.test/introspect',
      'https://169.254.169.254/latest/',
      'https://10.0.0.1/introspect',
      'https://[::1]/introspect',
    ])
      await expect(guardedPostForm(url, { token: 'ak_x' }, opts)).rejects.toThrow(
        /https|credentials|refused/,
      );
  });

  it('Slack Web API: a 302 fails the call', async () => {
    await expect(postSlackMessage('C0123', { text: 'x', blocks: [] })).rejects.toThrow();
    expect(slackApi.hits.at(-1)).toBe('/chat.postMessage');
  });

  it('Slack upload URL: a 302 fails the upload; an upload URL elsewhere is never called', async () => {
    uploadUrl = `${slackApi.origin}/upload/v1/abc`;
    const file = [{ filename: 'a.png', content: new Uint8Array([1, 2, 3]) }];
    await expect(uploadSlackFiles('C0123', file)).rejects.toThrow(/redirect/);
    for (const url of [`${target.origin}/upload`, 'http://169.254.169.254/latest/', 'https://10.0.0.1/u']) {
      uploadUrl = url;
      await expect(uploadSlackFiles('C0123', file)).rejects.toThrow(/loopback|https|allowed|IP/);
    }
  });

  it('nothing a redirect or a refused URL pointed at was ever reached', () => {
    expect(target.hits).toEqual([]);
  });
});
