import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { billingSourceSamples } from './support';

/**
 * The embedded warehouse's data version (`dataVersion`, what the explorer's kept forecasts are
 * identified by): none before an org has data, another after each change of its rows (an upload,
 * a restore), the same otherwise — whatever reads it, and whatever other organisations do.
 */
const dir = mkdtempSync(join(tmpdir(), 'wh-version-'));
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const org = `org_version_${run}`;
const other = `org_version_other_${run}`;
const { cur, corrected, azure } = billingSourceSamples(dir);

describe('data version of an organisation', () => {
  const seen: string[] = [];

  it('is none before any data, then one after an upload, the same when read again', async () => {
    expect(await warehouse.dataVersion(org)).toBeUndefined();
    await warehouse.ingestFile({ orgId: org, path: cur.path, sourceName: 'cur.csv', uploadId: 'upl_a' });
    const first = await warehouse.dataVersion(org);
    expect(first).toEqual(expect.any(String));
    expect(await warehouse.dataVersion(org)).toBe(first);
    // Another reader of the same database (another adapter) reads the stored one.
    expect(await new DuckDbWarehouse().dataVersion(org)).toBe(first);
    seen.push(first as string);
  });

  it("does not move with another organisation's upload, nor with a malformed file", async () => {
    await warehouse.ingestFile({ orgId: other, path: azure.path, sourceName: 'azure.csv' });
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'not,a,billing\nfile,at,all\n');
    await expect(warehouse.ingestFile({ orgId: org, path: bad, sourceName: 'bad.csv' })).rejects.toThrow();
    expect(await warehouse.dataVersion(org)).toBe(seen[0]);
    expect(await warehouse.dataVersion(other)).toEqual(expect.any(String));
    expect(await warehouse.dataVersion(other)).not.toBe(seen[0]);
  });

  it('moves with an upload that replaces a month, and again with its restore', async () => {
    const result = await warehouse.ingestFile({
      orgId: org,
      path: corrected.path,
      sourceName: 'cur-corrected.csv',
      uploadId: 'upl_b',
    });
    expect(result.replaced?.some((c) => c.kept)).toBe(true);
    const replaced = await warehouse.dataVersion(org);
    expect(replaced).toEqual(expect.any(String));
    expect(seen).not.toContain(replaced);
    seen.push(replaced as string);
    expect((await warehouse.restoreReplaced(org, 'upl_b', 'rst_1')).length).toBeGreaterThan(0);
    const restored = await warehouse.dataVersion(org);
    expect(restored).toEqual(expect.any(String));
    expect(seen).not.toContain(restored);
  });
});
