import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MESSAGE_IMAGE_NAME, MESSAGE_IMAGES_PREFIX } from '../../shared/cloud/message-images';
import { config } from '../../shared/config';
import type { LocalHook } from './local-hook';

const PATH = `/${MESSAGE_IMAGES_PREFIX}/`;

/**
 * Serves the images messages show by URL (a Teams card's chart) at `/message-images/<name>.png`, as
 * the console's CloudFront distribution does in AWS: no credential (the name is the capability),
 * only names of the published shape, read from `MESSAGE_IMAGES_DIR`.
 */
export const messageImagesHook: LocalHook = {
  name: 'message-images',
  async handle(method, path) {
    if ((method !== 'GET' && method !== 'HEAD') || !path.startsWith(PATH)) return undefined;
    const name = path.slice(PATH.length);
    const dir = config().messageImagesDir;
    const notFound = { status: 404, body: { message: 'Not Found' } };
    if (!dir || !MESSAGE_IMAGE_NAME.test(name)) return notFound;
    const png = await readFile(join(dir, name)).catch(() => undefined);
    if (!png) return notFound;
    return {
      status: 200,
      body: new Uint8Array(png),
      headers: {
        'content-type': 'image/png',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
    };
  },
};
