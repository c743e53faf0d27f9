import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { awsClientLimits, config } from '../config';

/**
 * The billing bucket: S3 in AWS; locally a folder (`LOCAL_BUCKET_DIR`, set by `npm start` to
 * `<state>/bucket`) with the same key layout, so the ingestion worker runs the same code path.
 */
export const LOCAL_BUCKET_NAME = 'local-billing';

/** Keys are plain relative paths: no `..`, no absolute paths, no backslashes. */
export function isSafeObjectKey(key: string): boolean {
  return (
    key.length > 0 &&
    key.length <= 1024 &&
    !key.startsWith('/') &&
    !key.includes('\\') &&
    !key.includes('\u0000') &&
    key.split('/').every((part) => part !== '..' && part !== '.')
  );
}

function localPath(key: string): string {
  const dir = config().localBucketDir;
  if (!dir) throw new Error('No billing bucket configured (BILLING_BUCKET or LOCAL_BUCKET_DIR)');
  if (!isSafeObjectKey(key)) throw new Error(`Unsafe object key ${JSON.stringify(key)}`);
  const root = resolve(dir);
  const path = resolve(join(root, key));
  if (!path.startsWith(root + sep)) throw new Error(`Unsafe object key ${JSON.stringify(key)}`);
  return path;
}

let s3Client: S3Client | undefined;

function s3(): S3Client {
  if (!s3Client) {
    const c = config();
    s3Client = new S3Client({
      region: c.region,
      // An answer may be a large object: 30 s without a byte is the bound, not the whole transfer.
      ...awsClientLimits({ minRequestTimeoutMs: 30_000 }),
      ...(c.s3Endpoint ? { endpoint: c.s3Endpoint, forcePathStyle: true } : {}),
    });
  }
  return s3Client;
}

function usesLocalBucket(bucket: string): boolean {
  return bucket === LOCAL_BUCKET_NAME && !config().billingBucket && Boolean(config().localBucketDir);
}

/** Copies an object to a local file (for DuckDB to read). */
export async function downloadObject(bucket: string, key: string, dest: string): Promise<void> {
  if (usesLocalBucket(bucket)) {
    await copyFile(localPath(key), dest);
    return;
  }
  const res = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (!res.Body) throw new Error(`Object s3://${bucket}/${key} has no body`);
  await pipeline(res.Body as Readable, createWriteStream(dest));
}

/**
 * Copies an object to a local file when it exists, answering its ETag (for a conditional
 * replacement with `uploadObject(…, { ifMatch })`), or undefined when there is no such object.
 */
export async function downloadObjectIfExists(
  bucket: string,
  key: string,
  dest: string,
): Promise<{ etag: string } | undefined> {
  if (usesLocalBucket(bucket)) {
    const body = await readFile(localPath(key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!body) return undefined;
    await writeFile(dest, body);
    return { etag: localEtag(body) };
  }
  try {
    const res = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!res.Body) throw new Error(`Object s3://${bucket}/${key} has no body`);
    await pipeline(res.Body as Readable, createWriteStream(dest));
    return { etag: res.ETag ?? '' };
  } catch (error) {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
    throw error;
  }
}

function localEtag(body: Uint8Array): string {
  return `"${createHash('md5').update(body).digest('hex')}"`;
}

/** A conditional write found the object changed since it was read (S3's 412). Transient: retry. */
export class ObjectChangedError extends Error {
  override name = 'ObjectChangedError';
}

/**
 * Writes a local file to `key`. One PutObject replaces the object atomically for every reader.
 * With `ifMatch`, only if the object still has that ETag (else ObjectChangedError).
 */
export async function uploadObject(
  bucket: string,
  key: string,
  source: string,
  options: { ifMatch?: string } = {},
): Promise<void> {
  if (usesLocalBucket(bucket)) {
    const path = localPath(key);
    if (options.ifMatch !== undefined) {
      const current = await readFile(path).catch(() => undefined);
      if (!current || localEtag(current) !== options.ifMatch)
        throw new ObjectChangedError(`${key} changed while it was being replaced`);
    }
    await mkdir(dirname(path), { recursive: true });
    await copyFile(source, path);
    return;
  }
  try {
    await s3().send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: await readFile(source),
        ...(options.ifMatch !== undefined ? { IfMatch: options.ifMatch } : {}),
      }),
    );
  } catch (error) {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'PreconditionFailed' || e.$metadata?.httpStatusCode === 412)
      throw new ObjectChangedError(`${key} changed while it was being replaced`);
    throw error;
  }
}

/** The keys under `prefix` (every page), in key order; none when nothing is there. */
export async function listObjectKeys(bucket: string, prefix: string): Promise<string[]> {
  if (usesLocalBucket(bucket)) {
    const dir = localPath(prefix.replace(/\/+$/, ''));
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      },
    );
    const root = resolve(config().localBucketDir as string);
    return entries
      .filter((e) => e.isFile())
      .map((e) =>
        join(e.parentPath, e.name)
          .slice(root.length + 1)
          .split(sep)
          .join('/'),
      )
      .sort();
  }
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const res = await s3().send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ...(token ? { ContinuationToken: token } : {}),
      }),
    );
    for (const o of res?.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = res?.IsTruncated ? res.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

/** For tests that mock S3 or change the endpoint. */
export function resetObjectStore(): void {
  s3Client = undefined;
}
