import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, session } from '../support/session';

/**
 * `POST /admin/fx-rates` on the local stack: platform admins only (`PLATFORM_ORG_IDS`, locally
 * `org_demo`), the ECB CSV or XML as text, a 400 for anything else.
 */
const s = () => session();
const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/fx', name), 'utf8');

interface Summary {
  source: string;
  days: number;
  from: string;
  to: string;
  currencies: string[];
}

function post(token: string, text: string, type: string) {
  return api<Summary | { error: string }>('POST', '/admin/fx-rates', {
    token,
    rawBody: text,
    headers: { 'content-type': type },
  });
}

describe('POST /admin/fx-rates', () => {
  it('loads the daily XML for a platform admin and answers what it loaded', async () => {
    const res = await post(s().apiKeys.admin, fixture('eurofxref-daily-2024-06-28.xml'), 'application/xml');
    expect(res.status).toBe(200);
    const body = res.body as Summary;
    expect(body).toMatchObject({
      source: 'European Central Bank',
      days: 1,
      from: '2024-06-28',
      to: '2024-06-28',
    });
    expect(body.currencies).toHaveLength(30);
    expect(body.currencies).toContain('KRW');
  });

  it('loads the history CSV', async () => {
    const text = fixture('eurofxref-hist-2024-09.csv');
    const res = await post(s().apiKeys.admin, text, 'text/csv');
    expect(res.status).toBe(200);
    const lines = text.trim().split('\n').slice(1);
    expect(res.body).toMatchObject({ days: lines.length, from: '2024-08-26', to: '2024-10-25' });
  });

  it('refuses members, and admins of other organisations, with 403', async () => {
    const text = fixture('eurofxref-daily-2024-06-28.csv');
    expect((await post(s().apiKeys.member, text, 'text/csv')).status).toBe(403);
    const other = await post(s().apiKeys.outsider, text, 'text/csv');
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: 'FORBIDDEN' });
  });

  it('answers 400 naming the problem for a file that is not an ECB rate file', async () => {
    const res = await post(s().apiKeys.admin, 'Date,USD\n2024-01-02,abc\n', 'text/csv');
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toMatch(/line 2/);
    // JSON carries the file as {file}; anything else is a 400.
    const json = await api('POST', '/admin/fx-rates', { token: s().apiKeys.admin, body: { rates: 1 } });
    expect(json.status).toBe(400);
    const wrapped = await api('POST', '/admin/fx-rates', {
      token: s().apiKeys.admin,
      body: { file: fixture('eurofxref-daily-2024-06-28.csv') },
    });
    expect(wrapped.status).toBe(200);
  });
});
