import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { handler as teamSyncWorker } from '../../../functions/workers/team-sync';
import { getTeamOperation } from '../../../shared/db/team-operations-repo';
import { addTeamMember, getTeamConsistent, readMembership } from '../../../shared/db/teams-repo';
import type { Invitation } from '../../../shared/domain/teams/invitations';
import {
  deleteTeamFromRoute,
  readTeamOperation,
  routeSyncDeps,
  runTeamOperation,
  type TeamOperationMessage,
} from '../../../shared/domain/teams/operations';
import { type SyncDeps, syncTeam } from '../../../shared/domain/teams/sync';
import { ShapedError } from '../../../shared/errors';
import { suiteQueue } from '../../support/sqs';
import { adminOf, recordingInvitations, seedOrg } from './support';

// The queued path of team sync and team delete against DynamoDB Local and fauxqs: the route part
// hands off (lock, operation item, outbox, message on a queue of this test's own, so the local
// stack's poller does not take it), and the worker handler runs the message it received.

const sqs = new SQSClient({ endpoint: process.env.SQS_ENDPOINT, region: 'us-east-1' });
const run = Math.random().toString(36).slice(2, 8);
let n = 0;
const orgId = () => `org_ops${run}${++n}`;
const queueUrl = suiteQueue(sqs, `team-ops-test-${run}`, 'QUEUE_URL_TEAM_OPERATIONS');

/**
 * The route's deps with the test's invitation sender. The hand-off tests lower the inline limit to
 * one transaction (98 items), so 55-60 members are queued; `realLimits` keeps the route's own.
 */
const ONE_TRANSACTION = { items: 98, invitations: 40 };
function routeDeps(sent: Invitation[] = [], inlineLimits = ONE_TRANSACTION): SyncDeps {
  return {
    ...routeSyncDeps(),
    invitations: recordingInvitations(sent),
    inlineLimits,
  };
}
const realLimits = () => routeSyncDeps().inlineLimits;

/** Members given by user id. */
const asUsers = (ids: string[]) => ids.map((userId) => ({ userId }));

/** Syncs team `team_t` of `org` to `members`, as the organisation's admin, with `deps`. */
const syncMembers = (org: string, members: ({ userId: string } | { email: string })[], deps: SyncDeps) =>
  syncTeam(adminOf(org), 'team_t', { members }, deps);

