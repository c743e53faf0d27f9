import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { BadRequestError } from '../errors';
import type { DashboardSummary, DashboardVersionSummary, ScopeRef } from '../model/dashboards';
import { db, decodeCursor, encodeCursor, tableName } from './client';
import {
  type Condition,
  conditionInput,
  conflictOnCancel,
  defineEntity,
  ifCanceled,
  type TransactItem,
} from './entity';
import { batchGetItems, queryPartition } from './items';
import { INDEX_ON, keys, stripKeys } from './keys';
import { type Page, queryNewest } from './page';
import { ifConditionFails, versionConflict } from './writes';

/**
 * Dashboards in the single table:
 * - `ORG#o#DASH#d` / `META`: the metadata (what list reads return), GSI1 `ORG#o#DASHES` /
 *   `<updatedAt>#<id>` for the newest-first list. `conditions` is stored as a JSON string so a
 *   free-form object can never hit DynamoDB's map rules (empty keys, 32 nesting levels).
 * - `ORG#o#DASH#d` / `VH#000042`: the head of saved version 42 (who, when, counts, part count).
 * - `ORG#o#DASH#d` / `V#000042#P#0000…`: the version's JSON (every body field, widgets included),
 *   gzip-compressed and cut into parts of at most `PART_BYTES`, so any version that passes the
 *   1 MiB JSON cap fits, each item well under DynamoDB's 400 KB.
 * A create or publish writes the metadata, the head and every part (and deletes the pruned
 * oldest version) in one TransactWriteCommand: at most 1 + 1 + 4 + 1 + 4 items.
 */

/** Largest part payload: well under the 400 KB item limit once keys and attribute names are added. */
export const PART_BYTES = 300 * 1024;
export const SNAPSHOT_ENCODING = 'gzip-json';

/** A saved version's head as stored: the public summary plus how its parts are laid out. */
export interface VersionHead extends DashboardVersionSummary {
  partCount: number;
  storedBytes: number;
  encoding: typeof SNAPSHOT_ENCODING;
}

export interface EncodedSnapshot {
  parts: Uint8Array[];
  jsonBytes: number;
  storedBytes: number;
}

/** What a write consumed, from `ReturnConsumedCapacity: 'TOTAL'` (write capacity units). */
export interface WriteReport {
  consumedWriteUnits: number;
}

/** gzip the version JSON and cut it into parts of at most `partBytes`. */
export function encodeSnapshot(json: string, partBytes: number = PART_BYTES): EncodedSnapshot {
  const zipped = gzipSync(Buffer.from(json, 'utf8'));
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < zipped.length; offset += partBytes) {
    parts.push(new Uint8Array(zipped.subarray(offset, Math.min(offset + partBytes, zipped.length))));
  }
  if (!parts.length) parts.push(new Uint8Array(0));
  return { parts, jsonBytes: Buffer.byteLength(json), storedBytes: zipped.length };
}

export function decodeSnapshot<T>(parts: readonly Uint8Array[]): T {
  const zipped = Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  return JSON.parse(gunzipSync(zipped).toString('utf8')) as T;
}

/** `conditions` as the JSON string stored in its place. */
const dashboards = defineEntity<DashboardSummary>({
  name: 'dashboard',
  schemaVersion: 1,
  key: (d) => keys.dashboard(d.organizationId, d.id),
  indexes: (d) => keys.dashboardsIndex(d.organizationId, `${d.updatedAt}#${d.id}`),
  attributes: ({ conditions, ...rest }) => ({ ...rest, conditionsJson: JSON.stringify(conditions ?? null) }),
  read: (item) => {
    const { conditionsJson, ...rest } = stripKeys(item);
    return {
      ...(rest as unknown as Omit<DashboardSummary, 'conditions'>),
      conditions: typeof conditionsJson === 'string' ? JSON.parse(conditionsJson) : null,
    };
  },
});
const fromMetaItem = dashboards.read;

const heads = defineEntity<VersionHead & { orgId: string }, VersionHead>({
  name: 'dashboardVersion',
  schemaVersion: 1,
  key: (h) => keys.dashboardVersionHead(h.orgId, h.dashboardId, h.version),
  attributes: ({ orgId: _org, ...head }) => head,
});
const fromHeadItem = heads.read;

/** One part of a version's gzip-compressed JSON. */
const parts = defineEntity<{
  orgId: string;
  dashboardId: string;
  version: number;
  part: number;
  data: Uint8Array;
}>({
  name: 'dashboardVersionPart',
  schemaVersion: 1,
  key: (p) => keys.dashboardVersionPart(p.orgId, p.dashboardId, p.version, p.part),
  attributes: ({ data }) => ({ data }),
});

/** The public part of a head: the history list does not show storage layout. */
export function versionSummary(head: VersionHead): DashboardVersionSummary {
  const { partCount: _p, storedBytes: _s, encoding: _e, ...summary } = head;
  return summary;
}

