import { randomUUID } from 'node:crypto';
import type { EnrichmentDocument } from '../../shared/domain/enrichments/store';
import { toYaml } from '../../shared/domain/enrichments/yaml-text';
import { api, stackKeys } from '../support/session';
import { entry, sampleDocument } from '../unit/enrichments/fixtures';

const { admin, member, org: orgKey, outsider } = stackKeys;

const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const path = (name: string) => `/enrichments/${name}`;

function put(token: string, name: string, body: unknown, headers: Record<string, string> = {}) {
  return api<EnrichmentDocument & { error?: string }>('PUT', path(name), { token, body, headers });
}

function putYaml(token: string, name: string, yaml: string) {
  return api<EnrichmentDocument & { error?: string }>('PUT', path(name), {
    token,
    rawBody: yaml,
    headers: { 'content-type': 'application/yaml' },
  });
}

const get = (token: string, name: string) =>
  api<EnrichmentDocument & { error?: string }>('GET', path(name), { token });

describe('enrichments over HTTP', () => {
  it('round-trips: PUT then GET gives the document back; a GET saved unmodified is a valid PUT', async () => {
    const name = uniqueName('cost-centres');
    const doc = sampleDocument({ name });
    const created = await put(admin(), name, doc);
    expect(created.status).toBe(201);
    expect(created.body).toEqual(doc);
    expect(created.headers.get('etag')).toBe('"1"');

    const read = await get(member(), name);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(doc);
    expect(read.headers.get('etag')).toBe('"1"');

    const again = await put(admin(), name, read.body, { 'if-match': read.headers.get('etag') ?? '' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(doc);
    expect(again.headers.get('etag')).toBe('"2"');
    const reread = await get(admin(), name);
    expect(reread.body).toEqual(read.body);
    expect(reread.headers.get('etag')).toBe('"2"');
  });

  it('omits conditions when unset, and accepts null as unset', async () => {
    const name = uniqueName('no-cond');
    const { conditions: _c, ...doc } = sampleDocument({ name });
    expect((await put(orgKey(), name, { ...doc, conditions: null })).status).toBe(201);
    const read = await get(member(), name);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(doc);
    expect(Object.keys(read.body)).not.toContain('conditions');
  });

  it('accepts the document as YAML and answers its JSON form', async () => {
    const name = uniqueName('yaml');
    const doc = sampleDocument({ name, entries: [entry('007', { owner: 'bond' })] });
    const res = await putYaml(admin(), name, toYaml(doc));
    expect(res.status).toBe(201);
    expect(res.body).toEqual(doc);
    expect((await get(member(), name)).body).toEqual(doc);
    // The YAML form of a GET answer replaces it unchanged; a member's YAML is refused like JSON.
    expect((await putYaml(admin(), name, toYaml((await get(member(), name)).body))).status).toBe(200);
    expect((await putYaml(member(), name, toYaml(doc))).status).toBe(403);
  });

  it('rejects bad YAML, including an alias bomb, and stores nothing', async () => {
    const name = uniqueName('bomb');
    const letters = 'abcdefghi';
    const lines = [`a: &a [${Array(9).fill('"lol"').join(',')}]`];
    for (let i = 1; i < letters.length; i++) {
      lines.push(
        `${letters[i]}: &${letters[i]} [${Array(9)
          .fill(`*${letters[i - 1]}`)
          .join(',')}]`,
      );
    }
    const bomb = await putYaml(admin(), name, lines.join('\n'));
    expect(bomb.status).toBe(400);
    expect(bomb.body).toEqual({ error: 'YAML anchors and aliases are not accepted' });

    const broken = await putYaml(admin(), name, 'name: [unclosed\n');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatch(/^Invalid YAML: /);
    expect((await get(admin(), name)).status).toBe(404);
  });

  it('rejects bad CEL, unknown columns, undeclared targets and a name mismatch, naming the field and changing nothing', async () => {
    const name = uniqueName('strict');
    const doc = sampleDocument({ name });
    expect((await put(admin(), name, doc)).status).toBe(201);

    const cases: [Partial<EnrichmentDocument> | Record<string, unknown>, RegExp][] = [
      [{ conditions: 'input.ServiceName ==' }, /^Invalid body: conditions: invalid CEL: /],
      [
        { conditions: 'input.NotAColumn == "x"' },
        /^Invalid body: conditions: unknown field input.NotAColumn$/,
      ],
      [
        { conditions: `${'('.repeat(40)}true${')'.repeat(40)}` },
        /^Invalid body: conditions: invalid CEL: .*maxDepth/,
      ],
      [{ conditions: 'x'.repeat(2001) }, /^Invalid body: conditions: must be at most 2000 characters$/],
      [{ keyField: 'ServiceNam' }, /^Invalid body: keyField: unknown billing column "ServiceNam"$/],
      [
        { entries: [entry('a', { team: 'x' })] },
        /^Invalid body: entries.0.then.team: "team" is not a declared/,
      ],
      [{ targetColumns: [{ name: 'owner', mode: 'append' }] }, /^Invalid body: targetColumns.0.mode: /],
      [{ priority: -1 }, /^Invalid body: priority: must be at least 0$/],
      [{ name: 'something-else' }, /^Invalid body: name: must equal the name in the URL/],
    ];
    for (const [change, pattern] of cases) {
      const res = await put(admin(), name, { ...doc, ...change, priority: change.priority ?? 77 });
      expect({ change, status: res.status }).toEqual({ change, status: 400 });
      expect(res.body.error).toMatch(pattern);
    }
    const read = await get(admin(), name);
    expect(read.body).toEqual(doc);
    expect(read.headers.get('etag')).toBe('"1"');
  });

  it('lets a member read and list but not write or delete', async () => {
    const name = uniqueName('member');
    const doc = sampleDocument({ name });
    expect((await put(admin(), name, doc)).status).toBe(201);
    expect((await get(member(), name)).status).toBe(200);

    const denied = await put(member(), name, { ...doc, priority: 1 });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'FORBIDDEN' });
    expect((await put(member(), uniqueName('member-new'), doc)).status).toBe(403);
    const deleteDenied = await api('DELETE', path(name), { token: member() });
    expect(deleteDenied.status).toBe(403);
    expect((await get(member(), name)).body).toEqual(doc);

    const list = await api<{ items: { name: string }[]; nextCursor: string | null }>(
      'GET',
      '/enrichments?limit=100',
      { token: member() },
    );
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body.items)).toBe(true);
  });

  it("treats another organisation's enrichment as not found", async () => {
    const name = uniqueName('private');
    const doc = sampleDocument({ name });
    expect((await put(admin(), name, doc)).status).toBe(201);
    const read = await get(outsider(), name);
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ error: 'NOT_FOUND' });
    expect((await api('DELETE', path(name), { token: outsider() })).status).toBe(404);

    // The outsider's own document of the same name is theirs alone.
    const theirs = sampleDocument({ name, description: 'acme' });
    expect((await put(outsider(), name, theirs)).status).toBe(201);
    expect((await get(outsider(), name)).body).toEqual(theirs);
    expect((await get(admin(), name)).body).toEqual(doc);
    const theirList = await api<{ items: { name: string; description: string }[] }>(
      'GET',
      '/enrichments?limit=100',
      {
        token: outsider(),
      },
    );
    expect(theirList.body.items.filter((i) => i.name === name)).toEqual([
      expect.objectContaining({ name, description: 'acme' }),
    ]);
  });

  it('answers 409 to a stale If-Match and keeps the newer document', async () => {
    const name = uniqueName('stale');
    const doc = sampleDocument({ name });
    await put(admin(), name, doc);
    expect((await put(admin(), name, { ...doc, priority: 1 }, { 'if-match': '"1"' })).status).toBe(200);
    const stale = await put(admin(), name, { ...doc, priority: 2 }, { 'if-match': '"1"' });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ error: 'VERSION_CONFLICT' });
    const staleDelete = await api('DELETE', path(name), { token: admin(), headers: { 'if-match': '"1"' } });
    expect(staleDelete.status).toBe(409);
    expect((await get(admin(), name)).body.priority).toBe(1);
    const bad = await put(admin(), name, doc, { 'if-match': 'yesterday' });
    expect(bad.status).toBe(400);
  });

  it('deletes (204), then the name is free again', async () => {
    const name = uniqueName('bye');
    const doc = sampleDocument({ name });
    await put(admin(), name, doc);
    const del = await api('DELETE', path(name), { token: admin() });
    expect(del.status).toBe(204);
    expect((await get(admin(), name)).status).toBe(404);
    expect((await api('DELETE', path(name), { token: admin() })).status).toBe(404);
    const list = await api<{ items: { name: string }[] }>('GET', '/enrichments?limit=100', {
      token: admin(),
    });
    expect(list.body.items.map((i) => i.name)).not.toContain(name);
    expect((await put(admin(), name, doc)).status).toBe(201);
  });

  it('refuses bodies over the cap (413), other media types (415) and bad names (400)', async () => {
    const name = uniqueName('big');
    const huge = sampleDocument({
      name,
      entries: Array.from({ length: 9000 }, (_, i) => entry(`k${i}-${'x'.repeat(100)}`, { owner: 'y' })),
    });
    const tooBig = await put(admin(), name, huge);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toEqual({ error: 'PAYLOAD_TOO_LARGE' });

    const text = await api('PUT', path(name), {
      token: admin(),
      rawBody: JSON.stringify(sampleDocument({ name })),
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body).toEqual({
      error:
        'Unsupported Media Type: send application/json, application/yaml, application/x-yaml, text/yaml or text/x-yaml',
    });
    expect((await get(admin(), name)).status).toBe(404);

    const badName = await get(admin(), 'bad%20name');
    expect(badName.status).toBe(400);
    expect((badName.body as { error: string }).error).toMatch(/^Invalid path: .*name: must be letters/);
  });
});

