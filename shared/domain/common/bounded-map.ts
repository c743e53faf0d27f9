/**
 * Puts `value` under `key` as the newest entry of a bounded map (insertion order is age): the
 * oldest entry leaves when the map passes `bound`. The in-process caches of the forecast and the
 * budget status keep their entries this way.
 */
export function remember<V>(cache: Map<string, V>, key: string, value: V, bound: number): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > bound) cache.delete(cache.keys().next().value as string);
}
