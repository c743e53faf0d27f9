import { BadRequestError, ShapedError } from '../../errors';
import { YAML_MEDIA_TYPES } from './schemas';

const YAML_TYPES = new Set<string>(YAML_MEDIA_TYPES);

function isJsonType(media: string): boolean {
  return media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media);
}

/**
 * The PUT body as data, by its Content-Type. The HTTP middleware (the route's `bodyContentTypes`)
 * has already parsed a JSON body (`application/json`, `application/*+json`), refused unlisted media
 * types with 415, and handed a YAML body (`application/yaml`, `application/x-yaml`, `text/yaml`,
 * `text/x-yaml`) over as text, which is parsed here by the safe codec, loaded for YAML bodies only.
 * The size cap (413) and the empty body (400) are enforced by the middleware too.
 */
export async function decodeDocumentBody(body: unknown, contentType: string | undefined): Promise<unknown> {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (isJsonType(media)) return body;
  if (YAML_TYPES.has(media) && typeof body === 'string') {
    const { parseYaml, YamlError } = await import('./yaml-codec');
    try {
      return parseYaml(body);
    } catch (error) {
      if (error instanceof YamlError) throw new BadRequestError(error.message);
      throw error;
    }
  }
  throw new ShapedError(415, { error: 'Unsupported Media Type: send application/json or application/yaml' });
}
