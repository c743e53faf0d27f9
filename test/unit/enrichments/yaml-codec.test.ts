import { decodeDocumentBody } from '../../../shared/domain/enrichments/request-body';
import { validateDocument } from '../../../shared/domain/enrichments/rules';
import { parseYaml, YamlError } from '../../../shared/domain/enrichments/yaml-codec';
import { toYaml } from '../../../shared/domain/enrichments/yaml-text';
import { entry, sampleDocument } from './fixtures';

/** A "billion laughs" document: 9 levels of 9 aliases each would expand to 9^9 strings. */
function aliasBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const letters = 'abcdefghi';
  for (let i = 1; i < letters.length; i++) {
    const prev = letters[i - 1];
    lines.push(`${letters[i]}: &${letters[i]} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('enrichment YAML codec', () => {
  it('round-trips a document through its YAML text unchanged, including strings that look like other types', async () => {
    const doc = sampleDocument({
      description: 'line one\nline two: with "quotes" and # hash',
      entries: [
        entry('123456789012345678901234567890', { owner: 'yes' }),
        entry('2024-01-01', { owner: '1e3' }),
        entry('null', { owner: '' }),
        entry('- dash', { owner: '&anchor *alias' }),
        entry('ünïcødé ✓', { owner: '0x1F' }),
      ],
    });
    const text = toYaml(doc);
    expect(text).not.toMatch(/&a\d|\*a\d/);
    expect(parseYaml(text)).toEqual(doc);
    expect(await validateDocument(parseYaml(text), doc.name)).toEqual(doc);
  });

  it('writes YAML that reads back as the same strings, whatever they contain', async () => {
    const tricky = [
      '',
      ' ',
      'a ',
      ' a',
      'true',
      'False',
      'NULL',
      '~',
      'yes',
      'No',
      'on',
      'y',
      '0',
      '-1',
      '1.5',
      '.inf',
      '0o17',
      'a: b',
      'a #b',
      '#x',
      '"q"',
      "'s'",
      '[x]',
      '{x}',
      '*x',
      '&x',
      '!x',
      '|',
      '>',
      '%x',
      '@x',
      '`x',
      '? x',
      '- x',
      '---',
      '...',
      'tab\there',
      'cr\rlf\n',
      'del\u007f',
      'nel\u0085',
      'c1\u0090',
      'bom\ufeff',
      'ls\u2028ps\u2029',
      'emoji 😀',
      'back\\slash',
      'Plain_name-1.2/x@y (z)',
    ];
    const doc = sampleDocument({
      description: tricky.join(''),
      targetColumns: tricky.map((_, i) => ({ name: `col${i}`, mode: 'merge' })),
      entries: tricky.map((t, i) => entry(`k${i}${t}`, { [`col${i}`]: t })),
    });
    const text = toYaml(doc);
    expect(parseYaml(text)).toEqual(doc);
    expect(text).toContain('name: cost-centres\n');
  });

  it('rejects an alias bomb before expanding it', () => {
    expect(() => parseYaml(aliasBomb())).toThrow(new YamlError('YAML anchors and aliases are not accepted'));
  });

  it('tells anchors from text that merely contains & or *', () => {
    expect(parseYaml('a: "&x *y"\nb: \'*z\'\nc: x&y\nd: |\n  &w *v\n')).toEqual({
      a: '&x *y',
      b: '*z',
      c: 'x&y',
      d: '&w *v\n',
    });
    const late = `${Array.from({ length: 500 }, (_, i) => `k${i}: v`).join('\n')}\nz: &a x\n`;
    expect(() => parseYaml(late)).toThrow('YAML anchors and aliases are not accepted');
  });

  it('rejects any anchor, merge key or custom tag, and duplicate keys', () => {
    expect(() => parseYaml('a: &x 1\nb: *x\n')).toThrow(YamlError);
    expect(() => parseYaml('a: &x 1\n')).toThrow('YAML anchors and aliases are not accepted');
    expect(() => parseYaml('base: {a: 1}\nother:\n  <<: {b: 2}\n')).not.toThrow();
    expect(parseYaml('other:\n  <<: {b: 2}\n')).toEqual({ other: { '<<': { b: 2 } } });
    expect(() => parseYaml('a: !!js/function "x"\n')).toThrow(YamlError);
    expect(() => parseYaml('a: !custom x\n')).toThrow(YamlError);
    expect(() => parseYaml('a: 1\na: 2\n')).toThrow(/^Invalid YAML: /);
    expect(() => parseYaml('a: 1\n---\nb: 2\n')).toThrow(/^Invalid YAML: /);
    expect(() => parseYaml(`${'['.repeat(40)}${']'.repeat(40)}`)).toThrow(YamlError);
  });

  it('decodes PUT bodies by content type (JSON already parsed by the middleware, YAML as text)', async () => {
    const doc = sampleDocument();
    expect(await decodeDocumentBody(doc, 'application/json; charset=utf-8')).toBe(doc);
    expect(await decodeDocumentBody(doc, 'application/merge-patch+json')).toBe(doc);
    expect(await decodeDocumentBody(toYaml(doc), 'application/yaml')).toEqual(doc);
    expect(await decodeDocumentBody(toYaml(doc), 'Text/YAML; charset=utf-8')).toEqual(doc);
    const status = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (error) {
        const e = error as { status: number; body: () => unknown };
        return [e.status, e.body()];
      }
      return undefined;
    };
    expect(await status(() => decodeDocumentBody(aliasBomb(), 'application/yaml'))).toEqual([
      400,
      { error: 'YAML anchors and aliases are not accepted' },
    ]);
    expect((await status(() => decodeDocumentBody('a: [', 'application/x-yaml')))?.[0]).toBe(400);
    expect((await status(() => decodeDocumentBody('x', 'text/plain')))?.[0]).toBe(415);
    expect((await status(() => decodeDocumentBody('x', undefined)))?.[0]).toBe(415);
  });
});
