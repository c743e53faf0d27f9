import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resetConfig } from '../../shared/config';
import { getIngestion } from '../../shared/db/dimensions-repo';
import { loadEnrichments } from '../../shared/domain/billing/enrichment-source';
import { processUpload } from '../../shared/domain/billing/ingestion';
import { runRefresh } from '../../shared/domain/billing/refresh';
import type { RefreshMode } from '../../shared/domain/billing/refresh-request';
import { loadRates } from '../../shared/domain/fx/service';
import { newId } from '../../shared/ids';
import { log } from '../../shared/log';
import { LOCAL_BUCKET_NAME } from '../../shared/warehouse/object-store';
import { getWarehouse } from '../../shared/warehouse/warehouse';
import {
  COMMITMENTS_SEED_FILE,
  curCsv,
  DEMO_CUR_PAYER,
  demoCommitmentLines,
} from './demo-data/commitment-cur';
import { syntheticRateXml } from './demo-data/fx-synthetic';
import { type GeneratorOptions, recentMonths, writeFocusCsv } from './demo-data/generator';
import type { LocalHook } from './local-hook';

/**
 * The warehouse's part of `npm start`:
 * - the local billing bucket, `<state>/bucket`, standing in for S3 (`npm run ingest` copies files
 *   there and puts an S3-shaped event on the `billing-ingest` queue, as an S3 upload does in AWS);
 * - the demo seed: a few months of generated FOCUS data for `org_demo` and a little for
 *   `org_acme`, ingested through the same upload path, once per state folder; and for `org_demo` a
 *   generated CUR 2.0 with a Savings Plan and reserved instances (`demo-data/commitment-cur.ts`), so
 *   its commitments are not empty (once per state folder too, also in a folder seeded before it);
 *   The seeded organisations are refreshed before the stack reports ready, so candidates and
 *   dimensions are there from the first request;
 * - local-only routes: `POST /_local/warehouse/ingestion` `{orgId, key, version}` answers an
 *   upload's ingestion record (the ingest CLI waits on it); `POST /_local/warehouse/refresh`
 *   `{orgId, mode?}` runs a refresh now and answers its outcome.
 */
export interface SeededOrg {
  orgId: string;
  key: string;
  options: GeneratorOptions;
  rows: number;
}

export const SEED_FILE = 'warehouse-seed.json';
/** The demo's generated rate file (ECB XML format, its sender says it is synthetic). */
export const SEED_RATES_FILE = 'fx-rates-synthetic.xml';

export function seedPlans(now: Date): { orgId: string; options: GeneratorOptions }[] {
  const today = now.toISOString().slice(0, 10);
  return [
    {
      orgId: 'org_demo',
      options: {
        seed: 42,
        months: recentMonths(3, now, true),
        until: today,
        resourcesPerProvider: 40,
        accountPrefix: '1000',
      },
    },
    {
      orgId: 'org_acme',
      options: {
        seed: 7,
        months: recentMonths(2, now),
        resourcesPerProvider: 6,
        providers: ['AWS', 'Google Cloud'],
        accountPrefix: '2000',
        extraTags: { 'acme-division': 'rockets' },
      },
    },
  ];
}

/** Runs a refresh in this process, as the worker would for a queued request. */
async function refreshNow(orgId: string, mode: RefreshMode, reason: string): Promise<string> {
  return runRefresh(
    {
      type: 'warehouse-refresh',
      requestId: newId('rfr'),
      orgId,
      mode,
      reason,
      requestedAt: new Date().toISOString(),
    },
    { warehouse: await getWarehouse(), loadEnrichments, now: () => new Date() },
  );
}

async function seed(stateDir: string, bucketDir: string): Promise<void> {
  const file = join(stateDir, SEED_FILE);
  if (existsSync(file)) return;
  const warehouse = await getWarehouse();
  const seeded: SeededOrg[] = [];
  for (const plan of seedPlans(new Date())) {
    if ((await warehouse.billingMonths(plan.orgId)).length) continue;
    const key = `uploads/${plan.orgId}/seed-${plan.options.months[0]}-${plan.options.months.at(-1)}.csv`;
    const path = join(bucketDir, key);
    mkdirSync(join(path, '..'), { recursive: true });
    const rows = await writeFocusCsv(path, plan.options);
    const outcome = await processUpload({ bucket: LOCAL_BUCKET_NAME, key, version: 'seed' });
    if (outcome !== 'ingested') throw new Error(`seeding ${plan.orgId} failed: ${outcome}`);
    seeded.push({ orgId: plan.orgId, key, options: plan.options, rows });
    await refreshNow(plan.orgId, 'full', 'seed');
  }
  writeFileSync(file, JSON.stringify({ seededAt: new Date().toISOString(), orgs: seeded }, null, 2));
}

