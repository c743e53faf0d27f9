/** Expiring-commitment alerts (docs/commitments.md "Expiring-commitment alerts"): the record and its words. */
import type { AlertEvaluation } from './alerts-shape';

export const WINDOWS = ['30', '60', '90'] as const;
export const CHANNELS = ['EMAIL', 'SLACK', 'TEAMS'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface CommitmentAlert {
  id: string;
  name: string;
  withinDays: number;
  notificationChannel: Channel;
  emails: string[] | null;
  slackChannelId: string | null;
  teamsChannelId: string | null;
  createdById: string;
  createdAt: string;
  archivedAt: string | null;
  snoozedUntil: string | null;
  /** Also its ETag: an edit is sent with `If-Match: "<version>"`. */
  version: number;
}

export interface CommitmentAlertInput {
  name: string;
  withinDays: number;
  notificationChannel: Channel;
  emails?: string[];
  slackChannelId?: string;
  teamsChannelId?: string;
}

/** Where it is sent, in words: "E-mail to a@b.c, d@e.f", "Slack channel C123", "Teams workflow". */
export function targetText(
  a: Pick<CommitmentAlert, 'notificationChannel' | 'emails' | 'slackChannelId' | 'teamsChannelId'>,
): string {
  if (a.notificationChannel === 'EMAIL') return `E-mail to ${(a.emails ?? []).join(', ') || '—'}`;
  if (a.notificationChannel === 'SLACK') return `Slack channel ${a.slackChannelId ?? '—'}`;
  // A Teams Workflows URL carries a signature: its host only.
  let host = '—';
  try {
    host = new URL(a.teamsChannelId ?? '').host;
  } catch {
    // Not a URL (the API refuses those): the dash.
  }
  return `Teams workflow at ${host}`;
}

/** The form's fields: what a user types to create an alert or edit one. */
export interface AlertFields {
  name: string;
  withinDays: string;
  channel: Channel;
  emails: string;
  slack: string;
  teams: string;
}

export const NEW_ALERT: AlertFields = {
  name: '',
  withinDays: '90',
  channel: 'EMAIL',
  emails: '',
  slack: '',
  teams: '',
};

/** An alert's definition as the form shows it, to edit. */
export function fieldsOf(a: CommitmentAlert): AlertFields {
  return {
    name: a.name,
    withinDays: String(a.withinDays),
    channel: a.notificationChannel,
    emails: (a.emails ?? []).join(', '),
    slack: a.slackChannelId ?? '',
    teams: a.teamsChannelId ?? '',
  };
}

/** An edit the API refused with 409, in words: someone changed it first, or it was archived meanwhile. */
export function conflictText(code: string, version: number): string {
  if (code === 'ALERT_ARCHIVED') return 'Not saved: the alert was archived meanwhile.';
  return `Not saved: someone changed this alert after version ${version} was read. Reload it and edit again.`;
}

/**
 * The create form's body: the target field of the channel chosen only (the others left out), the
 * e-mails split on commas, spaces or new lines. The API checks them (400 naming the field).
 */
export function inputOf(f: AlertFields): CommitmentAlertInput {
  const base = { name: f.name.trim(), withinDays: Number(f.withinDays), notificationChannel: f.channel };
  if (f.channel === 'EMAIL') return { ...base, emails: f.emails.split(/[\s,;]+/).filter(Boolean) };
  if (f.channel === 'SLACK') return { ...base, slackChannelId: f.slack.trim() };
  return { ...base, teamsChannelId: f.teams.trim() };
}

/** The newest evaluation that sent a message (the history is newest first), or null. */
export function lastAnnouncement(
  history: readonly Pick<AlertEvaluation, 'notificationId' | 'evaluatedAt'>[],
): string | null {
  let last: string | null = null;
  for (const e of history) if (e.notificationId && (!last || e.evaluatedAt > last)) last = e.evaluatedAt;
  return last;
}
