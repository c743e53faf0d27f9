import { checkTargetColumnNames, validateDocument } from '../../../shared/domain/enrichments/rules';
import { ENRICHMENT_LIMITS } from '../../../shared/domain/enrichments/schemas';
import { entry, sampleDocument } from './fixtures';

async function errorOf(body: unknown, name = 'cost-centres'): Promise<string> {
  try {
    await validateDocument(body, name);
  } catch (error) {
    expect((error as { status?: number }).status).toBe(400);
    return (error as { body: () => { error: string } }).body().error;
  }
  throw new Error('expected the document to be rejected');
}

describe('enrichment document rules', () => {
  it('returns the canonical document: fixed field order, description defaulted, null conditions dropped', async () => {
    const doc = sampleDocument();
    expect(await validateDocument(doc, doc.name)).toEqual(doc);
    const { description: _d, ...rest } = sampleDocument({ conditions: undefined });
    const out = await validateDocument({ ...rest, conditions: null }, doc.name);
    expect(out.description).toBe('');
    expect('conditions' in out).toBe(false);
    expect(Object.keys(out)).toEqual([
      'name',
      'description',
      'keyField',
      'priority',
      'targetColumns',
      'entries',
    ]);
  });

  it('requires the name to equal the URL', async () => {
    expect(await errorOf(sampleDocument(), 'other')).toBe(
      'Invalid body: name: must equal the name in the URL ("other")',
    );
  });

  it('requires keyField to be a known FOCUS text column', async () => {
    expect(await errorOf(sampleDocument({ keyField: 'Nope' }))).toBe(
      'Invalid body: keyField: unknown billing column "Nope"',
    );
    expect(await errorOf(sampleDocument({ keyField: 'subaccountid' }))).toMatch(
      /did you mean "SubAccountId"/,
    );
    expect(await errorOf(sampleDocument({ keyField: 'BilledCost' }))).toMatch(
      /^Invalid body: keyField: "BilledCost" is a decimal column/,
    );
  });

  it('requires priority to be an integer of at least 0', async () => {
    expect(await errorOf(sampleDocument({ priority: -1 }))).toBe(
      'Invalid body: priority: must be at least 0',
    );
    expect(await errorOf(sampleDocument({ priority: 1.5 }))).toBe(
      'Invalid body: priority: must be an integer',
    );
    expect(await errorOf({ ...sampleDocument(), priority: '1' })).toMatch(/^Invalid body: priority: /);
    expect((await validateDocument(sampleDocument({ priority: 0 }), 'cost-centres')).priority).toBe(0);
  });

  it('names the conditions field when the CEL is bad', async () => {
    expect(await errorOf(sampleDocument({ conditions: 'input.Nope == "x"' }))).toBe(
      'Invalid body: conditions: unknown field input.Nope',
    );
    expect(await errorOf(sampleDocument({ conditions: 'input.ServiceName ==' }))).toMatch(
      /^Invalid body: conditions: invalid CEL: /,
    );
  });

  it('accepts only merge and overwrite modes and new, unique identifier column names', async () => {
    const cols = (targetColumns: { name: string; mode: string }[]) =>
      errorOf(sampleDocument({ targetColumns, entries: [] }));
    expect(await cols([{ name: 'a', mode: 'replace' }])).toBe(
      'Invalid body: targetColumns.0.mode: must be one of merge, overwrite',
    );
    expect(await cols([{ name: 'a b', mode: 'merge' }])).toMatch(
      /^Invalid body: targetColumns.0.name: must be an identifier/,
    );
    expect(await cols([{ name: 'servicename', mode: 'merge' }])).toMatch(
      /^Invalid body: targetColumns.0.name: "servicename" is the FOCUS billing column ServiceName/,
    );
    expect(
      await cols([
        { name: 'team', mode: 'merge' },
        { name: 'Team', mode: 'merge' },
      ]),
    ).toBe('Invalid body: targetColumns.1.name: duplicate target column "Team" (also targetColumns.0)');
    expect(await cols([{ name: '__proto__', mode: 'merge' }])).toBe(
      'Invalid body: targetColumns.0.name: "__proto__" is a reserved name',
    );
    expect(await cols([])).toBe('Invalid body: targetColumns: must declare at least one target column');
  });

  it('refuses target columns named like a built-in dimension or a warehouse column', async () => {
    const cols = (name: string) =>
      errorOf(sampleDocument({ targetColumns: [{ name, mode: 'merge' }], entries: [] }));
    expect(await cols('Provider')).toBe(
      'Invalid body: targetColumns.0.name: "Provider" is the built-in dimension provider; choose a new column name',
    );
    expect(await cols('sub_account_name')).toMatch(
      /"sub_account_name" is the built-in dimension sub_account_name/,
    );
    for (const name of ['x_team', 'X_Unblended_Cost', 'org_id', 'billing_month', 'source_file'])
      expect(await cols(name)).toMatch(
        new RegExp(`^Invalid body: targetColumns.0.name: "${name}" is a warehouse column name`),
      );
    await expect(
      validateDocument(
        sampleDocument({ targetColumns: [{ name: 'team_x', mode: 'merge' }], entries: [] }),
        'cost-centres',
      ),
    ).resolves.toMatchObject({ targetColumns: [{ name: 'team_x', mode: 'merge' }] });
  });

  it('refuses target columns named like a published label or a live virtual dimension, ignoring case', async () => {
    const doc = sampleDocument({ entries: [] });
    const message = (taken: { labels: string[]; virtualDimensions: string[] }) => {
      try {
        checkTargetColumnNames(doc, taken);
        return 'accepted';
      } catch (error) {
        expect((error as { status?: number }).status).toBe(400);
        return (error as { body: () => { error: string } }).body().error;
      }
    };
    expect(message({ labels: ['team', 'Cost'], virtualDimensions: ['tier'] })).toBe('accepted');
    expect(message({ labels: ['Owner'], virtualDimensions: [] })).toBe(
      'Invalid body: targetColumns.1.name: "owner" is already the published label "Owner"; choose a new column name',
    );
    expect(message({ labels: [], virtualDimensions: ['COST_CENTRE'] })).toBe(
      'Invalid body: targetColumns.0.name: "cost_centre" is already the virtual dimension "COST_CENTRE"; choose a new column name',
    );
  });

  it('lets entries set only declared target columns, with unique keys', async () => {
    const base = sampleDocument();
    expect(await errorOf({ ...base, entries: [entry('a', { team: 'x' })] })).toBe(
      'Invalid body: entries.0.then.team: "team" is not a declared target column',
    );
    expect(
      await errorOf({
        ...base,
        entries: [entry('a', { owner: 'x' }), entry('a', { owner: 'y' })],
      }),
    ).toBe('Invalid body: entries.1.key: duplicate key "a" (also entries.0)');
    expect(await errorOf({ ...base, entries: [entry('a', {})] })).toBe(
      'Invalid body: entries.0.then: must set at least one target column',
    );
    expect(await errorOf({ ...base, entries: [entry('a', { owner: 1 })] })).toMatch(
      /^Invalid body: entries.0.then.owner: /,
    );
    expect(await errorOf({ ...base, entries: [entry('', { owner: 'x' })] })).toBe(
      'Invalid body: entries.0.key: must not be empty',
    );
    expect(await errorOf({ ...base, entries: [entry('a', JSON.parse('{"__proto__":"x"}'))] })).toMatch(
      /^Invalid body: entries.0.then: must be an object/,
    );
  });

  it('rejects unknown fields and caps sizes', async () => {
    expect(await errorOf({ ...sampleDocument(), version: 3 })).toBe('Invalid body: version: unknown field');
    expect(
      await errorOf({ ...sampleDocument(), entries: [{ ...entry('a', { owner: 'x' }), else: {} }] }),
    ).toBe('Invalid body: entries.0.else: unknown field');
    const many = Array.from({ length: ENRICHMENT_LIMITS.entries + 1 }, (_, i) =>
      entry(`k${i}`, { owner: 'x' }),
    );
    expect(await errorOf({ ...sampleDocument(), entries: many })).toBe(
      `Invalid body: entries: must have at most ${ENRICHMENT_LIMITS.entries} entries`,
    );
    expect(await errorOf(['not', 'an', 'object'])).toMatch(/^Invalid body: \(body\): /);
  });
});
