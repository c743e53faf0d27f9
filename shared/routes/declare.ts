import { type HttpMethod, type RouteDef, route } from '../http/route';

/** An area of routes: the OpenAPI tag they share and their handlers' folder under `functions/http/`. */
export interface Area {
  tag: string;
  folder: string;
}

type Body = RouteDef['body'];
type Query = RouteDef['query'];
type Params = RouteDef['params'];

/** What a declaration states besides its head: `entry` names the module when it is not the id in kebab case. */
export type RouteBody<B extends Body, Q extends Query, P extends Params> = Omit<
  RouteDef<B, Q, P>,
  'id' | 'method' | 'path' | 'entry' | 'tag'
> & { entry?: string };

const kebab = (id: string) => id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Declares a route of `area`: `head` is its method and path (`'POST /budgets'`), `id` its operation
 * id. It is tagged with the area's tag, and its entry module is `<area folder>/<id in kebab case>`
 * (`budgets/create-budget`) unless `def.entry` names another module of the folder. Marked side-effect
 * free, as `route()` is, so each Lambda bundle keeps only its own route.
 */
/* @__NO_SIDE_EFFECTS__ */
export function declare<B extends Body, Q extends Query, P extends Params>(
  area: Area,
  head: `${HttpMethod} /${string}`,
  id: string,
  def: RouteBody<B, Q, P>,
): RouteDef<B, Q, P> {
  const [method, path] = head.split(' ') as [HttpMethod, string];
  const { entry, ...rest } = def;
  return route<B, Q, P>({
    id,
    method,
    path,
    entry: `${area.folder}/${entry ?? kebab(id)}`,
    tag: area.tag,
    ...rest,
  });
}
