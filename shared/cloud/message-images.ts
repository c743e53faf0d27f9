import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { awsClientLimits, config } from '../config';

/**
 * Images a message shows by address rather than inline (docs/alerts.md "The chart in the message"):
 * a Teams card cannot carry its chart (incoming webhooks refuse messages over ~28 KB), so the PNG is
 * published under an unguessable name and the card names its URL. In AWS the object goes to the
 * message-images bucket, served by the console's CloudFront distribution under `/message-images/`
 * and deleted by the bucket's lifecycle rule; locally to a folder the local server serves at the
 * same path. The name is the capability: 32 random bytes, nothing else (no organisation, no alert).
 */
export const MESSAGE_IMAGES_PREFIX = 'message-images';

/** A published image's name: 43 base64url characters and `.png`. */
export const MESSAGE_IMAGE_NAME = /^[A-Za-z0-9_-]{43}\.png$/;

/** Where images go and the URL they are read from; undefined when the deployment has no image store. */
export interface MessageImageStore {
  /** The public base URL (`https://<distribution>/message-images`), no trailing slash. */
  baseUrl: string;
  bucket?: string;
  /** Locally, the folder standing in for the bucket's `message-images/` prefix. */
  dir?: string;
}

export function messageImageStore(): MessageImageStore | undefined {
  const c = config();
  if (!c.messageImagesUrl || (!c.messageImagesBucket && !c.messageImagesDir)) return undefined;
  return {
    baseUrl: c.messageImagesUrl.replace(/\/+$/, ''),
    bucket: c.messageImagesBucket,
    dir: c.messageImagesDir,
  };
}

let client: Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> | undefined;

/**
 * The S3 client, loaded on the first image published (the notify worker's other channels never
 * load it: the S3 SDK would nearly double its bundle at import).
 */
function s3() {
  client ??= import('@aws-sdk/client-s3').then((sdk) => {
    const c = config();
    const s3 = new sdk.S3Client({
      region: c.region,
      ...awsClientLimits(),
      ...(c.s3Endpoint ? { endpoint: c.s3Endpoint, forcePathStyle: true } : {}),
    });
    return { s3, sdk };
  });
  return client;
}

/**
 * Publishes one PNG and answers the URL it is read from. Each call publishes anew under a new name
 * (a retried delivery leaves the earlier copy to the lifecycle rule).
 */
export async function publishMessageImage(store: MessageImageStore, png: Uint8Array): Promise<string> {
  const name = `${randomBytes(32).toString('base64url')}.png`;
  if (store.bucket) {
    const { s3: client, sdk } = await s3();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: store.bucket,
        Key: `${MESSAGE_IMAGES_PREFIX}/${name}`,
        Body: png,
        ContentType: 'image/png',
        // The bytes under a name never change.
        CacheControl: 'public, max-age=31536000, immutable',
      }),
    );
  } else if (store.dir) {
    await mkdir(store.dir, { recursive: true });
    await writeFile(join(store.dir, name), png);
  } else throw new Error('No message-image bucket or folder configured');
  return `${store.baseUrl}/${name}`;
}
