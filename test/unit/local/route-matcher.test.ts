import { compileRoutes, matchRoute } from '../../../infra/local/route-matcher';
import { route } from '../../../shared/http/route';

const defs = [
  route({ id: 'a', method: 'GET', path: '/reports/{id}', entry: 'x', auth: 'member', tag: 't', summary: '' }),
  route({
    id: 'b',
    method: 'POST',
    path: '/reports/{id}/duplicate',
    entry: 'x',
    auth: 'member',
    tag: 't',
    summary: '',
  }),
  route({
    id: 'c',
    method: 'GET',
    path: '/dimensions/candidates',
    entry: 'x',
    auth: 'member',
    tag: 't',
    summary: '',
  }),
  route({
    id: 'd',
    method: 'GET',
    path: '/dimensions/{id}',
    entry: 'x',
    auth: 'member',
    tag: 't',
    summary: '',
  }),
];

describe('local route matching', () => {
  const compiled = compileRoutes(defs);

  it('extracts decoded path parameters', () => {
    const m = matchRoute(compiled, 'GET', '/reports/rep%20x');
    expect(m).toMatchObject({ kind: 'match', params: { id: 'rep x' } });
  });

  it('prefers literal segments over parameters, as API Gateway does', () => {
    expect(matchRoute(compiled, 'GET', '/dimensions/candidates')).toMatchObject({
      kind: 'match',
      route: { def: { id: 'c' } },
    });
    expect(matchRoute(compiled, 'GET', '/dimensions/other')).toMatchObject({
      kind: 'match',
      route: { def: { id: 'd' } },
    });
  });

  it('answers bad-request, not a crash, for a parameter that is not valid percent-encoding', () => {
    expect(matchRoute(compiled, 'GET', '/reports/%E0%A4%A').kind).toBe('bad-request');
    expect(matchRoute(compiled, 'GET', '/reports/%').kind).toBe('bad-request');
    expect(matchRoute(compiled, 'GET', '/reports/%25').kind).toBe('match');
  });

  it('tells a wrong method from an unknown path', () => {
    expect(matchRoute(compiled, 'DELETE', '/reports/1').kind).toBe('method-not-allowed');
    expect(matchRoute(compiled, 'GET', '/nope').kind).toBe('not-found');
    expect(matchRoute(compiled, 'GET', '/reports/1/extra').kind).toBe('not-found');
  });
});
