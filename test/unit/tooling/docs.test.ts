import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

function headingsOf(file: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(join(ROOT, file), 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#+\s+(.*)$/.exec(line);
    if (m) out.add(slug(m[1] as string));
  }
  return out;
}

describe('the documentation', () => {
  it.each(DOCS)('%s links only to files and headings that exist', (file) => {
    const broken: string[] = [];
    for (const [, target] of readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target as string)) continue;
      const [path, anchor] = (target as string).split('#');
      const resolved = path ? normalize(join(dirname(file), path)) : file;
      if (!existsSync(join(ROOT, resolved))) broken.push(`${target}: no such file`);
      else if (anchor && resolved.endsWith('.md') && !headingsOf(resolved).has(anchor)) {
        broken.push(`${target}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the repository stands alone', () => {
  it('no tracked file reads the shared folder beside the checkout', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f && /\.(ts|js|mjs|json|md|sh)$|^\.ci\//.test(f) && existsSync(join(ROOT, f)));
    const outside =
      /(\.\.\/)+shared\/(data|spec|design|hooks)\b|'shared',\s*'(data|spec|design)'|\/work\/shared\b/;
    const offenders = files.filter((f) => outside.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders.map((f) => relative(ROOT, join(ROOT, f)))).toEqual([]);
  });
});
