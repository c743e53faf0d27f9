import { api, session } from '../support/session';

/**
 * The versioned-write rule (shared/domain/common/lost-race.ts) under real concurrency on the local
 * stack: `If-Match: "<n>"` is a compare-and-set (one writer of a version wins, the others get 409
 * VERSION_CONFLICT), while `If-Match: *` and no If-Match are last-writer-wins (every writer gets
 * 200 and the version counts every write).
 */

const admin = () => session().apiKeys.admin;
const unique = (label: string) =>
  `${label} ${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;

interface Versioned {
  id: string;
  version: number;
  name: string;
}

interface Resource {
  label: string;
  create(): Promise<Versioned>;
  patchPath(id: string): string;
  read(id: string): Promise<Versioned>;
}

const resources: Resource[] = [
  {
    label: 'PATCH /reports/{id}',
    async create() {
      const res = await api<Versioned>('POST', '/reports', {
        token: admin(),
        body: { name: unique('locking'), scheduledPeriod: 'WEEKLY', scheduledWeekday: 1 },
      });
      expect(res.status).toBe(201);
      return res.body;
    },
    patchPath: (id) => `/reports/${id}`,
    async read(id) {
      return (await api<Versioned>('GET', `/reports/${id}`, { token: admin() })).body;
    },
  },
  {
    label: 'PATCH /dashboard-v2/{id}',
    async create() {
      const res = await api<Versioned>('POST', '/dashboard-v2', {
        token: admin(),
        body: { name: unique('locking'), widgets: [] },
      });
      expect(res.status).toBe(201);
      return res.body;
    },
    patchPath: (id) => `/dashboard-v2/${id}`,
    async read(id) {
      return (await api<Versioned>('GET', `/dashboard-v2/${id}`, { token: admin() })).body;
    },
  },
];

function patchAll(path: string, names: string[], ifMatch: string | undefined) {
  return Promise.all(
    names.map((name) =>
      api<{ error?: string; version?: number }>('PATCH', path, {
        token: admin(),
        body: { name },
        headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
      }),
    ),
  );
}

describe.each(resources)('$label under concurrent writers', (resource) => {
  it('10 writers of the same explicit version: exactly 1 × 200 and 9 × 409 VERSION_CONFLICT', async () => {
    const created = await resource.create();
    const names = Array.from({ length: 10 }, (_, i) => `${created.name} cas-${i}`);
    const answers = await patchAll(resource.patchPath(created.id), names, `"${created.version}"`);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body).toEqual({ error: 'VERSION_CONFLICT' });
    const winner = names[answers.findIndex((a) => a.status === 200)];
    const stored = await resource.read(created.id);
    expect(stored).toMatchObject({ version: created.version + 1, name: winner });
  });

  it.each([
    ['If-Match: *', 12, '*'],
    ['no If-Match', 12, undefined],
  ])('%s: %i parallel writers all get 200 and each write counts once', async (_label, count, ifMatch) => {
    const created = await resource.create();
    const names = Array.from({ length: count }, (_, i) => `${created.name} lww-${i}`);
    const answers = await patchAll(resource.patchPath(created.id), names, ifMatch);
    expect(answers.map((a) => a.status)).toEqual(Array(count).fill(200));
    const versions = answers.map((a) => a.body.version).sort((a, b) => (a ?? 0) - (b ?? 0));
    // Every writer's change was applied on its own version: no two answers share one.
    expect(versions).toEqual(Array.from({ length: count }, (_, i) => created.version + 1 + i));
    const stored = await resource.read(created.id);
    expect(stored.version).toBe(created.version + count);
    expect(names).toContain(stored.name);
  });
});