function versionWrites(orgId: string, head: VersionHead, encoded: EncodedSnapshot): TransactItem[] {
  return [
    heads.transactPut({ ...head, orgId }),
    ...encoded.parts.map((data, part) =>
      parts.transactPut({ orgId, dashboardId: head.dashboardId, version: head.version, part, data }, null),
    ),
  ];
}

function versionDeletes(orgId: string, head: VersionHead): TransactItem[] {
  const del = (Key: { pk: string; sk: string }): TransactItem => ({
    Delete: { TableName: tableName(), Key },
  });
  return [
    del(keys.dashboardVersionHead(orgId, head.dashboardId, head.version)),
    ...Array.from({ length: head.partCount }, (_, part) =>
      del(keys.dashboardVersionPart(orgId, head.dashboardId, head.version, part)),
    ),
  ];
}

function sumWriteUnits(consumed: { CapacityUnits?: number; WriteCapacityUnits?: number }[] | undefined) {
  return (consumed ?? []).reduce((n, c) => n + (c.WriteCapacityUnits ?? c.CapacityUnits ?? 0), 0);
}

async function transact(items: TransactItem[]): Promise<WriteReport> {
  const res = await ifCanceled(
    db().send(
      new TransactWriteCommand({
        TransactItems: items,
        ReturnConsumedCapacity: 'TOTAL',
        // The SDK's own retries reuse this token, so a retried publish whose first attempt did
        // commit is not answered with a false conflict.
        ClientRequestToken: randomUUID(),
      }),
    ),
    conflictOnCancel,
  );
  return { consumedWriteUnits: sumWriteUnits(res.ConsumedCapacity) };
}

/** Creates the dashboard and its version 1 atomically. */
export async function insertDashboard(
  d: DashboardSummary,
  head: VersionHead,
  encoded: EncodedSnapshot,
): Promise<WriteReport> {
  return transact([dashboards.transactPut(d), ...versionWrites(d.organizationId, head, encoded)]);
}

/** The metadata's condition: still at `expectedVersion` and not archived. */
const stillAt = (expectedVersion: number): Condition => ({
  expression:
    'attribute_exists(pk) AND #v = :expected AND (attribute_not_exists(archivedAt) OR attribute_type(archivedAt, :null))',
  names: { '#v': 'version' },
  values: { ':expected': expectedVersion, ':null': 'NULL' },
});

/**
 * Publishes: writes the new metadata (only if the stored `version` is still `expectedVersion`
 * and the dashboard is not archived), the new version's head and parts, and deletes `prune` (the
 * oldest version past the cap), all in one transaction. A lost race is a 409 VERSION_CONFLICT.
 */
export async function publishDashboardVersion(
  d: DashboardSummary,
  expectedVersion: number,
  head: VersionHead,
  encoded: EncodedSnapshot,
  prune?: VersionHead,
): Promise<WriteReport> {
  return transact([
    dashboards.transactPut(d, stillAt(expectedVersion)),
    ...versionWrites(d.organizationId, head, encoded),
    ...(prune ? versionDeletes(d.organizationId, prune) : []),
  ]);
}

/** Replaces the metadata only (PATCH, archive) if the stored `version` is still `expectedVersion` and it is not archived. */
export async function replaceDashboardMeta(
  d: DashboardSummary,
  expectedVersion: number,
): Promise<WriteReport> {
  const res = await ifConditionFails(
    db().send(
      new PutCommand({
        TableName: tableName(),
        Item: dashboards.item(d),
        ...conditionInput(stillAt(expectedVersion)),
        ReturnConsumedCapacity: 'TOTAL',
      }),
    ),
    versionConflict,
  );
  return { consumedWriteUnits: sumWriteUnits(res.ConsumedCapacity ? [res.ConsumedCapacity] : []) };
}

export async function getDashboard(
  orgId: string,
  dashboardId: string,
): Promise<DashboardSummary | undefined> {
  return dashboards.get(keys.dashboard(orgId, dashboardId));
}

export const getVersionHead = (orgId: string, dashboardId: string, version: number) =>
  heads.get(keys.dashboardVersionHead(orgId, dashboardId, version));

async function readParts(orgId: string, dashboardId: string, version: number): Promise<Uint8Array[]> {
  const { pk } = keys.dashboardVersionHead(orgId, dashboardId, version);
  return queryPartition(pk, (item) => item.data as Uint8Array, {
    skPrefix: keys.dashboardVersionPartsPrefix(version),
  });
}

/**
 * Reads a saved version: its head and its decoded JSON, fetched in parallel. Undefined when the
 * version does not exist or its parts are not all there (pruned between the two reads).
 */
export async function readVersion<T>(
  orgId: string,
  dashboardId: string,
  version: number,
): Promise<{ head: VersionHead; snapshot: T } | undefined> {
  const [head, parts] = await Promise.all([
    getVersionHead(orgId, dashboardId, version),
    readParts(orgId, dashboardId, version),
  ]);
  if (!head || parts.length !== head.partCount) return undefined;
  return { head, snapshot: decodeSnapshot<T>(parts) };
}