describe('an enrichment change reaches the dimensions', () => {
  interface Dimension {
    name: string;
    groupTitle: string;
    values: { name: string; proportionCostAllocated: number }[];
  }
  const dimensions = async () => (await api<Dimension[]>('GET', '/dimensions', { token: member() })).body;
  const drain = async () =>
    expect((await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } })).status).toBe(200);

  it('PUT requests a full refresh: after the drain its target column is a dimension; DELETE removes it', async () => {
    const name = uniqueName('cloud-owner');
    const column = `cloud_owner_${randomUUID().slice(0, 8)}`;
    const doc = sampleDocument({
      name,
      keyField: 'ProviderName',
      conditions: undefined,
      targetColumns: [{ name: column, mode: 'merge' }],
      entries: [entry('AWS', { [column]: 'aws-team' })],
    });
    expect((await put(admin(), name, doc)).status).toBe(201);
    // No publish and no ingestion: the PUT itself asked for the refresh (outbox → warehouse-refresh).
    await drain();

    const after = await dimensions();
    const enriched = after.find((d) => d.name === column);
    expect(enriched).toMatchObject({ groupTitle: 'Enrichments' });
    expect(enriched?.values.map((v) => v.name)).toEqual(['aws-team']);
    // Every AWS row got the value: its share is the AWS provider's share of the same refresh.
    const aws = after.find((d) => d.name === 'provider')?.values.find((v) => v.name === 'AWS');
    expect(aws?.proportionCostAllocated).toBeGreaterThan(0);
    expect(enriched?.values[0]?.proportionCostAllocated).toBeCloseTo(aws?.proportionCostAllocated ?? -1, 9);
    // The other organisation's dimensions are untouched.
    const acme = await api<Dimension[]>('GET', '/dimensions', { token: outsider() });
    expect(acme.body.map((d) => d.name)).not.toContain(column);

    expect((await api('DELETE', path(name), { token: admin() })).status).toBe(204);
    await drain();
    expect((await dimensions()).map((d) => d.name)).not.toContain(column);
  });
});
