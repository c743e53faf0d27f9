import type { Principal } from '../../auth/principal';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import { getWarehouseQueries } from '../../warehouse/queries';
import type { CommitmentTerms } from '../../warehouse/sql/commitments';
import { localDay } from '../alerts/dedup';
import { DAY_MS, dayMs, ymd } from '../queries/period';
import type { ExpiringCommitmentSource } from './ports';
import { commitmentInventory } from './service';

export interface Expiring {
  today: string;
  withinDays: number;
  items: (Omit<CommitmentTerms, 'firstDay' | 'lastDay'> & { daysLeft: number; lastChargeDay: string })[];
}

/**
 * GET /commitments/expiring: the commitments whose term ends between today (the organisation's
 * day) and `withinDays` days later, soonest first; a commitment whose export gives no end is not
 * listed (docs/commitments.md).
 */
export async function expiringCommitments(
  principal: Principal,
  withinDays: number,
  now = new Date(),
): Promise<Expiring> {
  const orgId = principal.orgId;
  const today = localDay(now, await getOrganizationTimezone(orgId));
  const last = ymd(dayMs(today) + withinDays * DAY_MS);
  const terms = await (await getWarehouseQueries()).commitmentTerms(orgId);
  const items = terms
    .filter((t) => t.end !== null && endDay(t.end) !== null)
    .map(({ firstDay: _f, lastDay, ...t }) => {
      const end = endDay(t.end!)!;
      return { ...t, daysLeft: Math.round((dayMs(end) - dayMs(today)) / DAY_MS), lastChargeDay: lastDay };
    })
    .filter((t) => t.daysLeft >= 0 && endDay(t.end!)! <= last)
    .sort((a, b) => a.daysLeft - b.daysLeft || a.id.localeCompare(b.id));
  return { today, withinDays, items };
}

/**
 * The expiring-commitment alerts' source (`expiry-alert.ts`): the commitments ending within
 * `withinDays` days, each with its utilisation over the last 30 days (`GET /commitments` over
 * TRAILING_30_DAYS; null when it had no commitment cost there). Only read when some commitment ends.
 */
export const expiringCommitmentSource: ExpiringCommitmentSource = {
  async expiring(orgId, withinDays, now) {
    const principal: Principal = { orgId, principalId: 'alerts', kind: 'org', role: 'admin', teamIds: [] };
    const { today, items } = await expiringCommitments(principal, withinDays, now);
    const inventory = items.length
      ? await commitmentInventory(principal, { datePreset: 'TRAILING_30_DAYS' }, now)
      : { items: [] };
    const utilization = new Map(inventory.items.map((i) => [i.id, i.utilization]));
    return {
      today,
      items: items.map((c) => ({
        id: c.id,
        name: c.name,
        provider: c.provider,
        type: c.type,
        endDay: endDay(c.end!)!,
        daysLeft: c.daysLeft,
        hourlyCommitment: c.hourlyCommitment,
        utilization: utilization.get(c.id) ?? null,
      })),
    };
  },
};

/** The UTC calendar day a term ends on (`2025-01-14T23:59:59Z` → `2025-01-14`), null when unreadable. */
function endDay(end: string): string | null {
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(end) ? `${end}T00:00:00Z` : end);
  return Number.isNaN(t) ? null : ymd(t);
}
