import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PayloadTooLargeError } from '../errors';
import type { EnrichmentDocument } from '../model/enrichments';
import { db, tableName } from './client';
import { defineEntity } from './entity';
import { getItem, queryPartition } from './items';
import { keys } from './keys';
import { type Page, queryListing, scanPage } from './page';
import { conditionHeld, ifConditionFails, versionConflict } from './writes';

/**
 * Schema version 2: the canonical JSON copy (`json`/`jsonGz`) is stored beside the YAML; 1: YAML
 * only. Documents are written through `SET` (the version counts up in place), so the entity lends
 * its envelope only.
 */
const enrichments = defineEntity<never>({ name: 'enrichment', schemaVersion: 2 });

/** Text (YAML or JSON) at most this long is stored plain; longer text is stored gzip-compressed. */
const PLAIN_TEXT_MAX_BYTES = 64 * 1024;
/** DynamoDB items are capped at 400 KB; the stored YAML and JSON together must stay below this. */
const STORED_TEXT_MAX_BYTES = 350 * 1024;

/** The parsed metadata kept beside the YAML, enough to list documents without parsing them. */
export type EnrichmentMetadata = Omit<EnrichmentDocument, 'entries'> & { entryCount: number };

/** The two stored forms of one validated document. */
export interface EnrichmentTexts {
  /** The document as YAML text, generated from the validated document: the stored source of truth. */
  yaml: string;
  /** The same document as canonical JSON, so reads need no YAML parser. */
  json: string;
}

export interface StoredEnrichment extends EnrichmentMetadata {
  yaml: string;
  /** Absent on items written before schema version 2 (see `scanEnrichmentsWithoutJson`). */
  json?: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: string;
}

export type EnrichmentSummary = Omit<StoredEnrichment, 'yaml' | 'json'>;

const SUMMARY_ATTRIBUTES = [
  'name',
  'description',
  'keyField',
  'priority',
  'conditions',
  'targetColumns',
  'entryCount',
  'version',
  'createdAt',
  'updatedAt',
  'updatedBy',
] as const;

function toSummary(item: Record<string, unknown>): EnrichmentSummary {
  const out: Record<string, unknown> = {};
  for (const attr of SUMMARY_ATTRIBUTES) if (item[attr] !== undefined) out[attr] = item[attr];
  return out as unknown as EnrichmentSummary;
}

/** A text attribute stored either plain (`<attr>`) or gzip-compressed (`<attr>Gz`). */
function readText(item: Record<string, unknown>, attr: 'yaml' | 'json'): string | undefined {
  const plain = item[attr];
  if (typeof plain === 'string') return plain;
  const gz = item[`${attr}Gz`];
  return gz instanceof Uint8Array ? gunzipSync(gz).toString('utf8') : undefined;
}

/** How a text is stored: plain when short, else gzip-compressed; `bytes` is what the item holds. */
function storedForm(text: string): { plain?: string; gz?: Uint8Array; bytes: number } {
  const bytes = Buffer.byteLength(text);
  if (bytes <= PLAIN_TEXT_MAX_BYTES) return { plain: text, bytes };
  const gz = gzipSync(text);
  return { gz, bytes: gz.length };
}

function fromItem(item: Record<string, unknown>): StoredEnrichment {
  const json = readText(item, 'json');
  return { ...toSummary(item), yaml: readText(item, 'yaml') ?? '', ...(json !== undefined ? { json } : {}) };
}

export async function getEnrichment(orgId: string, name: string): Promise<StoredEnrichment | undefined> {
  return getItem(keys.enrichment(orgId, name), fromItem, { consistent: true });
}

/**
 * A document's canonical JSON and version, without reading the YAML out of the item. `json` is
 * undefined for an item written before schema version 2 (YAML only).
 */
export async function getEnrichmentJson(
  orgId: string,
  name: string,
): Promise<{ json: string | undefined; version: number } | undefined> {
  const res = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.enrichment(orgId, name),
      ConsistentRead: true,
      ProjectionExpression: '#v, #json, #jsonGz',
      ExpressionAttributeNames: { '#v': 'version', '#json': 'json', '#jsonGz': 'jsonGz' },
    }),
  );
  if (!res.Item) return undefined;
  return { json: readText(res.Item, 'json'), version: Number(res.Item.version) };
}

