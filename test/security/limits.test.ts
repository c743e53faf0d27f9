import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_KEYS } from '../../shared/http/body';
import type { RouteDef } from '../../shared/http/route';
import { routes } from '../../shared/routes';
import { api, session } from '../support/session';
import { conditionBody } from '../unit/alerts/fixtures';
import { sampleDocument } from '../unit/enrichments/fixtures';

/**
 * Limits (docs/security.md#limits): a body that is too big, too deep or too costly to read is
 * refused with a 4xx in the spec's `{error}` shape before anything is stored. Every body route of
 * the manifest gets the generic probes (over the size limit, 10,000 nested arrays, 900 KB of keys,
 * a 450,000-element array); the routes that read an expression language get theirs (an alert
 * condition, enrichment CEL past each documented limit, a YAML alias bomb). Every probe carries
 * one marker, and at the end no list route of the manifest answers it. How fast each is refused is
 * a figure of `npm run bench -- security` (`limits`), not asserted here.
 */

const s = () => session();
const token = () => s().apiKeys.admin;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const MARKER = `limits${run}`;
const MIB = 1024 * 1024;

const withBody = (r: RouteDef) => r.body !== undefined;
const acceptsJson = (r: RouteDef) =>
  !r.bodyContentTypes || r.bodyContentTypes.some((t) => /^application\/(?:[^;]+\+)?json$/i.test(t));

/**
 * Routes that read their record before their body (`deferBodyParsing`: an archived report is a 409
 * whatever the body) answer 404 at a placeholder path before the body is read, so they are probed
 * at a real record of theirs (named without the marker: the record itself is no probe).
 */
const deferredPaths: Record<string, string> = {};
beforeAll(async () => {
  const res = await api<{ id: string }>('POST', '/reports', {
    token: token(),
    body: { name: `limits deferred ${run}`, scheduledPeriod: 'WEEKLY', scheduledWeekday: 1 },
  });
  expect(res.status).toBe(201);
  deferredPaths.patchReport = `/reports/${res.body.id}`;
});

it('every route that reads its record before its body has a real record to probe', () => {
  const deferred = routes.filter((r) => r.deferBodyParsing).map((r) => r.id);
  expect(deferred.filter((id) => !deferredPaths[id])).toEqual([]);
});

/** The route's path with a placeholder for each parameter (the probes are refused before it is read). */
const pathOf = (r: RouteDef) => deferredPaths[r.id] ?? r.path.replace(/\{[^}]+\}/g, MARKER);

async function send(r: RouteDef, rawBody: string, contentType = 'application/json') {
  return api<{ error?: unknown }>(r.method, pathOf(r), {
    token: token(),
    rawBody,
    headers: { 'content-type': contentType },
  });
}

/** The body's error text, whatever the route's 400 style (`{error}` or a publish `{ok, errors}`). */
const errorText = (body: unknown) => JSON.stringify(body);

const expectRefused = (
  route: string,
  res: { status: number; body: unknown },
  status: number,
  text: RegExp,
) => {
  expect({ route, status: res.status }).toEqual({ route, status });
  expect({ route, text: text.test(errorText(res.body)) }).toEqual({ route, text: true });
};

// --- the JSON pre-scan ---------------------------------------------------------------------------

describe('the JSON pre-scan (before JSON.parse)', () => {
  const keys = (n: number, value = '1') => Array.from({ length: n }, (_, i) => `"k${i}":${value}`).join(',');
  it.each([
    ['at the depth limit', `{"a":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`, null],
    [
      'one level past it',
      `{"a":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`,
      /nested too deeply/,
    ],
    ['brackets inside strings', `{"a":"${'['.repeat(500)}","b":"\\"${'{'.repeat(500)}"}`, null],
    ['colons inside strings', `{"a":"${':'.repeat(5_000)}"}`, null],
    ['an object at the key limit', `{${keys(MAX_JSON_KEYS)}}`, null],
    ['one key past it', `{${keys(MAX_JSON_KEYS + 1)}}`, /too many keys/],
    [
      'many small objects in an array',
      `{"a":[${Array.from({ length: 5_000 }, () => '{"k":1}').join(',')}]}`,
      null,
    ],
    ['nested objects count their own keys', `{${keys(MAX_JSON_KEYS, `{${keys(10)}}`)}}`, null],
  ])('%s', (_label, text, expected) => {
    const problem = jsonShapeProblem(text);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });
});

// --- every body route ---------------------------------------------------------------------------

const bodyRoutes = routes.filter(withBody).map((r) => [r.id, r] as const);

