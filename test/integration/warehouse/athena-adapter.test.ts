import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as usageMetricsHandler } from '../../../functions/http/queries/usage-metrics';
import type { EnrichmentFeature } from '../../../shared/model/view-features';
import { AthenaWarehouse } from '../../../shared/warehouse/athena/adapter';
import { athenaRunner } from '../../../shared/warehouse/athena/client';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { glueColumns } from '../../../shared/warehouse/focus-columns';
import { sourceObjectName } from '../../../shared/warehouse/ingest/sources';
import { resetObjectStore } from '../../../shared/warehouse/object-store';
import { computedColumn } from '../../../shared/warehouse/sql/expressions';
import { setWarehouse } from '../../../shared/warehouse/warehouse';
import { athenaResultSet } from '../../support/athena-emulator';
import { session } from '../../support/session';
import { assertTrino } from '../../support/trino';
import { entry } from '../../unit/enrichments/fixtures';
import { authContext, invoke } from './http-support';
import { FOCUS_SAMPLE, ingestFocusSample, readCsv } from './support';

type Cell = string | null;
interface Result {
  columns: [string, string][];
  rows: Cell[][];
}

const athena = mockClient(AthenaClient);
const s3 = mockClient(S3Client);
const table = { database: 'cost_management_test', table: 'focus_billing' };
const run = Date.now().toString(36);

/** A fake Athena: each started query gets the result of the first matcher its SQL satisfies. */
function engine(answers: [RegExp | string, Result | 'FAIL'][]) {
  const results = new Map<string, Result | 'FAIL'>();
  let n = 0;
  athena.reset();
  athena.on(StartQueryExecutionCommand).callsFake((input: { QueryString: string }) => {
    // Every statement the adapter starts is Trino (see athena-trino.test.ts for the whole check).
    assertTrino(input.QueryString);
    const id = `q${++n}`;
    const hit = answers.find(([m]) =>
      typeof m === 'string' ? input.QueryString.includes(m) : m.test(input.QueryString),
    );
    results.set(id, hit ? hit[1] : { columns: [], rows: [] });
    return { QueryExecutionId: id };
  });
  athena.on(GetQueryExecutionCommand).callsFake((input: { QueryExecutionId: string }) => ({
    QueryExecution: {
      Status:
        results.get(input.QueryExecutionId) === 'FAIL'
          ? { State: 'FAILED', StateChangeReason: 'SYNTAX_ERROR: line 1:1' }
          : { State: 'SUCCEEDED' },
    },
  }));
  athena.on(GetQueryResultsCommand).callsFake((input: { QueryExecutionId: string }) => {
    const r = results.get(input.QueryExecutionId) as Result;
    return {
      ResultSet: athenaResultSet(r),
    };
  });
}

const started = () => athena.commandCalls(StartQueryExecutionCommand).map((c) => c.args[0].input);

function adapter(): AthenaWarehouse {
  return new AthenaWarehouse({
    runner: athenaRunner({
      client: new AthenaClient({ region: 'us-east-1' }),
      workgroup: 'wg',
      database: table.database,
      pollMs: 1,
    }),
    table,
    bucket: 'billing-bucket',
  });
}

afterAll(() => {
  athena.restore();
  s3.restore();
  setWarehouse(undefined);
});

