import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryStatus, Report, ReportDelivery } from '../model/reports';
import { db, tableName } from './client';
import { defineEntity } from './entity';
import { getItem, queryDue } from './items';
import { DUE_SHARDS, keys, stripKeys } from './keys';
import { type Page, queryNewest, scanPage } from './page';
import { upgradeWidgets } from './reports-legacy';
import { conditionHeld, ifConditionFails } from './writes';

/**
 * Schema version 2: widgets carry the reference product's names (see reports-legacy.ts) and the
 * report has `nextRunAt`. A report sits on the due index (`DUE#<shard>` / nextRunAt) exactly when
 * it has a next run. The reports domain gives a next run only to a report the sweep should deliver
 * (`isDeliverable` in domain/reports/schedule.ts: ACTIVE, scheduled, not archived) and clears it
 * otherwise; anything without one has no GSI2 keys at all.
 */
const reports = defineEntity<Report>({
  name: 'report',
  schemaVersion: 2,
  key: (report) => keys.report(report.organizationId, report.id),
  indexes: (report) => ({
    ...keys.reportsIndex(report.organizationId, `${report.updatedAt}#${report.id}`),
    ...(report.nextRunAt ? keys.reportDue(report.id, report.nextRunAt) : {}),
  }),
  read: (item) => {
    const report = upgradeWidgets(stripKeys(item)) as unknown as Report;
    return { ...report, nextRunAt: report.nextRunAt ?? null };
  },
});
const fromItem = reports.read;

/** One delivery record per (run, destination): written through `SET` by its claim. */
const deliveries = defineEntity<never>({ name: 'reportDelivery', schemaVersion: 1 });

export async function getReport(
  orgId: string,
  reportId: string,
  opts: { consistent?: boolean } = {},
): Promise<Report | undefined> {
  return getItem(keys.report(orgId, reportId), fromItem, opts);
}

export async function insertReport(report: Report): Promise<void> {
  await reports.insert(report);
}

/** Replaces a report only if the stored version is still `expectedVersion`; otherwise a 409. */
export async function replaceReport(report: Report, expectedVersion: number): Promise<void> {
  await reports.replace(report, expectedVersion);
}

/** Reports of an organisation, most recently updated first. */
export async function listReports(orgId: string, limit: number, cursor?: string): Promise<Page<Report>> {
  return queryNewest(keys.reportsIndex(orgId, ''), { limit, cursor }, fromItem);
}

export interface DueReport {
  orgId: string;
  reportId: string;
  nextRunAt: string;
}

/**
 * The reports due at `now` on every shard of the due index (a Query per shard, never a scan),
 * oldest first. The index is eventually consistent: callers re-read each report before acting.
 */
export async function listDueReports(now: string, limitPerShard = 500): Promise<DueReport[]> {
  const out: DueReport[] = [];
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    let start: Record<string, unknown> | undefined;
    do {
      const res = await queryDue({
        shard: keys.reportDueShard(shard),
        at: now,
        limit: limitPerShard,
        start,
        attributes: ['organizationId', 'id', 'nextRunAt'],
      });
      for (const item of res.items)
        out.push({
          orgId: String(item.organizationId),
          reportId: String(item.id),
          nextRunAt: String(item.nextRunAt),
        });
      start = res.next;
    } while (start && out.length < limitPerShard * DUE_SHARDS);
  }
  return out.sort((a, b) => (a.nextRunAt < b.nextRunAt ? -1 : 1));
}

/**
 * Moves a report's next run from `runAt` to `next` (or off the due index when `next` is null), only
 * if the stored next run is still `runAt`: of two sweeps racing for the same run, one wins. The
 * version is not bumped (this is not an edit); a PATCH racing with it recomputes the schedule anyway.
 */
export async function advanceNextRun(
  report: Pick<Report, 'organizationId' | 'id'>,
  runAt: string,
  next: string | null,
): Promise<boolean> {
  return conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.report(report.organizationId, report.id),
        ...(next
          ? {
              UpdateExpression: 'SET nextRunAt = :next, gsi2sk = :next',
              ExpressionAttributeValues: { ':next': next, ':runAt': runAt },
            }
          : {
              UpdateExpression: 'SET nextRunAt = :null REMOVE gsi2pk, gsi2sk',
              ExpressionAttributeValues: { ':null': null, ':runAt': runAt },
            }),
        ConditionExpression: 'attribute_exists(pk) AND nextRunAt = :runAt',
      }),
    ),
  );
}

/**
 * Reports without a next run: among them those stored before scheduling landed (schema version 1),
 * which the migration schedules when they are deliverable. A scan, for the one-off migration only
 * (`scripts/migrate-report-schedules.ts`).
 */
export async function scanReportsWithoutNextRun(
  start?: Record<string, unknown>,
): Promise<{ items: Report[]; next: Record<string, unknown> | undefined }> {
  const filter = {
    expression: '#entity = :entity AND (attribute_not_exists(nextRunAt) OR nextRunAt = :null)',
    names: { '#entity': 'entity' },
    values: { ':entity': reports.name, ':null': null },
  };
  return scanPage(filter, start, fromItem);
}

/**
 * Gives a report its first next run and puts it on the due index, only if it still has none and
 * was not edited since it was read (an edit computes the next run itself). Not an edit: the
 * version stays.
 */
