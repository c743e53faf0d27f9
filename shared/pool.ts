/** Bounded concurrency over a list, for I/O fan-out (DynamoDB, SQS calls): one copy for the service. */

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `fn` over `items` with at most `limit` at once; every item settles, results in input order. */
export async function mapSettled<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<Settled<R>[]> {
  const out: Settled<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = { ok: true, value: await fn(items[i] as T, i) };
      } catch (error) {
        out[i] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return out;
}

/** Like `mapSettled`, but rejects with the first error (after every started call has settled). */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const settled = await mapSettled(items, limit, fn);
  const failed = settled.find((s) => !s.ok);
  if (failed && !failed.ok) throw failed.error;
  return settled.map((s) => (s as { ok: true; value: R }).value);
}
