import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../../../shared/auth/principal';
import { db, tableName } from '../../../shared/db/client';
import {
  addEnrichmentJson,
  getEnrichment,
  type LegacyEnrichment,
  listEnrichmentSummaries,
  scanEnrichmentsWithoutJson,
} from '../../../shared/db/enrichments-repo';
import { keys } from '../../../shared/db/keys';
import { MissingJsonCopyError } from '../../../shared/domain/enrichments/document';
import { backfillEnrichmentJson } from '../../../shared/domain/enrichments/migrate';
import { removeEnrichment } from '../../../shared/domain/enrichments/remove';
import { putEnrichment } from '../../../shared/domain/enrichments/save';
import { listEnrichments } from '../../../shared/domain/enrichments/service';
import {
  type EnrichmentDocument,
  listEnrichmentDocuments,
  readEnrichment,
} from '../../../shared/domain/enrichments/store';
import { toYaml } from '../../../shared/domain/enrichments/yaml-text';
import { ConflictError, NotFoundError, PayloadTooLargeError } from '../../../shared/errors';
import { entry, sampleDocument } from '../../unit/enrichments/fixtures';

function admin(orgId = `org_it_${randomUUID().slice(0, 8)}`): Principal {
  return { orgId, principalId: 'usr_admin', kind: 'user', role: 'admin', teamIds: [] };
}

function doc(name: string, over: Partial<EnrichmentDocument> = {}): EnrichmentDocument {
  return sampleDocument({ name, ...over });
}

async function rawItem(orgId: string, name: string) {
  const res = await db().send(new GetCommand({ TableName: tableName(), Key: keys.enrichment(orgId, name) }));
  return res.Item;
}

/** A schema-version-1 item: YAML and metadata only, as PUT wrote it before the JSON copy existed. */
async function putLegacy(orgId: string, document: EnrichmentDocument, version: number): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.enrichment(orgId, document.name),
        entity: 'enrichment',
        schemaVersion: 1,
        name: document.name,
        description: document.description,
        keyField: document.keyField,
        priority: document.priority,
        conditions: document.conditions,
        targetColumns: document.targetColumns,
        entryCount: document.entries.length,
        yaml: toYaml(document),
        version,
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-02T00:00:00.000Z',
        updatedBy: 'usr_admin',
      },
    }),
  );
}

async function scanAll(): Promise<LegacyEnrichment[]> {
  const out: LegacyEnrichment[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await scanEnrichmentsWithoutJson(start);
    out.push(...page.items);
    start = page.next;
  } while (start);
  return out;
}