export async function setFirstNextRun(
  report: Pick<Report, 'organizationId' | 'id' | 'version'>,
  next: string,
): Promise<boolean> {
  const due = keys.reportDue(report.id, next);
  return conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.report(report.organizationId, report.id),
        UpdateExpression: 'SET nextRunAt = :next, gsi2pk = :pk, gsi2sk = :sk',
        ConditionExpression:
          'attribute_exists(pk) AND version = :v AND (attribute_not_exists(nextRunAt) OR nextRunAt = :null)',
        ExpressionAttributeValues: {
          ':next': next,
          ':pk': due.gsi2pk,
          ':sk': due.gsi2sk,
          ':v': report.version,
          ':null': null,
        },
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Delivery records: one per (run, destination), the idempotency of a run.

const destKey = (d: Pick<ReportDelivery, 'destinationType' | 'destination'>) =>
  `${d.destinationType}#${d.destination}`;

function deliveryFromItem(item: Record<string, unknown>): ReportDelivery {
  const { organizationId: _o, leaseUntil: _l, steps: _s, stepRefs: _r, ...rest } = stripKeys(item);
  return rest as unknown as ReportDelivery;
}

/** A claimed destination: the steps of it an earlier attempt already completed (e.g. Slack's message). */
export interface ClaimedDelivery {
  steps: ReadonlySet<string>;
  /** What those steps left for the later ones, by step (Slack's message: its `ts`). */
  refs: ReadonlyMap<string, string>;
}

/**
 * Claims one destination of one run before sending: creates the record as PENDING, or takes over a
 * FAILED one, or a PENDING one whose lease ran out (a worker that died mid-send). A SENT record, or
 * a PENDING one another worker holds, is not claimed: null, send nothing.
 */
export async function claimDelivery(
  orgId: string,
  d: Omit<ReportDelivery, 'status' | 'attempts' | 'error' | 'sentAt' | 'updatedAt'>,
  now: Date,
  leaseSeconds: number,
): Promise<ClaimedDelivery | null> {
  const at = now.toISOString();
  const res = await ifConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.reportDelivery(orgId, d.reportId, d.runAt, destKey(d)),
        UpdateExpression: `SET ${deliveries.envelopeSet.expression}, organizationId = :org, reportId = :rid, runAt = :runAt, #trigger = if_not_exists(#trigger, :trigger), destinationType = :dt, destination = :dest, #status = :pending, attempts = if_not_exists(attempts, :zero) + :one, #error = if_not_exists(#error, :null), sentAt = :null, updatedAt = :at, leaseUntil = :lease, stepRefs = if_not_exists(stepRefs, :noRefs)`,
        ConditionExpression:
          'attribute_not_exists(pk) OR #status = :failed OR (#status = :pending AND leaseUntil < :at)',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#trigger': 'trigger' },
        ExpressionAttributeValues: {
          ...deliveries.envelopeSet.values,
          ':org': orgId,
          ':rid': d.reportId,
          ':runAt': d.runAt,
          ':trigger': d.trigger,
          ':dt': d.destinationType,
          ':dest': d.destination,
          ':pending': 'PENDING',
          ':failed': 'FAILED',
          ':zero': 0,
          ':one': 1,
          ':null': null,
          ':at': at,
          ':lease': new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
          ':noRefs': {},
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
    () => null,
  );
  if (!res) return null;
  const steps = res.Attributes?.steps;
  const refs = res.Attributes?.stepRefs;
  return {
    steps: new Set(steps instanceof Set ? [...steps].map(String) : []),
    refs: new Map(
      Object.entries(refs && typeof refs === 'object' ? (refs as Record<string, unknown>) : {}).flatMap(
        ([step, ref]) => (typeof ref === 'string' ? [[step, ref] as const] : []),
      ),
    ),
  };
}

/**
 * Records that one step of a claimed destination is done (a string set on the record), so a retry
 * of that destination skips it: Slack's message is not posted again when only its files failed.
 * `ref`, what the step leaves for the later ones (Slack's message `ts`), goes into the record's
 * `stepRefs` map, which the claim created.
 */
export async function markDeliveryStep(
  orgId: string,
  d: Pick<ReportDelivery, 'reportId' | 'runAt' | 'destinationType' | 'destination'>,
  step: string,
  ref?: string,
): Promise<void> {
  await updateDelivery(orgId, d, {
    UpdateExpression: ref === undefined ? 'ADD steps :step' : 'ADD steps :step SET stepRefs.#step = :ref',
    ...(ref === undefined ? {} : { ExpressionAttributeNames: { '#step': step } }),
    ExpressionAttributeValues: { ':step': new Set([step]), ...(ref === undefined ? {} : { ':ref': ref }) },
  });
}

/** An update of an existing delivery record. */
async function updateDelivery(
  orgId: string,
  d: Pick<ReportDelivery, 'reportId' | 'runAt' | 'destinationType' | 'destination'>,
  update: {
    UpdateExpression: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  },
): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.reportDelivery(orgId, d.reportId, d.runAt, destKey(d)),
      ConditionExpression: 'attribute_exists(pk)',
      ...update,
    }),
  );
}

/** Records the outcome of a claimed send. */
export async function finishDelivery(
  orgId: string,
  d: Pick<ReportDelivery, 'reportId' | 'runAt' | 'destinationType' | 'destination'>,
  outcome: { status: Exclude<DeliveryStatus, 'PENDING'>; error: string | null; at: Date },
): Promise<void> {
  const at = outcome.at.toISOString();
  await updateDelivery(orgId, d, {
    UpdateExpression: 'SET #status = :s, #error = :e, sentAt = :sent, updatedAt = :at REMOVE leaseUntil',
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
    ExpressionAttributeValues: {
      ':s': outcome.status,
      ':e': outcome.error,
      ':sent': outcome.status === 'SENT' ? at : null,
      ':at': at,
    },
  });
}

/** A report's delivery records, newest run first. */
export async function listDeliveries(
  orgId: string,
  reportId: string,
  limit: number,
  cursor?: string,
): Promise<Page<ReportDelivery>> {
  return queryNewest(keys.reportDeliveriesListing(orgId, reportId), { limit, cursor }, deliveryFromItem);
}
