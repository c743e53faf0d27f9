import type { Candidate, DimensionEntry } from '../../shared/model/dimensions';
import {
  type CsvRow,
  close,
  FOCUS_SAMPLE,
  num,
  sampleVariant,
  sumBy,
  tagsOf,
} from '../integration/warehouse/support';
import { ingestCli, tokenCli } from '../support/cli';
import { api, runId, session } from '../support/session';

/**
 * Tag keys as the export wrote them (docs/warehouse.md, "Tag keys"): a brand-new organisation
 * uploads the real FOCUS sample with extra spellings of one key on its tagged rows (`" team"`
 * beside `team` on one row, `Team`, `team `) and keys with a quote, a double quote, a dot, spaces
 * and non-ASCII letters. Over HTTP: each spelling is a candidate of its own with figures equal to
 * sums computed here from the file, names the others in `similar_keys`, answers the explorer on
 * its own, and one label published with every spelling as a source combines them.
 */
const s = () => session();
const run = runId();

interface Answer {
  queries: {
    name: string;
    total: number | null;
    series: { group: Record<string, string | null>; total: number | null; other?: true }[];
  }[];
}

const TEAM = ['team', ' team', 'Team', 'team '];
const ODD = ["it's", 'say "hi"', 'a.b', ' équipe ', 'コスト'];

/** Extra tags for the `i`-th tagged row of the sample. */
function extraTags(i: number): Record<string, string> {
  switch (i % 4) {
    case 0:
      return { ' team': 'ops', team: 'dev' };
    case 1:
      return { Team: 'Ops' };
    case 2:
      return {
        'team ': 'ops',
        "it's": 'q',
        'say "hi"': "x'y",
        'a.b': 'dot',
        ' équipe ': 'bleu',
        コスト: '経理',
      };
    default:
      return { team: 'platform' };
  }
}

/** The sample with `extraTags` written first into every Tags cell that starts with `application`. */
function withOddKeys(text: string): string {
  let i = 0;
  return text.replaceAll('"{""application""', () => {
    const json = Object.entries(extraTags(i++))
      .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}, `)
      .join('');
    return `"{${json.replaceAll('"', '""')}""application""`;
  });
}

const sum = (rows: CsvRow[]) => rows.reduce((a, r) => a + num(r.BilledCost), 0);
function expectClose(actual: number | null | undefined, expected: number, what: string) {
  if (!close(actual ?? Number.NaN, expected, 1e-9))
    throw new Error(`${what}: got ${actual}, expected ${expected}`);
}