export interface SaveEnrichmentOptions {
  /** When set, the write succeeds only if the stored version is still this one (If-Match). */
  expectedVersion?: number;
  /** `If-Match: *`: the document must already exist. */
  mustExist?: boolean;
  by: string;
  at: string;
}

/**
 * Creates or replaces a document in one conditional update, its YAML and JSON forms together: the
 * version is incremented atomically (1 on create), `createdAt` is kept across replaces. A stale
 * `expectedVersion` is a 409.
 */
export async function saveEnrichment(
  orgId: string,
  meta: EnrichmentMetadata,
  texts: EnrichmentTexts,
  options: SaveEnrichmentOptions,
): Promise<{ version: number; created: boolean; updatedAt: string }> {
  const yaml = storedForm(texts.yaml);
  const json = storedForm(texts.json);
  if (yaml.bytes + json.bytes > STORED_TEXT_MAX_BYTES) {
    throw new PayloadTooLargeError('PAYLOAD_TOO_LARGE: the enrichment document is too large to store');
  }

  const names: Record<string, string> = { '#v': 'version' };
  const values: Record<string, unknown> = { ':zero': 0, ':one': 1 };
  const sets: string[] = ['#v = if_not_exists(#v, :zero) + :one'];
  const removes: string[] = [];
  const set = (attr: string, value: unknown) => {
    names[`#${attr}`] = attr;
    values[`:${attr}`] = value;
    sets.push(`#${attr} = :${attr}`);
  };
  const remove = (attr: string) => {
    names[`#${attr}`] = attr;
    removes.push(`#${attr}`);
  };

  for (const [attr, value] of Object.entries(enrichments.envelope)) set(attr, value);
  set('name', meta.name);
  set('description', meta.description);
  set('keyField', meta.keyField);
  set('priority', meta.priority);
  set('targetColumns', meta.targetColumns);
  set('entryCount', meta.entryCount);
  set('updatedAt', options.at);
  set('updatedBy', options.by);
  names['#createdAt'] = 'createdAt';
  sets.push('#createdAt = if_not_exists(#createdAt, :updatedAt)');
  if (meta.conditions !== undefined) set('conditions', meta.conditions);
  else remove('conditions');
  for (const [attr, form] of [
    ['yaml', yaml],
    ['json', json],
  ] as const) {
    if (form.gz) {
      set(`${attr}Gz`, form.gz);
      remove(attr);
    } else {
      set(attr, form.plain);
      remove(`${attr}Gz`);
    }
  }

  let condition: string | undefined;
  if (options.expectedVersion !== undefined) {
    values[':expected'] = options.expectedVersion;
    condition = 'attribute_exists(pk) AND #v = :expected';
  } else if (options.mustExist) {
    condition = 'attribute_exists(pk)';
  }

  const res = await ifConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.enrichment(orgId, meta.name),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(condition ? { ConditionExpression: condition } : {}),
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
    versionConflict,
  );
  const version = Number(res.Attributes?.version ?? 1);
  return { version, created: version === 1, updatedAt: options.at };
}

/**
 * Hard-deletes a document. Returns false when there was none. With `expectedVersion`, a document
 * changed since (or already gone) is a 409.
 */
export async function deleteEnrichment(
  orgId: string,
  name: string,
  expectedVersion?: number,
): Promise<boolean> {
  const res = await ifConditionFails(
    db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.enrichment(orgId, name),
        ...(expectedVersion !== undefined
          ? {
              ConditionExpression: 'attribute_exists(pk) AND #v = :expected',
              ExpressionAttributeNames: { '#v': 'version' },
              ExpressionAttributeValues: { ':expected': expectedVersion },
            }
          : {}),
        ReturnValues: 'ALL_OLD',
      }),
    ),
    versionConflict,
  );
  return res.Attributes !== undefined;
}