const COMMITMENT_DAYS = 90;

/**
 * The demo organisation's commitment lines: a GENERATED CUR 2.0 (payer account `DEMO_CUR_PAYER`,
 * a billing source of its own, so it replaces none of the FOCUS rows) over the 90 days up to
 * yesterday, uploaded as `uploads/org_demo/generated-cur2-commitments-<from>-<to>.csv` through the
 * ordinary upload path, then the organisation refreshed. Once per state folder (its marker file).
 */
async function seedCommitments(stateDir: string, bucketDir: string): Promise<void> {
  const marker = join(stateDir, COMMITMENTS_SEED_FILE);
  if (existsSync(marker)) return;
  const orgId = 'org_demo';
  const now = new Date();
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const until = day(now.getTime() - 86_400_000);
  const from = day(now.getTime() - COMMITMENT_DAYS * 86_400_000);
  const lines = demoCommitmentLines(from, until, now);
  const key = `uploads/${orgId}/generated-cur2-commitments-${from}-${until}.csv`;
  const path = join(bucketDir, key);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, curCsv(lines));
  const outcome = await processUpload({ bucket: LOCAL_BUCKET_NAME, key, version: 'seed' });
  if (outcome !== 'ingested') throw new Error(`seeding ${orgId}'s commitments failed: ${outcome}`);
  await refreshNow(orgId, 'full', 'seed');
  const record = {
    seededAt: now.toISOString(),
    orgId,
    key,
    payer: DEMO_CUR_PAYER,
    from,
    until,
    lines: lines.length,
  };
  writeFileSync(marker, JSON.stringify(record, null, 2));
}

/**
 * Synthetic euro reference rates from the month before the earliest seeded month through today,
 * so the demo converts between currencies (docs/currency.md). Written to `<state>/fx-rates-synthetic.xml`
 * and loaded at each start for the days that hold no rate yet (rates someone loaded stay).
 */
async function seedRates(stateDir: string): Promise<void> {
  const months = (readSeed(stateDir)?.orgs ?? []).flatMap((o) => o.options.months).sort();
  const first = months[0] ?? new Date().toISOString().slice(0, 7);
  const from = new Date(Date.parse(`${first}-01T00:00:00Z`) - 31 * 86_400_000).toISOString().slice(0, 10);
  const text = syntheticRateXml(from, new Date().toISOString().slice(0, 10));
  writeFileSync(join(stateDir, SEED_RATES_FILE), text);
  await loadRates(text, { keepExisting: true });
}

export const warehouseHook: LocalHook = {
  name: 'warehouse',
  async start({ stateDir }) {
    const bucketDir = join(stateDir, 'bucket');
    mkdirSync(join(bucketDir, 'uploads'), { recursive: true });
    process.env.LOCAL_BUCKET_DIR = bucketDir;
    resetConfig();
    try {
      await seed(stateDir, bucketDir);
      await seedCommitments(stateDir, bucketDir);
      await seedRates(stateDir);
    } catch (error) {
      log.error('warehouse demo seed failed', { error });
      throw error;
    }
  },
  async handle(method, path, body) {
    if (method === 'POST' && path === '/_local/warehouse/ingestion') {
      const b = (body ?? {}) as { orgId?: unknown; key?: unknown; version?: unknown };
      if (typeof b.orgId !== 'string' || typeof b.key !== 'string' || typeof b.version !== 'string')
        return { status: 400, body: { error: 'orgId, key and version are required strings' } };
      const record = await getIngestion(b.orgId, b.key, b.version);
      return record ? { status: 200, body: record } : { status: 404, body: { error: 'NOT_FOUND' } };
    }
    if (method === 'POST' && path === '/_local/warehouse/refresh') {
      const b = (body ?? {}) as { orgId?: unknown; mode?: unknown };
      const mode = b.mode === 'light' ? 'light' : 'full';
      if (typeof b.orgId !== 'string' || !/^[A-Za-z0-9_.:-]{1,128}$/.test(b.orgId))
        return { status: 400, body: { error: 'orgId is required' } };
      return { status: 200, body: { outcome: await refreshNow(b.orgId, mode, 'local') } };
    }
    return undefined;
  },
};

/** The seed written by `npm start` in a state folder (tests read it to know what was generated). */
export function readSeed(stateDir: string): { seededAt: string; orgs: SeededOrg[] } | undefined {
  const file = join(stateDir, SEED_FILE);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
