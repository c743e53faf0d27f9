import { randomUUID } from 'node:crypto';
import { parseYaml, YamlError } from '../../shared/domain/enrichments/yaml-codec';
import { api, session } from '../support/session';

/**
 * A YAML enrichment body is untrusted text. Its nesting depth is bounded before the parser (whose
 * composer recurses once per level) sees it, and no answer carries the parser's own message.
 */

const TOO_DEEP = 'YAML document is nested too deeply';

/** Deep documents of every YAML form, each well under the 1 MB body limit. */
const deepDocuments: [string, string][] = [
  ['flow sequences', `a: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`],
  ['flow mappings', `a: ${'{a: '.repeat(50_000)}1${'}'.repeat(50_000)}\n`],
  ['compact block sequences', `a:\n  ${'- '.repeat(100_000)}x\n`],
  [
    'indented block mappings',
    `${Array.from({ length: 1_000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`,
  ],
  ['mixed flow in block', `a:\n  - ${'[{b: '.repeat(20_000)}1${'}]'.repeat(20_000)}\n`],
];

describe('the YAML codec', () => {
  it.each(deepDocuments)('refuses deeply nested %s before parsing, with its own message', (_label, text) => {
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    expect(() => parseYaml(text)).toThrow(new YamlError(TOO_DEEP));
  });

  it('still accepts the documented depth (16 nested collections) in block and flow form', () => {
    const flow = `${'['.repeat(16)}${']'.repeat(16)}`;
    expect(JSON.stringify(parseYaml(flow))).toBe(flow);
    const block = `${Array.from({ length: 16 }, (_, i) => `${'  '.repeat(i)}k:`).join('\n')} 1\n`;
    let value = parseYaml(block) as Record<string, unknown>;
    for (let depth = 1; depth < 16; depth++) value = value.k as Record<string, unknown>;
    expect(value).toEqual({ k: 1 });
  });

  it('never echoes a parser message: syntax errors name the kind and the place only', () => {
    const errors: string[] = [];
    for (const text of ['a: 1\na: 2\n', 'a: "open\n', 'a: [1, 2\n', 'a:\n\t- x\n', 'a: 1\n---\nb: 2\n']) {
      try {
        parseYaml(text);
      } catch (error) {
        errors.push((error as Error).message);
      }
    }
    expect(errors).toHaveLength(5);
    for (const message of errors) {
      expect(message).toMatch(/^Invalid YAML: [a-z][a-z ,0-9]*[a-z0-9]( at line \d+, column \d+)?$/);
      expect(message).not.toMatch(/Maximum call stack|\n|…|\^/);
    }
  });
});

describe('PUT /enrichments/{name} with a YAML body', () => {
  it.each(deepDocuments)('answers 400 for deeply nested %s and stores nothing', async (_label, text) => {
    const name = `deep-${randomUUID().slice(0, 8)}`;
    const token = session().apiKeys.admin;
    const res = await api(`PUT`, `/enrichments/${name}`, {
      token,
      rawBody: text,
      headers: { 'content-type': 'application/yaml' },
    });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: TOO_DEEP } });
    expect((await api('GET', `/enrichments/${name}`, { token })).status).toBe(404);
  });
});
