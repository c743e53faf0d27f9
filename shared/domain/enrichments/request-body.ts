import { BadRequestError, ShapedError } from '../../errors';
import { parseYaml, YamlError } from './yaml-codec';

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

function isJsonType(media: string): boolean {
  return media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media);
}

/**
 * Decodes a PUT body by its Content-Type: JSON (`application/json`, `application/*+json`) or YAML
 * (`application/yaml`, `application/x-yaml`, `text/yaml`, `text/x-yaml`, parsed by the safe codec).
 * Anything else is a 415. The size cap (413) is enforced earlier by the HTTP middleware.
 */
export function decodeDocumentBody(
  raw: string | null | undefined,
  isBase64Encoded: boolean | undefined,
  contentType: string | undefined,
): unknown {
  if (raw === undefined || raw === null || raw === '') throw new BadRequestError('Request body is required');
  const text = isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (isJsonType(media)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new BadRequestError('Malformed JSON body');
    }
  }
  if (YAML_TYPES.has(media)) {
    try {
      return parseYaml(text);
    } catch (error) {
      if (error instanceof YamlError) throw new BadRequestError(error.message);
      throw error;
    }
  }
  throw new ShapedError(415, { error: 'Unsupported Media Type: send application/json or application/yaml' });
}