/** Receives what the route sent to the queue, as the event source mapping would deliver it. */
async function receive(expected: number): Promise<SQSEvent> {
  const records: SQSEvent['Records'] = [];
  for (let i = 0; i === 0 || (i < 20 && records.length < expected); i++) {
    const res = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl(),
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        // A message received here is handled (or dropped) by the test and never deleted: hidden for
        // the rest of the suite, it cannot come back into a later test's receive when the machine
        // is slow enough for the default 30 s to run out.
        VisibilityTimeout: 900,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    for (const m of res.Messages ?? []) {
      records.push({
        messageId: m.MessageId ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        body: m.Body ?? '',
        attributes: {
          ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
          SentTimestamp: '0',
          SenderId: 'test',
          ApproximateFirstReceiveTimestamp: '0',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:team-operations',
        awsRegion: 'us-east-1',
      });
    }
  }
  return { Records: records };
}

describe('queued team sync', () => {
  it('a change past one transaction is handed off: lock, PENDING operation, one message; the worker applies it', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 60);
    const body = { members: [...asUsers(ids), { email: 'new.hire@example.org' }] };
    const sent: Invitation[] = [];

    const result = await syncTeam(adminOf(org), 'data platform', body, routeDeps(sent));
    expect(result).toEqual({ success: true, status: 'PENDING', syncId: expect.stringMatching(/^sync_/) });
    const syncId = (result as { syncId: string }).syncId;
    // Nothing applied yet, no invitation sent; the team is locked for this payload.
    const before = await readMembership(org, 'team_t');
    expect(before.members).toHaveLength(0);
    expect(before.lock?.opId).toBe(syncId);
    expect(sent).toHaveLength(0);
    expect(await readTeamOperation(adminOf(org), 'team_t', syncId)).toMatchObject({
      operationId: syncId,
      kind: 'sync',
      status: 'PENDING',
      summary: null,
    });

    // The same request again: the same operation, nothing new queued.
    expect(await syncTeam(adminOf(org), 'team_t', body, routeDeps(sent))).toEqual(result);
    // Another member list meanwhile: refused, the team is being synced.
    const other = await syncMembers(org, [{ userId: 'user_0' }], routeDeps()).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(ShapedError);
    expect((other as ShapedError).body()).toMatchObject({ error: 'SYNC_IN_PROGRESS' });

    const event = await receive(1);
    expect(event.Records).toHaveLength(1);
    expect(JSON.parse(event.Records[0]!.body)).toEqual({ orgId: org, teamId: 'team_t', operationId: syncId });
    // Runs the worker core with the test's invitation sender (the real one would call the IdP).
    const message = JSON.parse(event.Records[0]!.body) as TeamOperationMessage;
    const run1 = await runTeamOperation(message, {
      now: () => new Date(),
      lastAttempt: false,
      syncDeps: routeDeps(sent),
    });
    expect(run1).toBe('SUCCEEDED');
    const after = await readMembership(org, 'team_t');
    expect(after.members.map((m) => m.userId).sort()).toEqual([...ids].sort());
    expect(after.invites.map((i) => i.email)).toEqual(['new.hire@example.org']);
    expect(after.lock).toBeUndefined();
    expect(after.version).toBe(1);
    expect(sent.map((i) => i.email)).toEqual(['new.hire@example.org']);
    expect(await readTeamOperation(adminOf(org), 'Data Platform', syncId)).toMatchObject({
      status: 'SUCCEEDED',
      summary: { added: 60, removed: 0, invited: 1 },
      error: null,
    });

    // A redelivery changes nothing (the worker handler itself, as Lambda would call it).
    const again = await teamSyncWorker(event);
    expect(again.batchItemFailures).toEqual([]);
    expect((await readMembership(org, 'team_t')).version).toBe(1);
    expect(sent).toHaveLength(1);
    // And the same payload posted after it finished is an empty plan answered inline.
    expect(await syncTeam(adminOf(org), 'team_t', body, routeDeps(sent))).toEqual({ success: true });
  });

  it('a change past one transaction but within the route limits is applied in the request, chunked, with the spec body', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 300);
    const sent: Invitation[] = [];
    const invitees = Array.from({ length: 5 }, (_, i) => `hire${i}@example.org`);
    const body = { members: [...asUsers(ids), ...invitees.map((email) => ({ email }))] };
    expect(realLimits().items).toBeGreaterThanOrEqual(4000);
    const result = await syncTeam(adminOf(org), 'team_t', body, routeDeps(sent, realLimits()));
    expect(result).toEqual({ success: true });
    const after = await readMembership(org, 'team_t');
    expect(after.members.map((m) => m.userId).sort()).toEqual([...ids].sort());
    expect(after.invites.map((i) => i.email).sort()).toEqual([...invitees].sort());
    expect(after.lock).toBeUndefined();
    expect(after.version).toBe(1);
    expect(sent.map((i) => i.email).sort()).toEqual([...invitees].sort());
    // Nothing was queued.
    expect((await receive(0)).Records).toEqual([]);
    // Replacing most of the list (250 removed, 250 added back later) is applied in the request too.
    const half = await syncMembers(org, asUsers(ids.slice(0, 50)), routeDeps(sent, realLimits()));
    expect(half).toEqual({ success: true });
    const later = await readMembership(org, 'team_t');
    expect(later.members.map((m) => m.userId).sort()).toEqual(ids.slice(0, 50).sort());
    expect(later.invites).toEqual([]);
    expect(later.version).toBe(2);
  });

  it('more new invitations than the route sends in a request are handed off', async () => {
    const org = orgId();
    await seedOrg(org, 1);
    const limits = realLimits();
    const invitees = Array.from({ length: limits.invitations + 1 }, (_, i) => `bulk${i}@example.org`);
    const sent: Invitation[] = [];
    const result = await syncMembers(
      org,
      invitees.map((email) => ({ email })),
      routeDeps(sent, limits),
    );
    expect(result).toEqual({ success: true, status: 'PENDING', syncId: expect.stringMatching(/^sync_/) });
    expect(sent).toEqual([]);
    expect((await receive(1)).Records).toHaveLength(1);
  });

  it('a change within one transaction is still applied in the request, with the spec body', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 5);
    const result = await syncMembers(org, asUsers(ids), routeDeps());
    expect(result).toEqual({ success: true });
    expect((await readMembership(org, 'team_t')).members).toHaveLength(5);
    expect((await receive(0)).Records).toHaveLength(0);
  });

  it('a queued sync that fails for a reason the route would answer is FAILED with that body, and frees the team', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 55);
    const body = { members: [...asUsers(ids), { email: 'x@example.org' }] };
    const result = await syncTeam(adminOf(org), 'team_t', body, routeDeps());
    const syncId = (result as { syncId: string }).syncId;
    const event = await receive(1);
    const message = JSON.parse(event.Records[0]!.body) as TeamOperationMessage;
    const failing: SyncDeps = {
      ...routeDeps(),
      invitations: {
        configured: true,
        send: async () => {
          throw Object.assign(new Error('IdP said no'), { name: 'InvitationError' });
        },
      },
    };
    expect(
      await runTeamOperation(message, { now: () => new Date(), lastAttempt: false, syncDeps: failing }),
    ).toBe('FAILED');
    const op = await readTeamOperation(adminOf(org), 'team_t', syncId);
    expect(op).toMatchObject({ status: 'FAILED', error: { error: 'INVITATION_FAILED' } });
    const m = await readMembership(org, 'team_t');
    expect(m.members).toHaveLength(0);
    expect(m.lock).toBeUndefined();
    // Finished is final: running it again changes nothing.
    expect(await runTeamOperation(message, { now: () => new Date(), lastAttempt: false })).toBe('FAILED');
  });

  it('an unexpected failure is retried (reported to SQS) and recorded FAILED on the last delivery', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 55);
    const result = await syncMembers(org, asUsers(ids), routeDeps());
    const syncId = (result as { syncId: string }).syncId;
    const message = JSON.parse((await receive(1)).Records[0]!.body) as TeamOperationMessage;
    const broken: SyncDeps = {
      ...routeDeps(),
      readMembership: async () => {
        throw new Error('DynamoDB unavailable');
      },
    };
    await expect(
      runTeamOperation(message, { now: () => new Date(), lastAttempt: false, syncDeps: broken }),
    ).rejects.toThrow('DynamoDB unavailable');
    expect((await getTeamOperation(org, 'team_t', syncId))?.status).toBe('RUNNING');
    await expect(
      runTeamOperation(message, { now: () => new Date(), lastAttempt: true, syncDeps: broken }),
    ).rejects.toThrow('DynamoDB unavailable');
    expect(await getTeamOperation(org, 'team_t', syncId)).toMatchObject({
      status: 'FAILED',
      error: { error: 'INTERNAL_SERVER_ERROR' },
    });
    expect((await readMembership(org, 'team_t')).lock).toBeUndefined();
  });

  it('a malformed message is a batch item failure, and an unknown operation is acknowledged', async () => {
    const base = (await receive(0)).Records;
    expect(base).toHaveLength(0);
    const record = (body: string, messageId: string) =>
      ({
        messageId,
        receiptHandle: '',
        body,
        attributes: { ApproximateReceiveCount: '1' },
      }) as unknown as SQSEvent['Records'][number];
    const res = await teamSyncWorker({
      Records: [
        record('not json', 'm1'),
        record(JSON.stringify({ orgId: orgId(), teamId: 'team_x', operationId: 'sync_gone' }), 'm2'),
      ],
    });
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
  });
});

