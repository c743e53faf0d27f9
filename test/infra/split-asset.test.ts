import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { SPLIT_ENTRIES } from '../../infra/bundling';
import { readDeployConfig } from '../../infra/constructs/deploy-config';
import { CostManagementStack } from '../../infra/stack';
import { toYaml } from '../../shared/domain/enrichments/yaml-text';
import { queues } from '../../shared/queues';
import { putEnrichment } from '../../shared/routes/enrichments';
import { session } from '../support/session';
import { sampleDocument } from '../unit/enrichments/fixtures';
import { cdkJsonContext } from './support';

// A real synth (bundling on) of PUT /enrichments/{name}, the function built with code splitting:
// its asset holds `index.mjs` and the chunks of what it imports lazily (the YAML parser, the CEL
// compiler), and the handler, imported from the asset as the Lambda runtime does, serves
// requests that need each chunk.
const outdir = mkdtempSync(join(tmpdir(), 'cms-split-asset-'));
let assetDir = '';

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
    workers: [],
    schedules: [],
  });
  app.synth();
  const functions = templates(outdir).flatMap((file) => {
    const template = JSON.parse(readFileSync(join(outdir, file), 'utf8')) as {
      Resources?: Record<
        string,
        { Type: string; Properties: { Description?: string }; Metadata?: Record<string, string> }
      >;
    };
    return Object.values(template.Resources ?? {}).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === 'PUT /enrichments/{name}',
    );
  });
  expect(functions).toHaveLength(1);
  assetDir = join(outdir, functions[0]?.Metadata?.['aws:asset:path'] ?? 'missing');
}, 180_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the asset of a function built with code splitting', () => {
  it('is the split entry list', () => {
    expect(SPLIT_ENTRIES).toContain(`functions/http/${putEnrichment.entry}.ts`);
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