describe('a body over the size limit (1 MiB) is 413 {error} on every body route', () => {
  it.each(bodyRoutes)('%s', async (id, r) => {
    const pad = 'x'.repeat(MIB);
    const res = await send(r, JSON.stringify({ name: MARKER, pad }), r.bodyContentTypes?.[0]);
    expect({ id, status: res.status, body: res.body }).toEqual({
      id,
      status: 413,
      body: { error: expect.any(String) },
    });
  });
});

describe('deep JSON (10,000 nested arrays) is refused before it is parsed on every JSON body route', () => {
  const deep = `{"name":"${MARKER}","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  // Deep inside a string is only text, and the nesting of a real body is far below the limit.
  it.each(bodyRoutes.filter(([, r]) => acceptsJson(r)))('%s', async (id, r) => {
    expectRefused(id, await send(r, deep), 400, /nested too deeply/);
  });
});

describe('huge JSON under the size limit is refused on every JSON body route', () => {
  const manyKeys = `{"name":"${MARKER}",${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
  const longArray = `{"name":"${MARKER}","x":[${'0,'.repeat(450_000)}0]}`;
  it('the probes are under the size limit', () => {
    expect(Buffer.byteLength(manyKeys)).toBeLessThan(MIB);
    expect(Buffer.byteLength(longArray)).toBeLessThan(MIB);
    expect(Buffer.byteLength(manyKeys)).toBeGreaterThan(MIB / 2);
  });
  it.each(bodyRoutes.filter(([, r]) => acceptsJson(r)))('%s', async (id, r) => {
    // 60,000 keys in one object is refused before it is parsed (JSON.parse of it alone is slow).
    expectRefused(id, await send(r, manyKeys), 400, /too many keys \(at most 1000\)/);
    for (const body of [longArray]) {
      const res = await send(r, body);
      // A route that validates its body after reading the record (`deferBodyValidation`) finds
      // no record at the probe's path first.
      const refused = res.status === 400 || (res.status === 404 && r.deferBodyValidation === true);
      expect({ id, status: res.status, refused }).toEqual({ id, status: res.status, refused: true });
      // One field is named, not 60,000 of them.
      expect({ id, short: errorText(res.body).length < 2_000 }).toEqual({ id, short: true });
    }
  });
});

// --- expression languages ----------------------------------------------------------------------

const alertName = (what: string) => `${MARKER} ${what}`;

describe('a huge or deep alert condition is refused and no alert is stored', () => {
  const cases: [string, string, RegExp][] = [
    ['500 KB condition', `ec2 > ${'1 + '.repeat(125_000)}1`, /condition.*at most 4000 characters/],
    ['4,003 characters', `ec2 > ${'1 + '.repeat(999)}1`, /condition.*at most 4000 characters/],
    ['1,000 parentheses', `${'('.repeat(1_000)}ec2${')'.repeat(1_000)} > 1`, /nests deeper than 32 levels/],
    ['1,900 nested minus signs', `${'-'.repeat(1_900)}ec2 > 1`, /nests deeper than 32 levels/],
    ['300 nested calls', `${'abs('.repeat(300)}ec2${')'.repeat(300)} > 1`, /nests deeper than 32 levels/],
  ];
  it.each(cases)('%s', async (what, condition, text) => {
    for (const path of ['/alerts-v2/costAlerts', '/alerts-v2/costAlerts/backtest']) {
      const res = await api('POST', path, {
        token: token(),
        body: conditionBody({ name: alertName(what), condition }),
      });
      expectRefused(`${path} ${what}`, res, 400, text);
    }
  });
  it('the control condition is accepted', async () => {
    const res = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
      token: token(),
      body: conditionBody({ name: `control ${run}` }),
    });
    expect(res.status).toBe(201);
    await api('DELETE', `/alerts-v2/costAlerts/${res.body.id}`, { token: token() });
  });
});

/** Terms `input.BilledCost > <i>.0` joined with `||`, as many as fit in `chars`. */
const orChain = (terms: number) =>
  Array.from({ length: terms }, (_, i) => `input.BilledCost > ${i}.0`).join(' || ');

