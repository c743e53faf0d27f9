import * as v from 'valibot';
import type { Principal } from '../../auth/principal';
import { getAlert, insertAlert } from '../../db/alerts-repo';
import type { Page } from '../../db/page';
import { ConflictError, NotFoundError } from '../../errors';
import type { StoredAlert } from '../../model/alerts';
import { channelTarget } from '../alerts/rules';
import {
  AlertIdParams,
  ChannelSchema,
  CreateAlertBody,
  EmailsSchema,
  ListAlertsQuery,
  SlackChannelIdSchema,
  SnoozeBody,
  TeamsUrlSchema,
} from '../alerts/schemas';
import {
  ALERT_NOT_FOUND,
  changeAlert,
  listStoredAlertsPage,
  newAlert,
  storedAlertLifecycle,
  webhookPolicy,
} from '../alerts/service';
import { EXPIRY_WINDOWS } from './expiry-alert';

/**
 * `/alerts-v2/commitmentAlerts` (docs/commitments.md, "Expiring-commitment alerts"): an alert for
 * commitments ending within 30, 60 or 90 days, with the cost alerts' notification target and its
 * checks (EMAIL/SLACK/TEAMS, the Teams webhook's address policy). It is stored as an alert of kind
 * `COMMITMENT_EXPIRY`, so the cost alerts' due index, sweep, evaluator, archive and snooze carry it.
 */
export const CreateCommitmentAlertBody = v.strictObject({
  name: CreateAlertBody.entries.name,
  withinDays: v.picklist(EXPIRY_WINDOWS, 'must be 30, 60 or 90'),
  notificationChannel: ChannelSchema,
  emails: v.optional(EmailsSchema, []),
  slackChannelId: v.optional(v.nullable(SlackChannelIdSchema)),
  teamsChannelId: v.optional(v.nullable(TeamsUrlSchema)),
});
export type CreateCommitmentAlertInput = v.InferOutput<typeof CreateCommitmentAlertBody>;
export {
  AlertIdParams as CommitmentAlertIdParams,
  ListAlertsQuery as ListCommitmentAlertsQuery,
  SnoozeBody as CommitmentAlertSnoozeBody,
};

export const CommitmentAlertSchema = v.strictObject({
  id: v.string(),
  organizationId: v.string(),
  createdById: v.string(),
  createdAt: v.string(),
  archivedAt: v.nullable(v.string()),
  snoozedUntil: v.nullable(v.string()),
  name: v.string(),
  withinDays: v.number(),
  notificationChannel: ChannelSchema,
  emails: v.array(v.string()),
  slackChannelId: v.nullable(v.string()),
  teamsChannelId: v.nullable(v.string()),
  /** The record's version, also its `ETag`: `If-Match: "<version>"` makes a change conditional. */
  version: v.number(),
});
export type CommitmentAlert = v.InferOutput<typeof CommitmentAlertSchema>;
export const CommitmentAlertPageSchema = v.object({
  items: v.array(CommitmentAlertSchema),
  nextCursor: v.nullable(v.string()),
});

const KIND = 'COMMITMENT_EXPIRY';

export function commitmentAlertRecord(a: StoredAlert): CommitmentAlert {
  return {
    id: a.id,
    organizationId: a.organizationId,
    createdById: a.createdById,
    createdAt: a.createdAt,
    archivedAt: a.archivedAt,
    snoozedUntil: a.snoozedUntil,
    name: a.name,
    withinDays: a.expiryWithinDays ?? 30,
    notificationChannel: a.notificationChannel,
    emails: a.emails,
    slackChannelId: a.slackChannelId,
    teamsChannelId: a.teamsChannelId,
    version: a.version,
  };
}