describe('Athena runner (aws-sdk-client-mock)', () => {
  it('starts the query in the workgroup, polls, pages through results and types the values', async () => {
    athena.reset();
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q1' });
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce({ QueryExecution: { Status: { State: 'RUNNING' } } })
      .resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    const meta = {
      ColumnInfo: [
        { Name: 'k', Type: 'varchar' },
        { Name: 'n', Type: 'bigint' },
      ],
    };
    athena
      .on(GetQueryResultsCommand)
      .resolvesOnce({
        NextToken: 't2',
        ResultSet: {
          ResultSetMetadata: meta,
          Rows: [
            { Data: [{ VarCharValue: 'k' }, { VarCharValue: 'n' }] },
            { Data: [{ VarCharValue: 'a' }, { VarCharValue: '1' }] },
          ],
        },
      })
      .resolves({ ResultSet: { ResultSetMetadata: meta, Rows: [{ Data: [{}, { VarCharValue: '2' }] }] } });
    const runner = athenaRunner({
      client: new AthenaClient({ region: 'us-east-1' }),
      workgroup: 'wg',
      database: 'db',
      pollMs: 1,
    });
    expect(await runner.run('SELECT ?', ["'x'"])).toEqual([
      { k: 'a', n: 1 },
      { k: null, n: 2 },
    ]);
    expect(started()).toEqual([
      {
        QueryString: 'SELECT ?',
        WorkGroup: 'wg',
        QueryExecutionContext: { Database: 'db' },
        ExecutionParameters: ["'x'"],
      },
    ]);
    expect(athena.commandCalls(GetQueryResultsCommand)[1]?.args[0].input).toEqual({
      QueryExecutionId: 'q1',
      NextToken: 't2',
    });
  });

  it('turns a failed query into an error', async () => {
    engine([['SELECT', 'FAIL']]);
    await expect(athenaRunner({ client: new AthenaClient({}), pollMs: 1 }).run('SELECT 1')).rejects.toThrow(
      'Athena query q1 FAILED: SYNTAX_ERROR: line 1:1',
    );
  });
});