describe('tag keys as the export wrote them, over HTTP', () => {
  const org = `org_tagkeys_${run}`;
  let token = '';
  let rows: CsvRow[] = [];

  beforeAll(async () => {
    token = tokenCli('user_tagkeys_admin', org, 'admin');
    expect((await api('GET', '/dimensions', { token })).status).toBe(200);
    const file = sampleVariant(s().stateDir, `tag-keys-${run}.csv`, FOCUS_SAMPLE, withOddKeys);
    rows = file.rows;
    // The file really has the spellings, two of them on one row.
    expect(rows.filter((r) => tagsOf(r)[' team'] !== undefined && tagsOf(r).team !== undefined).length).toBe(
      165,
    );
    const out = ingestCli(org, file.path);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
  }, 180_000);

  it('lists every spelling as a candidate of its own, with the figures of the file, naming the others in similar_keys', async () => {
    const res = await api<Candidate[]>('GET', '/dimensions/candidates', { token });
    expect(res.status).toBe(200);
    const total = sum(rows);
    const keys = [...new Set(rows.flatMap((r) => Object.keys(tagsOf(r))))].sort();
    expect(res.body.map((c) => c.key).sort()).toEqual(keys);
    for (const key of [...TEAM, ...ODD, 'org', ' org']) {
      const c = res.body.find((x) => x.key === key);
      const tagged = rows.filter((r) => tagsOf(r)[key] !== undefined);
      expect(tagged.length).toBeGreaterThan(0);
      expectClose(c?.total_cost_key_present, sum(tagged), `${JSON.stringify(key)} present`);
      expectClose(c?.total_cost_key_absent, total - sum(tagged), `${JSON.stringify(key)} absent`);
      const byValue = sumBy(
        tagged,
        (r) => tagsOf(r)[key],
        (r) => num(r.BilledCost),
      );
      expect(c?.number_values).toBe(byValue.size);
      for (const v of c?.values ?? [])
        expectClose(v.cost_allocated, byValue.get(v.value) ?? Number.NaN, v.value);
    }
    const similar = Object.fromEntries(res.body.map((c) => [c.key, c.similar_keys]));
    expect(similar).toMatchObject({
      team: [' team', 'Team', 'team '],
      ' team': ['Team', 'team', 'team '],
      Team: [' team', 'team', 'team '],
      'team ': [' team', 'Team', 'team'],
      org: [' org'],
      ' org': ['org'],
      "it's": [],
      'say "hi"': [],
      'a.b': [],
      ' équipe ': [],
      コスト: [],
      application: [],
      environment: [],
      env: [],
    });
    expect(res.body.every((c) => !c.ingested)).toBe(true);
  });

  it('answers the explorer for each spelling and for odd keys with the sums of the file', async () => {
    const fields = [...TEAM, ...ODD].map((k) => `tag:${k}`);
    const res = await api<Answer>('POST', '/queries/explorer', {
      token,
      body: {
        request: {
          period: { startDate: '2024-09-01T00:00:00Z', endDate: '2024-09-30T00:00:00Z', aggBy: 'Period' },
          queries: fields.map((groupBy, i) => ({
            type: 'cost',
            name: `q${i}`,
            colorIndex: 0,
            chartType: 'TABLE',
            groupBy,
            whereClause: { combinator: 'and', rules: [{ field: groupBy, operator: 'notNull', value: [] }] },
          })),
        },
      },
    });
    expect(res.status).toBe(200);
    const september = rows.filter((r) => String(r.ChargePeriodStart).startsWith('2024-09'));
    fields.forEach((field, i) => {
      const key = field.slice(4);
      const tagged = september.filter((r) => tagsOf(r)[key] !== undefined);
      const answer = res.body.queries[i];
      expectClose(answer?.total, sum(tagged), field);
      const byValue = sumBy(
        tagged,
        (r) => tagsOf(r)[key],
        (r) => num(r.BilledCost),
      );
      expect(answer?.series.map((x) => x.group[field]).sort()).toEqual([...byValue.keys()].sort());
      for (const x of answer?.series ?? [])
        expectClose(x.total, byValue.get(String(x.group[field])) ?? Number.NaN, `${field}=${x.group[field]}`);
    });
  });

  it('combines the spellings only when asked: one label with every spelling as a source, the first present one per row', async () => {
    const refused = await api<{ ok: boolean; unpublished: { name: string; errors: { kind: string }[] }[] }>(
      'POST',
      '/dimensions/publish',
      {
        token,
        body: {
          scope: 'labels',
          labels: [{ name: 'folded', columnsMerged: [{ name: 'TEAM', type: 'label' }], maps: [] }],
        },
      },
    );
    expect(refused.status).toBe(200);
    // No key is folded to match: `TEAM` is not a key of the file.
    expect(refused.body.unpublished.map((u) => [u.name, u.errors.map((e) => e.kind)])).toEqual([
      ['folded', ['unknown_source']],
    ]);

    const published = await api<{ ok: boolean; publishedLabels: boolean }>('POST', '/dimensions/publish', {
      token,
      body: {
        scope: 'labels',
        labels: [{ name: 'team', columnsMerged: TEAM.map((name) => ({ name, type: 'label' })), maps: [] }],
      },
    });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ ok: true, publishedLabels: true });
    expect((await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } })).status).toBe(200);

    const merged = (r: CsvRow) => {
      const t = tagsOf(r);
      return TEAM.map((k) => t[k]).find((v) => v !== undefined);
    };
    const byTeam = sumBy(rows, merged, (r) => num(r.BilledCost));
    expect([...byTeam.keys()].sort()).toEqual(['Ops', 'dev', 'ops', 'platform']);
    const dims = await api<DimensionEntry[]>('GET', '/dimensions', { token });
    const team = dims.body.find((d) => d.name === 'team');
    expect(team?.values.map((v) => v.name).sort()).toEqual([...byTeam.keys()].sort());
    for (const v of team?.values ?? [])
      expectClose(v.proportionCostAllocated, (byTeam.get(v.name) ?? Number.NaN) / sum(rows), v.name);

    const candidates = await api<Candidate[]>('GET', '/dimensions/candidates', { token });
    expect(
      candidates.body
        .filter((c) => c.ingested)
        .map((c) => c.key)
        .sort(),
    ).toEqual([...TEAM].sort());
  });
});
