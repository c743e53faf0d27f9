import { createHash } from 'node:crypto';
import { safeName } from '../sql/quote';

/**
 * Per-organisation objects of the DuckDB warehouse: the enriched table (billing rows plus
 * materialised labels and enrichment columns, rebuilt by a full refresh) and the view over it
 * that adds the virtual dimensions (replaced by a light refresh). Names are derived from the org
 * id (readable part plus a hash, so two ids that sanitise alike cannot collide).
 */
export function orgObjects(orgId: string): { table: string; view: string } {
  const readable = orgId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 32);
  const hash = createHash('sha256').update(orgId).digest('hex').slice(0, 8);
  return { table: safeName(`e_${readable}_${hash}`), view: safeName(`v_${readable}_${hash}`) };
}