describe('Athena warehouse adapter', () => {
  it('answers a cost series from the generated SQL with quoted-literal parameters', async () => {
    engine([
      [
        'coalesce(sum("billedcost"), 0) AS value',
        {
          columns: [
            ['period', 'varchar'],
            ['g0', 'varchar'],
            ['value', 'double'],
          ],
          rows: [['2024-09-01', 'AWS', '12.5']],
        },
      ],
    ]);
    const rows = await adapter().costSeries({
      orgId: `org_ath_${run}`,
      metricId: 'cost',
      groupBy: 'provider',
      granularity: 'Month',
      start: '2024-09-01',
      end: '2024-10-01',
      whereClause: { combinator: 'and', rules: [{ field: 'tag:team', operator: 'in', value: ["o'brien"] }] },
    });
    expect(rows).toEqual([{ period: '2024-09-01', group: { provider: 'AWS' }, value: 12.5 }]);
    const [q] = started();
    expect(q?.QueryString).toContain(
      `FROM (SELECT * FROM "cost_management_test"."focus_billing" WHERE "org_id" = 'org_ath_${run}' AND "billing_month" IN ('2024-08', '2024-09', '2024-10')) AS src`,
    );
    expect(q?.QueryString).toContain('AND ((element_at("tags", ?) IN (?)))');
    expect(q?.ExecutionParameters).toEqual([
      `'org_ath_${run}'`,
      "'2024-09-01 00:00:00'",
      "'2024-10-01 00:00:00'",
      "'team'",
      "'o''brien'",
    ]);
    expect(q?.WorkGroup).toBe('wg');
  });

  it('groups usage metrics rows by unit, and a failure is the 500 of the route', async () => {
    engine([
      [
        '"consumedunit" AS consumed_unit',
        {
          columns: [
            ['consumed_unit', 'varchar'],
            ['service_name', 'varchar'],
          ],
          rows: [
            ['GB', 'S3'],
            ['GB', 'EBS'],
            ['Hours', 'EC2'],
            ['Hours', null],
          ],
        },
      ],
    ]);
    expect(await adapter().usageMetrics('org_x')).toEqual([
      { consumed_unit: 'GB', service_names: ['EBS', 'S3'] },
      { consumed_unit: 'Hours', service_names: ['EC2'] },
    ]);
    engine([['consumedunit', 'FAIL']]);
    setWarehouse(adapter());
    const res = await invoke(usageMetricsHandler, await authContext(session().apiKeys.member), {
      path: '/queries/usage-metrics',
    });
    expect(res).toMatchObject({ status: 500, body: { error: 'INTERNAL_SERVER_ERROR' } });
    setWarehouse(undefined);
  });

  it('refreshes features: evaluates conditions over distinct inputs, stores them, and queries through them', async () => {
    const org = `org_athr_${run}`;
    const doc: EnrichmentFeature = {
      name: 'cc',
      keyField: 'SubAccountId',
      priority: 0,
      conditions: 'input.ServiceName.startsWith("Amazon")',
      targetColumns: [{ name: 'cost_center', mode: 'merge' }],
      entries: [entry('111', { cost_center: 'CC-1' })],
    };
    engine([
      [
        'SELECT DISTINCT b."servicename" AS c0',
        { columns: [['c0', 'varchar']], rows: [['Amazon EC2'], ['AWS Lambda'], [null]] },
      ],
    ]);
    const catalog = await adapter().refreshFeatures(
      org,
      {
        labels: [{ name: 'team', columnsMerged: [{ name: 'team', type: 'label' }], maps: [] }],
        vdims: [],
        enrichments: [doc],
      },
      'full',
    );
    expect(catalog.dimensions.map((d) => [d.name, d.kind])).toEqual([
      ['team', 'label'],
      ['cost_center', 'enrichment'],
    ]);
    expect(started()[0]?.QueryString).toContain(
      `WHERE b."org_id" = '${org}' AND b."subaccountid" IN ('111')`,
    );
    expect(await adapter().catalog(org)).toMatchObject({ orgId: org, mode: 'full', warnings: [] });

    engine([
      [
        'AS value',
        {
          columns: [
            ['period', 'varchar'],
            ['g0', 'varchar'],
            ['value', 'double'],
          ],
          rows: [],
        },
      ],
    ]);
    await adapter().costSeries({
      orgId: org,
      metricId: 'cost',
      groupBy: 'cost_center',
      granularity: 'Day',
      start: '2024-09-01',
      end: '2024-09-02',
    });
    const sql = started()[0]?.QueryString ?? '';
    // Only the passing input is inlined; the label and the enrichment column are computed in the source.
    expect(sql).toContain(`LEFT JOIN (VALUES ('Amazon EC2', TRUE)) AS p0 (c0, ok)`);
    expect(sql).toContain(`coalesce("${computedColumn('enrichment', 'cost_center')}", '') AS g0`);
    expect(sql).toContain(`element_at("tags", 'team') AS m_0`);

    // A light refresh keeps the stored labels and enrichments and runs no condition query.
    engine([]);
    const light = await adapter().refreshFeatures(org, { labels: [], vdims: [], enrichments: [] }, 'light');
    expect(light.dimensions.map((d) => d.name)).toEqual(['team', 'cost_center']);
    expect(started()).toEqual([]);
  });

  it('assembles candidate aggregates from its five statements', async () => {
    engine([
      [
        'AS month, coalesce(sum("billedcost"), 0) AS cost FROM',
        {
          columns: [
            ['month', 'varchar'],
            ['cost', 'double'],
          ],
          rows: [['2024-09', '10']],
        },
      ],
      [
        'count(DISTINCT v) AS n',
        {
          columns: [
            ['key', 'varchar'],
            ['cost', 'double'],
            ['n', 'bigint'],
          ],
          rows: [['env', '6', '2']],
        },
      ],
      [
        'SELECT k AS key, month',
        {
          columns: [
            ['key', 'varchar'],
            ['month', 'varchar'],
            ['cost', 'double'],
          ],
          rows: [['env', '2024-09', '6']],
        },
      ],
      [
        'SELECT DISTINCT k AS key, provider',
        {
          columns: [
            ['key', 'varchar'],
            ['provider', 'varchar'],
          ],
          rows: [
            ['env', 'AWS'],
            ['env', 'Oracle'],
          ],
        },
      ],
      [
        'row_number()',
        {
          columns: [
            ['key', 'varchar'],
            ['value', 'varchar'],
            ['cost', 'double'],
          ],
          rows: [
            ['env', 'prod', '4'],
            ['env', 'dev', '2'],
          ],
        },
      ],
    ]);
    expect(await adapter().candidateAggregates('org_x', ['2024-09'], 50)).toEqual({
      months: [{ month: '2024-09', cost: 10 }],
      keys: [{ key: 'env', cost: 6, values: 2, providers: ['AWS', 'Oracle'] }],
      keyMonths: [{ key: 'env', month: '2024-09', cost: 6 }],
      keyValues: [
        { key: 'env', value: 'prod', cost: 4 },
        { key: 'env', value: 'dev', cost: 2 },
      ],
    });
  });

  it('ingests a file as one Parquet object per billing month and source (a PutObject replaces one whole)', async () => {
    s3.reset();
    resetObjectStore();
    const bodies = new Map<string, Uint8Array>();
    s3.on(PutObjectCommand).callsFake((input: { Key: string; Body: Uint8Array }) => {
      bodies.set(input.Key, input.Body);
      return {};
    });
    // No month was written before (no legacy data.parquet).
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('no such key'), { name: 'NoSuchKey' }));
    await ingestFocusSample(adapter(), 'org_pq');
    const raw = readCsv(FOCUS_SAMPLE);
    const sources = [
      ...new Set(
        raw.map((r) => `${r.BillingPeriodStart?.slice(0, 7)}|${r.ProviderName}|${r.BillingAccountId ?? ''}`),
      ),
    ];
    const keyOf = (source: string) => {
      const [month, provider, account] = source.split('|') as [string, string, string];
      return `curated/org_id=org_pq/billing_month=${month}/${sourceObjectName({ provider, account })}`;
    };
    expect(
      s3
        .commandCalls(PutObjectCommand)
        .map((c) => [c.args[0].input.Bucket, c.args[0].input.Key])
        .sort(),
    ).toEqual(sources.map((x) => ['billing-bucket', keyOf(x)]).sort());
    // Per month: the legacy data.parquet, then each source's object (kept, if any, as the version
    // this upload replaces: none here).
    expect(
      s3
        .commandCalls(GetObjectCommand)
        .map((c) => c.args[0].input.Key)
        .sort(),
    ).toEqual(
      [
        'curated/org_id=org_pq/billing_month=2024-09/data.parquet',
        'curated/org_id=org_pq/billing_month=2024-10/data.parquet',
        ...sources.map(keyOf),
      ].sort(),
    );
    const awsSeptember = sources.find((x) => x.startsWith('2024-09|AWS|')) as string;
    const file = join(tmpdir(), `athena-test-${run}.parquet`);
    writeFileSync(file, bodies.get(keyOf(awsSeptember)) ?? new Uint8Array());
    expect(readFileSync(file).subarray(0, 4).toString()).toBe('PAR1');
    const [stats] = await withConnection((c) =>
      query(c, `SELECT count(*)::INT AS n, sum(billedcost) AS cost FROM read_parquet('${file}')`),
    );
    const rows = raw.filter(
      (r) =>
        `${r.BillingPeriodStart?.slice(0, 7)}|${r.ProviderName}|${r.BillingAccountId ?? ''}` === awsSeptember,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(stats?.n).toBe(rows.length);
    expect(stats?.cost).toBeCloseTo(
      rows.reduce((acc, r) => acc + Number(r.BilledCost ?? 0), 0),
      9,
    );
    const names = await withConnection((c) =>
      query(c, `SELECT name FROM parquet_schema('${file}') WHERE name <> 'duckdb_schema'`),
    );
    expect(names.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'billedcost',
        'tags',
        'chargeperiodstart',
        'x_unblended_cost',
        // The commitment columns the native converters fill, as the Glue table declares them.
        ...glueColumns()
          .filter((c) => /^commitmentdiscount|^(list|contracted|effective)cost$/.test(c.name))
          .map((c) => c.name),
      ]),
    );
    expect(names.map((r) => r.name)).not.toContain('org_id');
  });
});