describe('enrichment CEL past each documented limit is refused and nothing is stored', () => {
  // docs/enrichments.md: 2,000 characters, 300 AST nodes, depth 24, 200 list elements, 50 map
  // entries, 8 call arguments; no matches(); no comprehension inside another.
  const cases: [string, string, RegExp][] = [
    ['2,004 characters', `input.ProviderName == "${'a'.repeat(1_980)}"`, /2000/],
    ['500 KB', `input.ProviderName == "${'a'.repeat(500_000)}"`, /2000/],
    ['over 300 AST nodes', orChain(70), /node|limit|exceed/i],
    ['depth over 24', `${'('.repeat(40)}input.BilledCost > 1.0${')'.repeat(40)}`, /depth|nest|limit|exceed/i],
    [
      'over 200 list elements',
      `input.ProviderName in [${Array.from({ length: 201 }, () => '"a"').join(',')}]`,
      /list|element|limit|exceed/i,
    ],
    [
      'over 50 map entries',
      `size({${Array.from({ length: 51 }, (_, i) => `"k${i}": 1`).join(',')}}) > 0`,
      /map|entr|limit|exceed/i,
    ],
    [
      'over 8 call arguments',
      `input.ProviderName.startsWith(${Array.from({ length: 9 }, () => '"a"').join(',')})`,
      /argument|limit|exceed/i,
    ],
    ['matches() (backtracking RegExp)', 'input.ProviderName.matches("(a+)+$")', /matches/],
    [
      'a comprehension inside another',
      'input.Tags.exists(k, input.Tags.exists(j, j == k))',
      /comprehension|nested/i,
    ],
  ];
  it.each(cases)('%s', async (what, conditions, text) => {
    const name = `cel-${run}-${cases.findIndex(([w]) => w === what)}`;
    const res = await api('PUT', `/enrichments/${name}`, {
      token: token(),
      body: sampleDocument({ name, conditions, description: MARKER }),
    });
    expectRefused(what, res, res.status === 413 ? 413 : 400, res.status === 413 ? /./ : text);
    expect((await api('GET', `/enrichments/${name}`, { token: token() })).status).toBe(404);
  });
  it('the control document (its CEL under every limit) is stored', async () => {
    const name = `cel-${run}-control`;
    const conditions = orChain(10);
    const res = await api('PUT', `/enrichments/${name}`, {
      token: token(),
      body: sampleDocument({ name, conditions }),
    });
    expect(res.status).toBe(201);
    expect((await api('DELETE', `/enrichments/${name}`, { token: token() })).status).toBe(204);
  });
});

describe('a YAML alias bomb (billion laughs) is refused at the first anchor and nothing is stored', () => {
  const bomb = [
    `name: bomb-${run}`,
    `description: ${MARKER}`,
    'keyField: SubAccountId',
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...Array.from({ length: 9 }, (_, i) => {
      const [p, q] = [String.fromCharCode(97 + i), String.fromCharCode(98 + i)];
      return `${q}: &${q} [*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p}]`;
    }),
    'targetColumns: [{name: c, mode: merge}]',
    'entries: *j',
    '',
  ].join('\n');
  it.each([
    ['application/yaml', bomb],
    ['application/yaml', `entries: &x [1]\nname: *x\n`],
    ['text/yaml', bomb],
  ])('%s', async (contentType, text) => {
    const name = `bomb-${run}`;
    const res = await api('PUT', `/enrichments/${name}`, {
      token: token(),
      rawBody: text,
      headers: { 'content-type': contentType },
    });
    expectRefused('yaml', res, 400, /anchor|alias/i);
    expect(errorText(res.body)).not.toMatch(/stack|Error:|at line \d+.*\^/);
    expect((await api('GET', `/enrichments/${name}`, { token: token() })).status).toBe(404);
  });
});

describe('an ECB rate file of 1 MiB is refused quickly (POST /admin/fx-rates)', () => {
  // 25,000 currency Cubes on one day: the line count per Cube made this quadratic (38 s in-process).
  const cube = '<Cube currency="USD" rate="1.1"/>\n';
  const xml = `<gesmes:Envelope><Cube><Cube time="2024-01-02">\n${cube.repeat(25_000)}</Cube></Cube></gesmes:Envelope>`;
  it.each([
    ['application/xml', xml],
    ['application/json', JSON.stringify({ file: xml })],
  ])('%s', async (contentType, body) => {
    expect(Buffer.byteLength(body)).toBeLessThan(MIB);
    const res = await api('POST', '/admin/fx-rates', {
      token: token(),
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    expectRefused(contentType, res, 400, /USD is listed twice on 2024-01-02/);
  });
});

// --- nothing was written --------------------------------------------------------------------------

it('no list route of the manifest answers anything a refused probe sent', async () => {
  const lists = routes.filter((r) => r.method === 'GET' && !r.path.includes('{'));
  let read = 0;
  for (const r of lists) {
    const res = await api('GET', r.path, { token: token() });
    if (res.status !== 200) continue;
    read++;
    expect({ route: r.id, marker: JSON.stringify(res.body).includes(MARKER) }).toEqual({
      route: r.id,
      marker: false,
    });
  }
  // Reports, dashboards, enrichments, teams, scopes, users, datasources, keys, dimensions, alerts…
  expect(read).toBeGreaterThanOrEqual(10);
});
