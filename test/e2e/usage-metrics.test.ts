import { join } from 'node:path';
import { readSeed } from '../../infra/local/warehouse-hook';
import { readCsv } from '../integration/warehouse/support';
import { api, session } from '../support/session';

interface UsageMetric {
  consumed_unit: string;
  service_names: string[];
}

/** Units and their sorted services, computed in the test from the CSV the stack seeded. */
function expectedFor(orgId: string): UsageMetric[] {
  const seed = readSeed(session().stateDir);
  const org = seed?.orgs.find((o) => o.orgId === orgId);
  if (!org) throw new Error(`no seed for ${orgId}`);
  const byUnit = new Map<string, Set<string>>();
  for (const r of readCsv(join(session().stateDir, 'bucket', org.key))) {
    if (!r.ConsumedUnit) continue;
    const set = byUnit.get(r.ConsumedUnit) ?? new Set<string>();
    if (r.ServiceName) set.add(r.ServiceName);
    byUnit.set(r.ConsumedUnit, set);
  }
  return [...byUnit.keys()]
    .sort()
    .map((u) => ({ consumed_unit: u, service_names: [...(byUnit.get(u) ?? [])].sort() }));
}

describe('GET /queries/usage-metrics', () => {
  it('lists the consumed units and services of the seeded demo data', async () => {
    const res = await api<UsageMetric[]>('GET', '/queries/usage-metrics', {
      token: session().apiKeys.member,
    });
    expect(res.status).toBe(200);
    const expected = expectedFor(session().orgId);
    expect(expected.length).toBeGreaterThan(3);
    // Other suites may ingest more files into the demo org; the seeded units are all there.
    for (const m of expected) {
      const got = res.body.find((x) => x.consumed_unit === m.consumed_unit);
      expect(got?.service_names).toEqual(expect.arrayContaining(m.service_names));
    }
  });

  it('shows the second organisation only its own units and services', async () => {
    const res = await api<UsageMetric[]>('GET', '/queries/usage-metrics', {
      token: session().apiKeys.outsider,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expectedFor(session().otherOrgId));
    const services = res.body.flatMap((m) => m.service_names);
    expect(services).not.toContain('Azure Cosmos DB');
    expect(services).not.toContain('COMPUTE');
  });

  it('requires a credential', async () => {
    const res = await api('GET', '/queries/usage-metrics');
    expect(res.status).toBe(401);
  });
});
