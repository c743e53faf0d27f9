import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BadRequestError, ConflictError, PayloadTooLargeError } from '../errors';
import { db, decodeCursor, encodeCursor, isConditionalCheckFailed, tableName } from './client';
import { keys } from './keys';

const ENTITY = 'enrichment';
const SCHEMA_VERSION = 1;

/** YAML at most this long is stored as plain text; longer YAML is stored gzip-compressed. */
const PLAIN_YAML_MAX_BYTES = 128 * 1024;
/** DynamoDB items are capped at 400 KB; the compressed YAML plus metadata must stay below it. */
const STORED_YAML_MAX_BYTES = 350 * 1024;

/** The parsed metadata kept beside the YAML, enough to list documents without parsing them. */
export interface EnrichmentMetadata {
  name: string;
  description: string;
  keyField: string;
  priority: number;
  conditions?: string;
  targetColumns: { name: string; mode: string }[];
  entryCount: number;
}

export interface StoredEnrichment extends EnrichmentMetadata {
  /** The document as YAML text, generated from the validated document. */
  yaml: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: string;
}

export type EnrichmentSummary = Omit<StoredEnrichment, 'yaml'>;

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

function fromItem(item: Record<string, unknown>): StoredEnrichment {
  const gz = item.yamlGz;
  const yaml =
    typeof item.yaml === 'string'
      ? item.yaml
      : gz instanceof Uint8Array
        ? gunzipSync(gz).toString('utf8')
        : '';
  return { ...toSummary(item), yaml };
}

export async function getEnrichment(orgId: string, name: string): Promise<StoredEnrichment | undefined> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.enrichment(orgId, name), ConsistentRead: true }),
  );
  return res.Item ? fromItem(res.Item) : undefined;
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
 * Creates or replaces a document in one conditional update: the version is incremented atomically
 * (1 on create), `createdAt` is kept across replaces. A stale `expectedVersion` is a 409.
 */
export async function saveEnrichment(
  orgId: string,
  meta: EnrichmentMetadata,
  yaml: string,
  options: SaveEnrichmentOptions,
): Promise<{ version: number; created: boolean; updatedAt: string }> {
  const plainBytes = Buffer.byteLength(yaml);
  const compressed = plainBytes > PLAIN_YAML_MAX_BYTES ? gzipSync(yaml) : undefined;
  if ((compressed?.length ?? plainBytes) > STORED_YAML_MAX_BYTES) {
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

  set('entity', ENTITY);
  set('schemaVersion', SCHEMA_VERSION);
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
  if (compressed) {
    set('yamlGz', compressed);
    remove('yaml');
  } else {
    set('yaml', yaml);
    remove('yamlGz');
  }

  let condition: string | undefined;
  if (options.expectedVersion !== undefined) {
    values[':expected'] = options.expectedVersion;
    condition = 'attribute_exists(pk) AND #v = :expected';
  } else if (options.mustExist) {
    condition = 'attribute_exists(pk)';
  }

  try {
    const res = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.enrichment(orgId, meta.name),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(condition ? { ConditionExpression: condition } : {}),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const version = Number(res.Attributes?.version ?? 1);
    return { version, created: version === 1, updatedAt: options.at };
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new ConflictError('VERSION_CONFLICT');
    throw error;
  }
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
  try {
    const res = await db().send(
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
    );
    return res.Attributes !== undefined;
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new ConflictError('VERSION_CONFLICT');
    throw error;
  }
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** One page of document summaries (no YAML), in name order. */
export async function listEnrichmentSummaries(
  orgId: string,
  limit: number,
  cursor?: string,
): Promise<Page<EnrichmentSummary>> {
  const pk = keys.enrichmentsPartition(orgId);
  const start = decodeCursor(cursor);
  if (cursor && (!start || start.pk !== pk)) throw new BadRequestError('Invalid cursor');
  const names: Record<string, string> = {};
  for (const attr of SUMMARY_ATTRIBUTES) names[`#${attr}`] = attr;
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :doc)',
      ExpressionAttributeValues: { ':pk': pk, ':doc': 'DOC#' },
      ExpressionAttributeNames: names,
      ProjectionExpression: Object.keys(names).join(', '),
      Limit: limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const last = res.LastEvaluatedKey;
  return {
    items: (res.Items ?? []).map(toSummary),
    nextCursor: encodeCursor(last ? { pk: last.pk, sk: last.sk } : undefined),
  };
}

/** Every stored document of an organisation, with its YAML, following all pages. */
export async function listAllEnrichments(orgId: string): Promise<StoredEnrichment[]> {
  const out: StoredEnrichment[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :doc)',
        ExpressionAttributeValues: { ':pk': keys.enrichmentsPartition(orgId), ':doc': 'DOC#' },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of res.Items ?? []) out.push(fromItem(item));
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}
