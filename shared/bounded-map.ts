/**
 * Puts `value` under `key` as the newest entry of a bounded map (insertion order is age): the
 * oldest entry leaves when the map passes `bound`. Every in-process cache keeps its entries this
 * way: the explorer's forecast, the budget status, and the API-key identities of the routes'
 * credential check and of the identity provider's introspection.
 */
export function remember<V>(cache: Map<string, V>, key: string, value: V, bound: number): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > bound) cache.delete(cache.keys().next().value as string);
}
