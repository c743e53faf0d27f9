import type { WarehouseQueries } from '../../shared/warehouse/port';

/** The warehouse port, its calls counted by method into `calls` (the real adapter answers them). */
export function countingWarehouse(real: WarehouseQueries, calls: Map<string, number>): WarehouseQueries {
  return new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
}
