import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { SPLIT_ENTRIES } from '../../infra/bundling';
import { readDeployConfig } from '../../infra/constructs/deploy-config';
import { CostManagementStack } from '../../infra/stack';
import { buildChartSpec } from '../../shared/charts/spec';
import { toYaml } from '../../shared/domain/enrichments/yaml-text';
import { queues, workers } from '../../shared/queues';
import { putEnrichment } from '../../shared/routes/enrichments';
import { isValidPng } from '../support/report-delivery-files';
import { session } from '../support/session';
import { sampleDocument } from '../unit/enrichments/fixtures';
import { cdkJsonContext } from './support';

// A real synth (bundling on) of the functions built with code splitting. PUT /enrichments/{name}:
// its asset holds `index.mjs` and the chunks of what it imports lazily (the YAML parser, the CEL
// compiler), and the handler, imported from the asset as the Lambda runtime does, serves
// requests that need each chunk. The report-delivery worker: both of its after-bundling steps ran
// (the split build with the chart aliases, the fonts and wasm copied), and its PNG renderer, loaded
// from its chunk as the handler loads it, draws a chart from the asset's own fonts and wasm.
const outdir = mkdtempSync(join(tmpdir(), 'cms-split-asset-'));
let assetDir = '';
let workerDir = '';
const reportDelivery = workers.find((w) => w.name === 'report-delivery')!;

function templates(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.template.json'));
}

