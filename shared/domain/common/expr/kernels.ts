import type { BinaryOp } from './parse';

// The element-wise operations of binary operators and min/max on NaN-as-null numbers.

export type Kernel = (x: number, y: number) => number;

const cmp =
  (f: (x: number, y: number) => boolean): Kernel =>
  (x, y) =>
    Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : f(x, y) ? 1 : 0;

export const KERNELS: Record<BinaryOp | 'min' | 'max', Kernel> = {
  '+': (x, y) => x + y,
  '-': (x, y) => x - y,
  '*': (x, y) => x * y,
  '/': (x, y) => (y === 0 ? Number.NaN : x / y),
  '>': cmp((x, y) => x > y),
  '>=': cmp((x, y) => x >= y),
  '<': cmp((x, y) => x < y),
  '<=': cmp((x, y) => x <= y),
  '==': cmp((x, y) => x === y),
  '!=': cmp((x, y) => x !== y),
  and: (x, y) => (x === 0 || y === 0 ? 0 : Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : 1),
  or: (x, y) =>
    (!Number.isNaN(x) && x !== 0) || (!Number.isNaN(y) && y !== 0)
      ? 1
      : Number.isNaN(x) || Number.isNaN(y)
        ? Number.NaN
        : 0,
  min: (x, y) => (Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : Math.min(x, y)),
  max: (x, y) => (Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : Math.max(x, y)),
};
