import * as v from 'valibot';
import type { OpenApiDocument } from '../../infra/openapi';
import { DuplicateReportResponse, ReportPage, ReportRecord } from '../../shared/model/report-schemas';
import { routes } from '../../shared/routes';
import { api, session } from '../support/session';

describe('GET /openapi.json on the local stack', () => {
  it('serves the document of the manifest without a credential', async () => {
    const res = await api<OpenApiDocument>('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1\./);
    expect(res.body.servers).toEqual([{ url: session().baseUrl }]);
    const ops = Object.values(res.body.paths).flatMap((item) => Object.values(item));
    expect(ops.map((op) => op.operationId).sort()).toEqual(routes.map((r) => r.id).sort());
  });

  it('documents only routes the server answers (a bad credential is a 401, never a 404)', async () => {
    const { body } = await api<OpenApiDocument>('GET', '/openapi.json');
    for (const [path, item] of Object.entries(body.paths)) {
      for (const method of Object.keys(item)) {
        const concrete = path.replace(/\{[^}]+\}/g, 'doc_probe');
        const res = await api(method.toUpperCase(), concrete, {
          token: 'not-a-credential',
          ...(method === 'get' || method === 'delete' ? {} : { body: {} }),
        });
        expect({ route: `${method} ${path}`, status: res.status, body: res.body }).toEqual({
          route: `${method} ${path}`,
          status: 401,
          body: { error: 'Unauthorized' },
        });
      }
    }
  });

  it('describes report answers as the API really sends them', async () => {
    const token = session().apiKeys.admin;
    const created = await api('POST', '/reports', {
      token,
      body: {
        name: `openapi-${Date.now()}`,
        scheduledPeriod: 'WEEKLY',
        scheduledWeekday: 2,
        widgets: [
          { type: 'TEXT', contentMarkdown: 'hello' },
          { type: 'DIGEST', groupBy: ['service'] },
        ],
        destinations: [{ destinationType: 'EMAIL', destinationValues: ['finops@example.com'] }],
      },
    });
    expect(created.status).toBe(201);
    expect(v.safeParse(ReportRecord, created.body).issues).toBeUndefined();
    const id = (created.body as { id: string }).id;

    const list = await api('GET', '/reports?limit=5', { token });
    expect(list.status).toBe(200);
    expect(v.safeParse(ReportPage, list.body).issues).toBeUndefined();

    const dup = await api('POST', `/reports/${id}/duplicate`, { token, body: { name: 'copy' } });
    expect(dup.status).toBe(201);
    expect(v.safeParse(DuplicateReportResponse, dup.body).issues).toBeUndefined();

    const archived = await api('DELETE', `/reports/${id}`, { token });
    expect(archived.status).toBe(200);
    const parsed = v.safeParse(ReportRecord, archived.body);
    expect(parsed.issues).toBeUndefined();
    expect(parsed.success && parsed.output.archivedAt).toEqual(expect.any(String));
  });
});
