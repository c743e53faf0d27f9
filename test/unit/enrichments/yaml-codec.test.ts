import { decodeDocumentBody } from '../../../shared/domain/enrichments/request-body';
import { validateDocument } from '../../../shared/domain/enrichments/rules';
import { parseYaml, toYaml, YamlError } from '../../../shared/domain/enrichments/yaml-codec';
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
  it('round-trips a document through its YAML text unchanged, including strings that look like other types', () => {
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
    expect(validateDocument(parseYaml(text), doc.name)).toEqual(doc);
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

  it('decodes PUT bodies by content type (JSON already parsed by the middleware, YAML as text)', () => {
    const doc = sampleDocument();
    expect(decodeDocumentBody(doc, 'application/json; charset=utf-8')).toBe(doc);
    expect(decodeDocumentBody(doc, 'application/merge-patch+json')).toBe(doc);
    expect(decodeDocumentBody(toYaml(doc), 'application/yaml')).toEqual(doc);
    expect(decodeDocumentBody(toYaml(doc), 'Text/YAML; charset=utf-8')).toEqual(doc);
    const status = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        const e = error as { status: number; body: () => unknown };
        return [e.status, e.body()];
      }
      return undefined;
    };
    expect(status(() => decodeDocumentBody(aliasBomb(), 'application/yaml'))).toEqual([
      400,
      { error: 'YAML anchors and aliases are not accepted' },
    ]);
    expect(status(() => decodeDocumentBody('a: [', 'application/x-yaml'))?.[0]).toBe(400);
    expect(status(() => decodeDocumentBody('x', 'text/plain'))?.[0]).toBe(415);
    expect(status(() => decodeDocumentBody('x', undefined))?.[0]).toBe(415);
  });
});