describe('enrichment store (DynamoDB Local)', () => {
  it('creates at version 1, replaces with version + 1, keeps createdAt and stores YAML plus metadata', async () => {
    const p = admin();
    const first = await putEnrichment(p, 'a', doc('a'), undefined);
    expect(first).toMatchObject({ created: true, version: 1 });
    const before = await getEnrichment(p.orgId, 'a');

    const replaced = await putEnrichment(p, 'a', doc('a', { conditions: undefined, priority: 3 }), undefined);
    expect(replaced).toMatchObject({ created: false, version: 2 });

    const item = await rawItem(p.orgId, 'a');
    expect(item).toMatchObject({
      pk: `ORG#${p.orgId}#ENRICH`,
      sk: 'DOC#a',
      entity: 'enrichment',
      name: 'a',
      keyField: 'SubAccountId',
      priority: 3,
      entryCount: 3,
      version: 2,
      createdAt: before?.createdAt,
      updatedBy: 'usr_admin',
    });
    expect(item?.conditions).toBeUndefined();
    expect(typeof item?.yaml).toBe('string');
    expect(item?.yaml).toContain('keyField: SubAccountId');
    expect(item?.yaml).not.toContain('conditions');
    // The JSON copy GET reads, written by the same update; the YAML stays the source of truth.
    expect(item?.schemaVersion).toBe(2);
    expect(JSON.parse(String(item?.json))).toEqual(doc('a', { conditions: undefined, priority: 3 }));
    expect(item?.json).toBe(JSON.stringify(doc('a', { conditions: undefined, priority: 3 })));

    const read = await readEnrichment(p, 'a');
    expect(read).toEqual({ document: doc('a', { conditions: undefined, priority: 3 }), version: 2 });
    expect('conditions' in read.document).toBe(false);
  });

  it('refuses a stale or unmet If-Match with 409 and changes nothing', async () => {
    const p = admin();
    await putEnrichment(p, 'b', doc('b'), undefined);
    await putEnrichment(p, 'b', doc('b', { priority: 1 }), '"1"');
    await expect(putEnrichment(p, 'b', doc('b', { priority: 99 }), '"1"')).rejects.toThrow(ConflictError);
    await expect(putEnrichment(p, 'new', doc('new'), '*')).rejects.toThrow(ConflictError);
    await expect(putEnrichment(p, 'new', doc('new'), '"1"')).rejects.toThrow(ConflictError);
    expect((await readEnrichment(p, 'b')).document.priority).toBe(1);
    await expect(readEnrichment(p, 'new')).rejects.toThrow(NotFoundError);
    await expect(removeEnrichment(p, 'b', 'W/"1"')).rejects.toThrow(ConflictError);
    await removeEnrichment(p, 'b', '"2"');
    await expect(readEnrichment(p, 'b')).rejects.toThrow(NotFoundError);
    await expect(removeEnrichment(p, 'b', undefined)).rejects.toThrow(NotFoundError);
    await expect(removeEnrichment(p, 'b', '"2"')).rejects.toThrow(NotFoundError);
  });

  it('lets exactly one of two concurrent writers with the same If-Match win', async () => {
    const p = admin();
    await putEnrichment(p, 'race', doc('race'), undefined);
    const results = await Promise.allSettled([
      putEnrichment(p, 'race', doc('race', { priority: 1 }), '"1"'),
      putEnrichment(p, 'race', doc('race', { priority: 2 }), '"1"'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(ConflictError);
    expect((await readEnrichment(p, 'race')).version).toBe(2);
  });

  it('compresses large YAML and reads it back unchanged; refuses what cannot fit in an item', async () => {
    const p = admin();
    const entries = Array.from({ length: 5000 }, (_, i) => entry(`account-${i}`, { owner: `team-${i % 7}` }));
    const big = doc('big', { entries });
    await putEnrichment(p, 'big', big, undefined);
    const item = await rawItem(p.orgId, 'big');
    expect(item?.yaml).toBeUndefined();
    expect(item?.yamlGz).toBeInstanceOf(Uint8Array);
    expect(item?.json).toBeUndefined();
    expect(item?.jsonGz).toBeInstanceOf(Uint8Array);
    expect((await readEnrichment(p, 'big')).document).toEqual(big);
    expect((await listEnrichmentDocuments(p.orgId))[0]).toEqual(big);

    // Back to a small document: the plain text replaces the compressed copy.
    await putEnrichment(p, 'big', doc('big'), undefined);
    const small = await rawItem(p.orgId, 'big');
    expect(small?.yamlGz).toBeUndefined();
    expect(small?.jsonGz).toBeUndefined();
    expect(typeof small?.yaml).toBe('string');
    expect(typeof small?.json).toBe('string');

    const noise = Array.from({ length: 1200 }, (_, i) =>
      entry(`k${i}`, { owner: randomBytes(400).toString('base64').slice(0, 500) }),
    );
    await expect(putEnrichment(p, 'huge', doc('huge', { entries: noise }), undefined)).rejects.toThrow(
      PayloadTooLargeError,
    );
    await expect(readEnrichment(p, 'huge')).rejects.toThrow(NotFoundError);
  });

  it('migrates a document stored before the JSON copy (YAML only) so that reads, which never parse YAML, see it', async () => {
    const p = admin();
    const legacy = doc('legacy', { priority: 4 });
    await putLegacy(p.orgId, legacy, 3);
    await putEnrichment(p, 'current', doc('current', { priority: 9 }), undefined);

    // Before the migration: GET refuses it (a 500 over HTTP), the refresh skips it.
    await expect(readEnrichment(p, 'legacy')).rejects.toThrow(MissingJsonCopyError);
    expect((await listEnrichmentDocuments(p.orgId)).map((d) => d.name)).toEqual(['current']);

    const first = await backfillEnrichmentJson();
    expect(first.added).toBeGreaterThanOrEqual(1);
    expect(first.failed).toBe(0);
    expect(await readEnrichment(p, 'legacy')).toEqual({ document: legacy, version: 3 });
    const docs = await listEnrichmentDocuments(p.orgId);
    expect(docs.map((d) => d.name)).toEqual(['legacy', 'current']);
    expect(docs[0]).toEqual(legacy);
    const item = await rawItem(p.orgId, 'legacy');
    expect(item).toMatchObject({ schemaVersion: 2, version: 3, yaml: toYaml(legacy) });
    expect((await rawItem(p.orgId, 'current'))?.json).toBe(JSON.stringify(doc('current', { priority: 9 })));

    // Idempotent: nothing of this organisation is left to migrate.
    const again = await scanAll();
    expect(again.filter((l) => l.key.pk === item?.pk)).toEqual([]);
  });

  it('adds a JSON copy only to the version it read (a concurrent PUT wins)', async () => {
    const p = admin();
    const old = doc('moved', { priority: 1 });
    await putLegacy(p.orgId, old, 1);
    const found = (await scanAll()).find((l) => l.key.pk === keys.enrichment(p.orgId, 'moved').pk);
    expect(found).toMatchObject({ version: 1, yaml: toYaml(old) });
    if (!found) return;

    await putEnrichment(p, 'moved', doc('moved', { priority: 2 }), '"1"');
    expect(await addEnrichmentJson(found, JSON.stringify(old))).toBe(false);
    expect(await readEnrichment(p, 'moved')).toEqual({ document: doc('moved', { priority: 2 }), version: 2 });

    const gone = { ...found, key: keys.enrichment(p.orgId, 'absent') as LegacyEnrichment['key'] };
    expect(await addEnrichmentJson(gone, '{}')).toBe(false);
    expect(await rawItem(p.orgId, 'absent')).toBeUndefined();
  });

  it('lists live documents of one organisation in application order (priority, then name)', async () => {
    const p = admin();
    const other = admin();
    await putEnrichment(p, 'zeta', doc('zeta', { priority: 0 }), undefined);
    await putEnrichment(p, 'beta', doc('beta', { priority: 5 }), undefined);
    await putEnrichment(p, 'alpha', doc('alpha', { priority: 5 }), undefined);
    await putEnrichment(p, 'gone', doc('gone', { priority: 1 }), undefined);
    await removeEnrichment(p, 'gone', undefined);
    await putEnrichment(other, 'alpha', doc('alpha', { priority: 0, description: 'other org' }), undefined);

    const docs = await listEnrichmentDocuments(p.orgId);
    expect(docs.map((d) => [d.name, d.priority])).toEqual([
      ['zeta', 0],
      ['alpha', 5],
      ['beta', 5],
    ]);
    expect(docs[1]).toEqual(doc('alpha', { priority: 5 }));
    expect(await listEnrichmentDocuments(`org_none_${randomUUID()}`)).toEqual([]);
    await expect(readEnrichment(p, 'alpha')).resolves.toMatchObject({
      document: { description: doc('x').description },
    });
  });

  it('pages summaries by name without entries; a cursor of another organisation is refused', async () => {
    const p = admin();
    for (const name of ['c', 'a', 'b']) await putEnrichment(p, name, doc(name), undefined);
    const first = await listEnrichments(p, { limit: 2 });
    expect(first.items.map((i) => i.name)).toEqual(['a', 'b']);
    expect(first.items[0]).toMatchObject({ entryCount: 3, version: 1, conditions: doc('a').conditions });
    expect(first.items[0]).not.toHaveProperty('entries');
    expect(first.items[0]).not.toHaveProperty('yaml');
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listEnrichments(p, { limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.items.map((i) => i.name)).toEqual(['c']);
    await expect(listEnrichmentSummaries(admin().orgId, 2, first.nextCursor ?? '')).rejects.toThrow(
      'Invalid cursor',
    );
  });
});
