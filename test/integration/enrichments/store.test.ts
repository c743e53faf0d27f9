import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../../../shared/auth/principal';
import { db, tableName } from '../../../shared/db/client';
import { getEnrichment, listEnrichmentSummaries } from '../../../shared/db/enrichments-repo';
import { keys } from '../../../shared/db/keys';
import { putEnrichment } from '../../../shared/domain/enrichments/save';
import { listEnrichments, removeEnrichment } from '../../../shared/domain/enrichments/service';
import {
  type EnrichmentDocument,
  listEnrichmentDocuments,
  readEnrichment,
} from '../../../shared/domain/enrichments/store';
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
    expect((await readEnrichment(p, 'big')).document).toEqual(big);

    // Back to a small document: the plain text replaces the compressed copy.
    await putEnrichment(p, 'big', doc('big'), undefined);
    const small = await rawItem(p.orgId, 'big');
    expect(small?.yamlGz).toBeUndefined();
    expect(typeof small?.yaml).toBe('string');

    const noise = Array.from({ length: 1200 }, (_, i) =>
      entry(`k${i}`, { owner: randomBytes(400).toString('base64').slice(0, 500) }),
    );
    await expect(putEnrichment(p, 'huge', doc('huge', { entries: noise }), undefined)).rejects.toThrow(
      PayloadTooLargeError,
    );
    await expect(readEnrichment(p, 'huge')).rejects.toThrow(NotFoundError);
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