/** One page of document summaries (no YAML), in name order. */
export async function listEnrichmentSummaries(
  orgId: string,
  limit: number,
  cursor?: string,
): Promise<Page<EnrichmentSummary>> {
  return queryListing(keys.enrichmentsListing(orgId), { limit, cursor }, toSummary, SUMMARY_ATTRIBUTES);
}

/**
 * Every stored document of an organisation with its JSON copy (not its YAML, which reads do not
 * need), following all pages. `json` is undefined for an item written before schema version 2.
 */
export async function listAllEnrichments(orgId: string): Promise<(EnrichmentSummary & { json?: string })[]> {
  const listing = keys.enrichmentsListing(orgId);
  return queryPartition(
    listing.pk,
    (item) => {
      const json = readText(item, 'json');
      return { ...toSummary(item), ...(json !== undefined ? { json } : {}) };
    },
    { skPrefix: listing.skPrefix, attributes: [...SUMMARY_ATTRIBUTES, 'json', 'jsonGz'] },
  );
}

/**
 * The name and target columns of every document of an organisation, following all pages, read
 * from the metadata only (no YAML or JSON text): what name checks need.
 */
export async function listEnrichmentTargets(
  orgId: string,
): Promise<{ name: string; targetColumns: { name: string; mode: string }[] }[]> {
  const listing = keys.enrichmentsListing(orgId);
  return queryPartition(
    listing.pk,
    (item) => ({
      name: String(item.name),
      targetColumns: (item.targetColumns ?? []) as { name: string; mode: string }[],
    }),
    { skPrefix: listing.skPrefix, attributes: ['name', 'targetColumns'], consistent: false },
  );
}

/** An item written before schema version 2: YAML only, no JSON copy. */
export interface LegacyEnrichment {
  key: { pk: string; sk: string };
  version: number;
  yaml: string;
  /** What the YAML takes in the item (compressed size when stored compressed). */
  storedYamlBytes: number;
}

/**
 * One page of enrichment items that have no JSON copy, across all organisations (a Scan: for the
 * one-off migration of items written before schema version 2, never on a request path).
 */
export async function scanEnrichmentsWithoutJson(
  start?: Record<string, unknown>,
): Promise<{ items: LegacyEnrichment[]; next: Record<string, unknown> | undefined }> {
  const filter = {
    expression: '#entity = :entity AND attribute_not_exists(#json) AND attribute_not_exists(#jsonGz)',
    names: { '#entity': 'entity', '#json': 'json', '#jsonGz': 'jsonGz' },
    values: { ':entity': enrichments.name },
  };
  return scanPage(filter, start, (item) => ({
    key: { pk: String(item.pk), sk: String(item.sk) },
    version: Number(item.version),
    yaml: readText(item, 'yaml') ?? '',
    storedYamlBytes:
      typeof item.yaml === 'string'
        ? Buffer.byteLength(item.yaml)
        : item.yamlGz instanceof Uint8Array
          ? item.yamlGz.length
          : 0,
  }));
}

/**
 * Adds the JSON copy to an item written before schema version 2, only if it is still at `version`
 * and still has no JSON (a concurrent PUT wins). Returns false when the item changed or is gone.
 * The version is not incremented: the document itself does not change.
 */
export async function addEnrichmentJson(legacy: LegacyEnrichment, json: string): Promise<boolean> {
  const form = storedForm(json);
  if (legacy.storedYamlBytes + form.bytes > STORED_TEXT_MAX_BYTES) {
    throw new PayloadTooLargeError('PAYLOAD_TOO_LARGE: the JSON copy does not fit in the item');
  }
  return conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: legacy.key,
        UpdateExpression: `SET ${form.gz ? '#jsonGz' : '#json'} = :text, #sv = :sv`,
        ConditionExpression:
          'attribute_exists(pk) AND #v = :v AND attribute_not_exists(#json) AND attribute_not_exists(#jsonGz)',
        ExpressionAttributeNames: {
          '#sv': 'schemaVersion',
          '#v': 'version',
          '#json': 'json',
          '#jsonGz': 'jsonGz',
        },
        ExpressionAttributeValues: {
          ':text': form.gz ?? form.plain,
          ':sv': enrichments.envelope.schemaVersion,
          ':v': legacy.version,
        },
      }),
    ),
  );
}