describe('queued team delete', () => {
  it('a team past one transaction of removals is hidden at once and emptied by the worker', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 60);
    for (const id of ids) await addTeamMember(org, 'team_t', id);
    const result = await deleteTeamFromRoute(adminOf(org), 'Data Platform');
    expect(result).toEqual({ id: 'team_t', deleted: true, status: 'PENDING', operationId: 'tdel_team_t' });
    // Hidden from reads and syncs already; memberships still there until the worker runs.
    expect((await getTeamConsistent(org, 'team_t'))?.deletingAt).toEqual(expect.any(String));
    expect((await readMembership(org, 'team_t')).members).toHaveLength(60);
    // A repeated DELETE answers the same operation.
    expect(await deleteTeamFromRoute(adminOf(org), 'team_t')).toEqual(result);

    const event = await receive(1);
    expect(event.Records).toHaveLength(1);
    expect((await teamSyncWorker(event)).batchItemFailures).toEqual([]);
    expect(await getTeamConsistent(org, 'team_t')).toBeUndefined();
    expect((await readMembership(org, 'team_t')).members).toHaveLength(0);
    expect(await readTeamOperation(adminOf(org), 'team_t', 'tdel_team_t')).toMatchObject({
      kind: 'delete',
      status: 'SUCCEEDED',
    });
    // Redelivered: nothing left to do, still SUCCEEDED.
    expect((await teamSyncWorker(event)).batchItemFailures).toEqual([]);
  });

  it('a small team is deleted in the request, as before', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 3);
    for (const id of ids) await addTeamMember(org, 'team_t', id);
    expect(await deleteTeamFromRoute(adminOf(org), 'team_t')).toEqual({ id: 'team_t', deleted: true });
    expect(await getTeamConsistent(org, 'team_t')).toBeUndefined();
    expect((await receive(0)).Records).toHaveLength(0);
  });

  it('an operation of another organisation is not found', async () => {
    const org = orgId();
    await seedOrg(org, 1);
    await expect(readTeamOperation(adminOf(orgId()), 'team_t', 'tdel_team_t')).rejects.toThrow('NOT_FOUND');
  });
});