/** Saved versions of a dashboard, newest first. */
export async function listVersionHeads(
  orgId: string,
  dashboardId: string,
  limit: number,
  cursor?: string,
): Promise<Page<VersionHead>> {
  const listing = { pk: keys.dashboard(orgId, dashboardId).pk, skPrefix: keys.dashboardVersionHeadPrefix };
  return queryNewest(listing, { limit, cursor }, fromHeadItem);
}

export interface DashboardListFilter {
  /** Set for non-admins: PRIVATE dashboards of others are filtered out. */
  viewerId?: string;
  teamId?: string;
  type?: DashboardSummary['type'];
  includeArchived: boolean;
  /** Only dashboards whose name contains this, ignoring case (already lower-cased, non-empty). */
  nameContains?: string;
}

/** Whether a dashboard's name contains `needle` (lower case), ignoring case. */
const nameMatches = (name: unknown, needle: string): boolean =>
  typeof name === 'string' && name.toLowerCase().includes(needle);

/** Query rounds per list request before answering a short page with a cursor. */
const MAX_LIST_ROUNDS = 5;

/**
 * Dashboards of an organisation, most recently updated first, filtered in DynamoDB (the name, which
 * DynamoDB can only match with case, after the read). Reads again (up to `MAX_LIST_ROUNDS` queries)
 * while the filters leave the page short, so pages are full unless the index is exhausted; the
 * cursor then points at the last item returned, or past the last item read when a round ended
 * the page short.
 */
export async function listDashboards(
  orgId: string,
  filter: DashboardListFilter,
  limit: number,
  cursor?: string,
): Promise<Page<DashboardSummary>> {
  const index = keys.dashboardsIndex(orgId, '');
  let start = decodeCursor(cursor);
  if (cursor && (!start || start.gsi1pk !== index.gsi1pk)) throw new BadRequestError('Invalid cursor');

  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': index.gsi1pk };
  if (filter.viewerId) {
    conditions.push('(#type <> :private OR createdById = :viewer)');
    names['#type'] = 'type';
    values[':private'] = 'PRIVATE';
    values[':viewer'] = filter.viewerId;
  }
  if (filter.type) {
    conditions.push('#type = :type');
    names['#type'] = 'type';
    values[':type'] = filter.type;
  }
  if (filter.teamId) {
    conditions.push('teamId = :team');
    values[':team'] = filter.teamId;
  }
  if (!filter.includeArchived) {
    conditions.push('(attribute_not_exists(archivedAt) OR attribute_type(archivedAt, :null))');
    values[':null'] = 'NULL';
  }

  const taken: Record<string, unknown>[] = [];
  let exhausted = false;
  for (let round = 0; round < MAX_LIST_ROUNDS && taken.length < limit; round++) {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEX_ON.gsi1pk,
        KeyConditionExpression: 'gsi1pk = :pk',
        ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: Math.max(limit, 25),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const needle = filter.nameContains;
    const read = res.Items ?? [];
    const items = needle ? read.filter((item) => nameMatches(item.name, needle)) : read;
    const room = limit - taken.length;
    taken.push(...items.slice(0, room));
    if (items.length > room) {
      start = lastKeyOf(taken[taken.length - 1]!);
      break;
    }
    start = res.LastEvaluatedKey;
    if (!start) {
      exhausted = true;
      break;
    }
  }
  return { items: taken.map(fromMetaItem), nextCursor: exhausted ? null : encodeCursor(start) };
}

function lastKeyOf(item: Record<string, unknown>): Record<string, unknown> {
  return { pk: item.pk, sk: item.sk, gsi1pk: item.gsi1pk, gsi1sk: item.gsi1sk };
}

/**
 * The scopes among `scopeIds` that exist (an archived scope counts as missing), read with
 * BatchGet from `keys.scope`. Only the teams a scope is tied to matter to dashboards: `teamIds`
 * (a list), or a single `teamId`.
 */
export async function getScopes(orgId: string, scopeIds: readonly string[]): Promise<Map<string, ScopeRef>> {
  const found = new Map<string, ScopeRef>();
  const all = [...new Set(scopeIds)].map((id) => ({ ...keys.scope(orgId, id), id }));
  const idBySk = new Map(all.map((k) => [k.sk, k.id]));
  const items = await batchGetItems(all, { attributes: ['sk', 'teamId', 'teamIds', 'archivedAt'] });
  for (const item of items) {
    const id = idBySk.get(String(item.sk));
    if (!id || item.archivedAt) continue;
    const listed: unknown[] =
      item.teamIds instanceof Set ? [...item.teamIds] : Array.isArray(item.teamIds) ? item.teamIds : [];
    const teamIds = listed.filter((t): t is string => typeof t === 'string' && t !== '');
    if (typeof item.teamId === 'string' && item.teamId) teamIds.push(item.teamId);
    found.set(id, { teamIds });
  }
  return found;
}
