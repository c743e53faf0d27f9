/**
 * The ports of the expiring-commitment alerts (docs/architecture.md, "Dependencies of the domain"):
 * what `expiry-alert.ts` needs from the warehouse and storage. The adapters are wired in
 * `alerts/adapters/evaluate.ts` (the claims repository; the source is `expiringCommitmentSource` of
 * `service.ts`, the request path's own reads).
 */

/** One expiring commitment as the message names it. */
export interface ExpiringCommitment {
  id: string;
  name: string | null;
  provider: string | null;
  type: string | null;
  /** The last day of its term (`YYYY-MM-DD`). */
  endDay: string;
  daysLeft: number;
  /** The export's hourly commitment (billing currency), null when the export gives none. */
  hourlyCommitment: number | null;
  /** Utilisation over the last 30 days (0–1), null when it had no commitment cost there. */
  utilization: number | null;
}

/** The commitments ending within `withinDays` days of the organisation's today. */
export interface ExpiringCommitmentSource {
  expiring(
    orgId: string,
    withinDays: number,
    now: Date,
  ): Promise<{ today: string; items: ExpiringCommitment[] }>;
}

/** The claims of an alert: one per commitment and window, written once. */
export interface ExpiryClaimStore {
  /** The claims the alert holds, as `window#commitmentId`. */
  claimed(orgId: string, alertId: string): Promise<Set<string>>;
  /** The conditional write of one claim: true when this call wrote it. */
  claim(
    orgId: string,
    alertId: string,
    claim: { window: number; commitmentId: string; notificationId: string },
    now: Date,
  ): Promise<boolean>;
}