export async function createCommitmentAlert(
  principal: Principal,
  input: CreateCommitmentAlertInput,
  now = new Date(),
): Promise<CommitmentAlert> {
  const target = channelTarget(input, webhookPolicy());
  const at = now.toISOString();
  // Stored with the cost alerts' fields it does not use left empty; due at once, then daily.
  const { alert } = newAlert(
    principal,
    {
      variant: KIND,
      urlState: '',
      name: input.name,
      description: '',
      scopeId: null,
      queryName: '',
      currency: 'USD',
      queries: [],
      evaluationPeriod: 'DAILY',
      thresholdType: 'ABOVE',
      condition: null,
      conditionAdvancedExplorerQuery: {} as StoredAlert['conditionAdvancedExplorerQuery'],
      dedupKind: null,
      dedupCalendarUnit: null,
      dedupWindowDays: null,
      notificationChannel: input.notificationChannel,
      ...target,
      minCost: null,
      tagIds: [],
      thresholds: [],
    },
    at,
    at,
  );
  const stored: StoredAlert = { ...alert, expiryWithinDays: input.withinDays };
  await insertAlert(stored, []);
  return commitmentAlertRecord(stored);
}

async function loadCommitmentAlert(orgId: string, id: string): Promise<StoredAlert> {
  const alert = await getAlert(orgId, id);
  if (!alert || alert.variant !== KIND) throw new NotFoundError(ALERT_NOT_FOUND);
  return alert;
}

/** The organisation's commitment alerts, newest first; archived ones only with `includeArchived`. */
export async function listCommitmentAlerts(
  principal: Principal,
  opts: { limit: number; cursor?: string; includeArchived: boolean },
): Promise<Page<CommitmentAlert>> {
  const page = await listStoredAlertsPage(principal.orgId, opts, (a) => a.variant === KIND);
  return { items: page.items.map(commitmentAlertRecord), nextCursor: page.nextCursor };
}

const lifecycle = storedAlertLifecycle(commitmentAlertRecord);

/** A cost-alert change applied to a commitment alert (404 for any other id): the record it wrote. */
async function changed(
  principal: Principal,
  id: string,
  change: () => Promise<{ alert: CommitmentAlert }>,
): Promise<CommitmentAlert> {
  await loadCommitmentAlert(principal.orgId, id);
  return (await change()).alert;
}

/** Archives a commitment alert (idempotent): it leaves the due index and sends nothing again. */
export async function archiveCommitmentAlert(
  principal: Principal,
  id: string,
  ifMatch?: string,
  now = new Date(),
): Promise<CommitmentAlert> {
  return changed(principal, id, () => lifecycle.archive(principal, id, ifMatch, now));
}

/** Snoozes a commitment alert: nothing is sent (nor claimed) until then. */
export async function snoozeCommitmentAlert(
  principal: Principal,
  id: string,
  until: string,
  ifMatch?: string,
  now = new Date(),
): Promise<CommitmentAlert> {
  return changed(principal, id, () => lifecycle.snooze(principal, id, until, ifMatch, now));
}

/** Ends a commitment alert's snooze (idempotent): the commitments still in their window are announced again. */
export async function unsnoozeCommitmentAlert(
  principal: Principal,
  id: string,
  ifMatch?: string,
  now = new Date(),
): Promise<CommitmentAlert> {
  return changed(principal, id, () => lifecycle.unsnooze(principal, id, ifMatch, now));
}

/**
 * Replaces a commitment alert's definition with the body (the create body): name, window and
 * notification target, checked as at creation; identity, archive and snooze state are kept.
 * `If-Match: "<version>"` makes it conditional (stale: 409 VERSION_CONFLICT); an archived alert is
 * 409 ALERT_ARCHIVED; its creator or an admin only (403), as for cost alerts. What was already
 * announced stays claimed: a wider window announces the commitments it newly holds, once.
 */
export async function updateCommitmentAlert(
  principal: Principal,
  id: string,
  input: CreateCommitmentAlertInput,
  ifMatch: string | undefined,
  now = new Date(),
): Promise<CommitmentAlert> {
  const target = channelTarget(input, webhookPolicy());
  const { alert } = await changeAlert(
    principal,
    id,
    ifMatch,
    async (current) => {
      if (current.variant !== KIND) throw new NotFoundError(ALERT_NOT_FOUND);
      if (current.archivedAt) throw new ConflictError('ALERT_ARCHIVED');
      const next: StoredAlert = {
        ...current,
        name: input.name,
        notificationChannel: input.notificationChannel,
        ...target,
        expiryWithinDays: input.withinDays,
        updatedAt: now.toISOString(),
      };
      return { next };
    },
    commitmentAlertRecord,
  );
  return alert;
}
