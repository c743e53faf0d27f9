import type { RouteDef } from '../../shared/http/route';

export interface CompiledRoute {
  def: RouteDef;
  regex: RegExp;
  names: string[];
  /** API Gateway route key, e.g. `GET /reports/{id}`. */
  routeKey: string;
}

/** Compiles API Gateway path templates; literal segments outrank parameters, as in API Gateway. */
export function compileRoutes(defs: readonly RouteDef[]): CompiledRoute[] {
  const compiled = defs.map((def) => {
    const names: string[] = [];
    const pattern = def.path
      .split('/')
      .map((segment) => {
        const m = /^\{([A-Za-z0-9_]+)\+?\}$/.exec(segment);
        if (m) {
          names.push(m[1]!);
          return '([^/]+)';
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    return { def, regex: new RegExp(`^${pattern}$`), names, routeKey: `${def.method} ${def.path}` };
  });
  const literalCount = (r: CompiledRoute) =>
    r.def.path.split('/').filter((s) => s && !s.startsWith('{')).length;
  return compiled.sort((a, b) => literalCount(b) - literalCount(a));
}

export type MatchResult =
  | { kind: 'match'; route: CompiledRoute; params: Record<string, string> }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' }
  /** A path parameter that is not valid percent-encoding (`/reports/%E0%A4%A`). */
  | { kind: 'bad-request' };

export function matchRoute(routes: CompiledRoute[], method: string, path: string): MatchResult {
  let pathMatched = false;
  for (const route of routes) {
    const m = route.regex.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (route.def.method !== method) continue;
    const params: Record<string, string> = {};
    try {
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!);
      });
    } catch {
      return { kind: 'bad-request' };
    }
    return { kind: 'match', route, params };
  }
  return pathMatched ? { kind: 'method-not-allowed' } : { kind: 'not-found' };
}
