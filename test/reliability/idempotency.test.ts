import { api, listAllPages, session } from '../support/session';

/**
 * `Idempotency-Key` on POST routes (shared/http/idempotency.ts) over HTTP on the local stack: 20
 * parallel identical creates with one key make one record and give 20 identical answers; the key
 * with another body is a 422; without a key every request creates; a bad key is a 400.
 */

interface Report {
  id: string;
  name: string;
}

const admin = () => session().apiKeys.admin;
const unique = (label: string) =>
  `${label} ${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
const newKey = () => `idem-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

const reportBody = (name: string) => ({ name, scheduledPeriod: 'WEEKLY', scheduledWeekday: 1 });

function createReport(token: string, body: unknown, key?: string) {
  return api<Report & { error?: string }>('POST', '/reports', {
    token,
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
}

/** The reports named `name` that the caller can list, counted over every page. */
const reportsNamed = async (token: string, name: string): Promise<string[]> =>
  (await listAllPages<Report>(token, '/reports')).filter((r) => r.name === name).map((r) => r.id);

describe('Idempotency-Key on POST /reports', () => {
  it('20 parallel identical requests with one key create exactly one report, and all get the same answer', async () => {
    const name = unique('idem parallel');
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => createReport(admin(), reportBody(name), key)),
    );
    const first = answers[0];
    for (const a of answers) {
      expect(a.status).toBe(201);
      expect(a.body).toEqual(first?.body);
    }
    expect(first?.body.name).toBe(name);
    expect(await reportsNamed(admin(), name)).toEqual([first?.body.id]);

    // Later, after the first answered: the stored answer again, still one report.
    const again = await createReport(admin(), reportBody(name), key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first?.body);
    expect(await reportsNamed(admin(), name)).toHaveLength(1);
  });

  it('the same key with a different body is a 422 {error} and creates nothing', async () => {
    const name = unique('idem reuse');
    const other = unique('idem other');
    const key = newKey();
    const created = await createReport(admin(), reportBody(name), key);
    expect(created.status).toBe(201);
    const reused = await createReport(admin(), reportBody(other), key);
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ error: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await reportsNamed(admin(), other)).toEqual([]);
    expect(await reportsNamed(admin(), name)).toEqual([created.body.id]);
  });

  it('without a key, two identical requests create two reports', async () => {
    const name = unique('idem none');
    const [a, b] = await Promise.all([
      createReport(admin(), reportBody(name)),
      createReport(admin(), reportBody(name)),
    ]);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.id).not.toBe(b.body.id);
    expect((await reportsNamed(admin(), name)).sort()).toEqual([a.body.id, b.body.id].sort());
  });

  it('keys are per principal: another principal of the organisation using the same key creates its own report', async () => {
    const name = unique('idem principal');
    const key = newKey();
    const byAdmin = await createReport(admin(), reportBody(name), key);
    const byMember = await createReport(session().apiKeys.member, reportBody(name), key);
    expect(byAdmin.status).toBe(201);
    expect(byMember.status).toBe(201);
    expect(byMember.body.id).not.toBe(byAdmin.body.id);
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['non-printable', 'key\twith-tab'],
    ['blank', ' '],
  ])('a %s key is a 400 {error} and creates nothing', async (_label, key) => {
    const name = unique('idem bad key');
    const res = await createReport(admin(), reportBody(name), key);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'INVALID_IDEMPOTENCY_KEY' });
    expect(await reportsNamed(admin(), name)).toEqual([]);
  });

  it('a rejected request does not hold the key: a corrected retry with the same key creates', async () => {
    const name = unique('idem retry');
    const key = newKey();
    const bad = await createReport(admin(), { name, scheduledPeriod: 'NEVER' }, key);
    expect(bad.status).toBe(400);
    const good = await createReport(admin(), reportBody(name), key);
    expect(good.status).toBe(201);
    expect(await reportsNamed(admin(), name)).toEqual([good.body.id]);
  });
});