beforeAll(() => {
  const app = new App({
    outdir,
    context: { ...cdkJsonContext(), env: 'dev', 'aws:cdk:enable-asset-metadata': true },
  });
  new CostManagementStack(app, 'CostManagement-dev', {
    config: readDeployConfig(app.node, 'dev'),
    routes: [putEnrichment],
    queues,
    workers: [reportDelivery],
    schedules: [],
  });
  app.synth();
  const assetOf = (description: string) => {
    const functions = templates(outdir).flatMap((file) => {
      const template = JSON.parse(readFileSync(join(outdir, file), 'utf8')) as {
        Resources?: Record<
          string,
          { Type: string; Properties: { Description?: string }; Metadata?: Record<string, string> }
        >;
      };
      return Object.values(template.Resources ?? {}).filter(
        (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === description,
      );
    });
    expect(functions).toHaveLength(1);
    return join(outdir, functions[0]?.Metadata?.['aws:asset:path'] ?? 'missing');
  };
  assetDir = assetOf('PUT /enrichments/{name}');
  workerDir = assetOf(`Worker report-delivery (queue ${reportDelivery.queue})`);
}, 300_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the asset of a function built with code splitting', () => {
  it('is the split entry list', () => {
    expect(SPLIT_ENTRIES).toContain(`functions/http/${putEnrichment.entry}.ts`);
    expect(SPLIT_ENTRIES).toContain(`functions/${reportDelivery.entry}.ts`);
  });

  it('holds index.mjs and the lazy chunks of the YAML parser and the CEL compiler, loaded by dynamic import', () => {
    const chunks = readdirSync(join(assetDir, 'chunks'));
    const yaml = chunks.find((c) => c.startsWith('yaml-codec-'));
    const cel = chunks.find((c) => c.startsWith('conditions-'));
    expect({ yaml, cel }).toEqual({ yaml: expect.any(String), cel: expect.any(String) });
    const index = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    expect(index).toContain(`import("./chunks/${yaml}")`);
    expect(index).toContain(`import("./chunks/${cel}")`);
    // The parser and the compiler are not in the entry: it is well under the two chunks' size.
    const size = (f: string) => statSync(join(assetDir, f)).size;
    expect(size('index.mjs')).toBeLessThan(size(`chunks/${yaml}`) + size(`chunks/${cel}`) + 200_000);
    expect(index).not.toContain('Map keys must be unique'); // a message of the yaml package
  });

  it('serves YAML bodies and CEL conditions from the asset (each request loads its chunk)', () => {
    const s = session();
    const name = `split-${Date.now().toString(36)}`;
    const bad = { ...sampleDocument({ name }), conditions: 'input.NotAColumn == "x"' };
    const requests = [
      { type: 'application/yaml', body: 'name: [unclosed' },
      { type: 'application/json', body: JSON.stringify(bad) },
      { type: 'application/yaml', body: toYaml(bad) },
    ];
    const script = `
      const { handler } = await import('./index.mjs');
      const out = [];
      for (const r of JSON.parse(process.env.REQUESTS)) {
        const event = {
          version: '2.0', routeKey: 'PUT /enrichments/{name}', rawPath: '/enrichments/${name}',
          rawQueryString: '', headers: { 'content-type': r.type, authorization: 'Bearer ' + process.env.API_KEY }, pathParameters: { name: '${name}' },
          body: r.body, isBase64Encoded: false,
          requestContext: {
            requestId: 'split-test', http: { method: 'PUT', path: '/enrichments/${name}' },
          },
        };
        const res = await handler(event, { awsRequestId: 'split-test', getRemainingTimeInMillis: () => 10000 });
        out.push({ statusCode: res.statusCode, body: JSON.parse(res.body) });
      }
      process.stdout.write(JSON.stringify(out));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: assetDir,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        TABLE_NAME: s.tableName,
        DYNAMODB_ENDPOINT: s.endpoints.dynamodb,
        REQUESTS: JSON.stringify(requests),
        // The route verifies its credential itself (no gateway authorizer): the admin's API key.
        API_KEY: s.apiKeys.admin,
      },
    });
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
    const [yamlError, celJson, celYaml] = JSON.parse(child.stdout) as {
      statusCode: number;
      body: { error: string };
    }[];
    expect(yamlError?.statusCode).toBe(400);
    expect(yamlError?.body.error).not.toMatch(/Unsupported Media Type|INTERNAL/);
    const cel = {
      statusCode: 400,
      body: { error: 'Invalid body: conditions: unknown field input.NotAColumn' },
    };
    expect(celJson).toEqual(cel);
    expect(celYaml).toEqual(cel);
  });
});

describe('the asset of the report-delivery worker (code splitting and chart assets)', () => {
  const chunkFiles = () => readdirSync(join(workerDir, 'chunks')).filter((c) => c.endsWith('.mjs'));
  const read = (f: string) => readFileSync(join(workerDir, f), 'utf8');

  it('holds a small index.mjs, the renderers in lazy chunks with brotli stubbed, and the fonts and wasm', () => {
    const index = read('index.mjs');
    const chunks = chunkFiles();
    const chunkBytes = chunks.reduce((a, c) => a + statSync(join(workerDir, 'chunks', c)).size, 0);
    // ECharts, zrender, resvg, pdfkit, fontkit and nodemailer are in chunks, not in the entry.
    expect(index.length).toBeLessThan(chunkBytes);
    expect(index).not.toContain('__ec_inner_'); // an ECharts internal property
    expect(index).not.toMatch(/PDFDocument|WinAnsiEncoding/);
    // The chart alias reached the split build: fontkit's brotli is the stub, not the decoder.
    const stubbed = chunks.filter((c) => read(`chunks/${c}`).includes('WOFF2 fonts are not supported here'));
    expect(stubbed).toHaveLength(1);
    for (const f of ['assets/fonts/DejaVuSans.ttf', 'assets/fonts/DejaVuSans-Bold.ttf', 'assets/resvg.wasm'])
      expect(statSync(join(workerDir, f)).size).toBeGreaterThan(100_000);
  });

  it('imports its handler and renders a chart PNG from its own chunk, fonts and wasm', () => {
    const spec = buildChartSpec({
      title: 'Daily cost (₩ and $)',
      chartType: 'BAR',
      currency: 'USD',
      stamp: ['Period 2024-10-01 – 2024-10-03'],
      series: [
        {
          name: 'aws',
          total: 6,
          points: ['2024-10-01', '2024-10-02', '2024-10-03'].map((date, i) => ({ date, value: i + 1 })),
        },
      ],
    });
    const script = `
      import { readdirSync } from 'node:fs';
      const { handler } = await import('./index.mjs');
      if (typeof handler !== 'function') throw new Error('no handler');
      const found = [];
      for (const c of readdirSync('chunks').filter((f) => f.endsWith('.mjs'))) {
        const m = await import('./chunks/' + c);
        // The rasteriser (chartSvg beside chartPng), not the seam that loads it on the first chart.
        if (typeof m.chartSvg === 'function' && typeof m.chartPng === 'function') found.push(m.chartPng);
      }
      if (found.length !== 1) throw new Error('the rasteriser in ' + found.length + ' chunks');
      const png = await found[0](JSON.parse(process.env.SPEC));
      process.stdout.write(Buffer.from(png).toString('base64'));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: workerDir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'us-east-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        TABLE_NAME: 'cost-management',
        // As in a Lambda: the fonts and the wasm are read from the task root only.
        LAMBDA_TASK_ROOT: workerDir,
        SPEC: JSON.stringify(spec),
      },
    });
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
    const png = Buffer.from(child.stdout, 'base64');
    expect(isValidPng(png)).toBe(true);
    // Drawn at the renderer's scale: 800×420 at 2×.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1600, 840]);
  });
});
