/**
 * The single table: the one module that knows key shapes and the index list. The CDK stack and
 * the local runtime both build the table from `tableDefinition`, so they cannot drift apart.
 *
 * Every tenant item's `pk` starts with `ORG#<orgId>`, so a query built from a verified principal
 * cannot reach another organisation. The only global items are API-key lookups (by hash),
 * idempotency records (which embed the org) and the euro reference rates (`FX#EUR`, one item per
 * publication day, the same for every organisation).
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
} as const;

export type IndexName = (typeof tableDefinition.indexes)[number]['name'];

/** The index whose partition attribute is `gsi1pk` / `gsi2pk`: the one place an index is named. */
export const INDEX_ON = {
  gsi1pk: tableDefinition.indexes[0].name,
  gsi2pk: tableDefinition.indexes[1].name,
} as const satisfies Record<string, IndexName>;

/** Number of shards of the cross-tenant "due" indexes; sweeps query every shard. */
export const DUE_SHARDS = 4;

export interface ItemKey {
  pk: string;
  sk: string;
}

const org = (orgId: string) => `ORG#${orgId}`;
const REPORT_DELIVERY_PREFIX = 'DELIVERY#';

/** Stable shard for an id, so one item always lands in the same due-index shard. */
export function shardOf(id: string, shards = DUE_SHARDS): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h % shards;
}

/** Sort keys inside a principal's partition: the profile, and prefixes of team and API-key mirrors. */
const PRINCIPAL_SK = { profile: 'PROFILE', team: 'TEAM#', apiKey: 'APIKEY#' } as const;

/** What an item of a principal's partition is, from its sort key (the inverse of the `principal*` keys). */
export function principalItemOf(
  sk: string,
): { kind: 'profile' } | { kind: 'team' | 'apiKey'; id: string } | { kind: 'other' } {
  if (sk === PRINCIPAL_SK.profile) return { kind: 'profile' };
  if (sk.startsWith(PRINCIPAL_SK.team)) return { kind: 'team', id: sk.slice(PRINCIPAL_SK.team.length) };
  if (sk.startsWith(PRINCIPAL_SK.apiKey)) return { kind: 'apiKey', id: sk.slice(PRINCIPAL_SK.apiKey.length) };
  return { kind: 'other' };
}

/** Every forecast-answer partition (`keys.forecastAnswer`), as an IAM `dynamodb:LeadingKeys` pattern. */
export const FORECAST_PARTITION_PATTERN = 'FORECAST#*';

export const keys = {
  /** The euro reference rates: one partition, one item per publication day (sort key `YYYY-MM-DD`). */
  fxRatesPartition: 'FX#EUR',
  fxRateDay: (day: string): ItemKey => ({ pk: 'FX#EUR', sk: day }),

  organization: (orgId: string): ItemKey => ({ pk: org(orgId), sk: 'META' }),

  /** A principal's partition: profile, team-membership mirrors and API-key status mirrors, read in one query per request. */
  principalPartition: (orgId: string, principalId: string) => `${org(orgId)}#P#${principalId}`,
  principalProfile: (orgId: string, principalId: string): ItemKey => ({
    pk: keys.principalPartition(orgId, principalId),
    sk: PRINCIPAL_SK.profile,
  }),
  principalTeam: (orgId: string, principalId: string, teamId: string): ItemKey => ({
    pk: keys.principalPartition(orgId, principalId),
    sk: `${PRINCIPAL_SK.team}${teamId}`,
  }),
  principalKey: (orgId: string, principalId: string, keyId: string): ItemKey => ({
    pk: keys.principalPartition(orgId, principalId),
    sk: `${PRINCIPAL_SK.apiKey}${keyId}`,
  }),
  /** GSI1 of a user profile: look a user up by e-mail within the org. */
  userByEmail: (orgId: string, email: string) => ({
    gsi1pk: `${org(orgId)}#EMAIL`,
    gsi1sk: email.toLowerCase(),
  }),
  usersIndex: (orgId: string) => ({ gsi2pk: `${org(orgId)}#USERS` }),

  team: (orgId: string, teamId: string): ItemKey => ({ pk: org(orgId), sk: `TEAM#${teamId}` }),
  teamByName: (orgId: string, name: string) => ({
    gsi1pk: `${org(orgId)}#TEAMNAME`,
    gsi1sk: name.toLowerCase(),
  }),
  teamMember: (orgId: string, teamId: string, principalId: string): ItemKey => ({
    pk: `${org(orgId)}#TEAM#${teamId}`,
    sk: `MEMBER#${principalId}`,
  }),
  teamMembersPartition: (orgId: string, teamId: string) => `${org(orgId)}#TEAM#${teamId}`,
  scope: (orgId: string, scopeId: string): ItemKey => ({ pk: org(orgId), sk: `SCOPE#${scopeId}` }),
  orgPartition: (orgId: string) => org(orgId),

  apiKeyLookup: (hash: string): ItemKey => ({ pk: `APIKEY#${hash}`, sk: 'KEY' }),
  apiKeysIndex: (orgId: string, createdAt: string) => ({
    gsi1pk: `${org(orgId)}#APIKEYS`,
    gsi1sk: createdAt,
  }),

  report: (orgId: string, reportId: string): ItemKey => ({
    pk: `${org(orgId)}#REPORT#${reportId}`,
    sk: 'META',
  }),
  reportsIndex: (orgId: string, updatedAt: string) => ({
    gsi1pk: `${org(orgId)}#REPORTS`,
    gsi1sk: updatedAt,
  }),
  reportDue: (reportId: string, nextRunAt: string) => ({
    gsi2pk: keys.reportDueShard(shardOf(reportId)),
    gsi2sk: nextRunAt,
  }),
  /** The GSI2 partition of one shard of the report due index, for the sweep. */
  reportDueShard: (shard: number) => `DUE#${shard}`,
  reportDelivery: (orgId: string, reportId: string, runAt: string, destination: string): ItemKey => ({
    pk: `${org(orgId)}#REPORT#${reportId}`,
    sk: `${REPORT_DELIVERY_PREFIX}${runAt}#${destination}`,
  }),
  /** A report's delivery records: `begins_with(sk, prefix)` on the report's partition. */
  reportDeliveriesListing: (orgId: string, reportId: string) => ({
    pk: `${org(orgId)}#REPORT#${reportId}`,
    skPrefix: REPORT_DELIVERY_PREFIX,
  }),

  dashboard: (orgId: string, dashboardId: string): ItemKey => ({
    pk: `${org(orgId)}#DASH#${dashboardId}`,
    sk: 'META',
  }),
  dashboardsIndex: (orgId: string, updatedAt: string) => ({
    gsi1pk: `${org(orgId)}#DASHES`,
    gsi1sk: updatedAt,
  }),
  dashboardVersionPart: (orgId: string, dashboardId: string, version: number, part: number): ItemKey => ({
    pk: `${org(orgId)}#DASH#${dashboardId}`,
    sk: `V#${String(version).padStart(6, '0')}#P#${String(part).padStart(4, '0')}`,
  }),
  /** Sort-key prefix of one version's parts, for a `begins_with` query. */
  dashboardVersionPartsPrefix: (version: number) => `V#${String(version).padStart(6, '0')}#P#`,
  /** A version's small head item (who, when, widget count, part count): the history list reads only these. */
  dashboardVersionHead: (orgId: string, dashboardId: string, version: number): ItemKey => ({
    pk: `${org(orgId)}#DASH#${dashboardId}`,
    sk: `VH#${String(version).padStart(6, '0')}`,
  }),
  dashboardVersionHeadPrefix: 'VH#',

  /** A budget's current record (`META`) and its saved versions (`V#000001`…) share one partition. */
  budget: (orgId: string, budgetId: string): ItemKey => ({
    pk: `${org(orgId)}#BUDGET#${budgetId}`,
    sk: 'META',
  }),
  /** Active budgets newest first; an archived budget moves to the `#ARCHIVED` partition of the index. */
  budgetsIndex: (orgId: string, archived: boolean, createdAtId: string) => ({
    gsi1pk: `${org(orgId)}#BUDGETS${archived ? '#ARCHIVED' : ''}`,
    gsi1sk: createdAtId,
  }),
  budgetVersion: (orgId: string, budgetId: string, versionNumber: number): ItemKey => ({
    pk: `${org(orgId)}#BUDGET#${budgetId}`,
    sk: `V#${String(versionNumber).padStart(6, '0')}`,
  }),
  budgetVersionsListing: (orgId: string, budgetId: string) => ({
    pk: `${org(orgId)}#BUDGET#${budgetId}`,
    skPrefix: 'V#',
  }),

  /** A budget alert (`META`), its evaluations `EVAL#<ts>` and its fired thresholds `FIRED#…` share one partition. */
  budgetAlert: (orgId: string, alertId: string): ItemKey => ({
    pk: `${org(orgId)}#BALERT#${alertId}`,
    sk: 'META',
  }),
  budgetAlertsIndex: (orgId: string, createdAtId: string) => ({
    gsi1pk: `${org(orgId)}#BALERTS`,
    gsi1sk: createdAtId,
  }),
  /** The sharded due index of budget alerts (the sweep reads each shard up to now). */
  budgetAlertDue: (alertId: string, nextEvalAt: string) => ({
    gsi2pk: keys.budgetAlertDueShard(shardOf(alertId)),
    gsi2sk: nextEvalAt,
  }),
  budgetAlertDueShard: (shard: number) => `BADUE#${shard}`,
  budgetAlertEvaluation: (orgId: string, alertId: string, evaluatedAt: string): ItemKey => ({
    pk: `${org(orgId)}#BALERT#${alertId}`,
    sk: `EVAL#${evaluatedAt}`,
  }),
  budgetAlertPartition: (orgId: string, alertId: string) => `${org(orgId)}#BALERT#${alertId}`,
  budgetAlertEvaluationPrefix: 'EVAL#',
  /**
   * A threshold that fired: one item per budget month, line and threshold (written conditionally,
   * so it fires once). `line` is the line's value (`null` the total); `threshold` names the
   * threshold by what it compares (basis, mode, value and the amount it meant that month), so a new
   * budget version that changes the amount re-arms it and one that does not leaves it fired.
   */
  budgetAlertFired: (
    orgId: string,
    alertId: string,
    month: string,
    line: string | null,
    threshold: string,
  ): ItemKey => ({
    pk: `${org(orgId)}#BALERT#${alertId}`,
    sk: `FIRED#${month}#${line === null ? 'TOTAL' : `L:${encodeURIComponent(line)}`}#${threshold}`,
  }),
  budgetAlertFiredPrefix: 'FIRED#',

  alert: (orgId: string, alertId: string): ItemKey => ({ pk: `${org(orgId)}#ALERT#${alertId}`, sk: 'META' }),
  alertsIndex: (orgId: string, createdAt: string) => ({ gsi1pk: `${org(orgId)}#ALERTS`, gsi1sk: createdAt }),
  alertDue: (alertId: string, nextEvalAt: string) => ({
    gsi2pk: `ADUE#${shardOf(alertId)}`,
    gsi2sk: nextEvalAt,
  }),
  alertThreshold: (orgId: string, alertId: string, thresholdId: string): ItemKey => ({
    pk: `${org(orgId)}#ALERT#${alertId}`,
    sk: `THRESHOLD#${thresholdId}`,
  }),

  dimensionsPartition: (orgId: string) => `${org(orgId)}#DIMS`,
  enrichmentsPartition: (orgId: string) => `${org(orgId)}#ENRICH`,
  /** One enrichment document: its YAML text plus parsed metadata; sk `DOC#<name>`. */
  enrichment: (orgId: string, name: string): ItemKey => ({
    pk: keys.enrichmentsPartition(orgId),
    sk: `DOC#${name}`,
  }),
  /** Every enrichment document of an org: `begins_with(sk, prefix)` on the enrichments partition. */
  enrichmentsListing: (orgId: string) => ({ pk: keys.enrichmentsPartition(orgId), skPrefix: 'DOC#' }),
  datasource: (orgId: string, datasourceId: string): ItemKey => ({
    pk: org(orgId),
    sk: `DS#${datasourceId}`,
  }),
  outboxPartition: (orgId: string) => `${org(orgId)}#OUTBOX`,
  outboxDue: (id: string, at: string) => ({ gsi2pk: `OUTBOX#${shardOf(id)}`, gsi2sk: at }),
  /** The GSI2 partition of one outbox shard, for the sweep. */
  outboxDueShard: (shard: number) => `OUTBOX#${shard}`,
  /** One outbox entry: a message to send after the transaction that wrote it commits. */
  outboxEntry: (orgId: string, createdAt: string, id: string): ItemKey => ({
    pk: keys.outboxPartition(orgId),
    sk: `${createdAt}#${id}`,
  }),

  // Warehouse and dimensions: label configs, virtual dimensions, caches the refresh writes, ingestions.
  labelConfig: (orgId: string, name: string): ItemKey => ({
    pk: keys.dimensionsPartition(orgId),
    sk: `LABEL#${name}`,
  }),
  virtualDimension: (orgId: string, id: string): ItemKey => ({
    pk: keys.dimensionsPartition(orgId),
    sk: `VDIM#${id}`,
  }),
  /** The version of the org's billing rows in the Athena warehouse (shared/db/data-versions-repo.ts). */
  dataVersion: (orgId: string): ItemKey => ({
    pk: keys.dimensionsPartition(orgId),
    sk: 'DATAVERSION',
  }),
  /** Points at the refresh whose cache parts are current, so readers switch between complete sets. */
  dimensionCachePointer: (orgId: string, kind: string): ItemKey => ({
    pk: keys.dimensionsPartition(orgId),
    sk: `CACHE#${kind}`,
  }),
  dimensionCachePart: (orgId: string, kind: string, refreshId: string, part: number): ItemKey => ({
    pk: keys.dimensionsPartition(orgId),
    sk: `CACHE#${kind}#${refreshId}#${String(part).padStart(4, '0')}`,
  }),
  dimensionCachePartPrefix: (kind: string, refreshId: string) => `CACHE#${kind}#${refreshId}#`,
  refreshStatus: (orgId: string): ItemKey => ({ pk: keys.dimensionsPartition(orgId), sk: 'REFRESH' }),
  /**
   * The explorer's forecasts of one request on one version of the data (a hash of both; TTL), in a
   * partition of their own per organisation: read-only routes may write there and nowhere else
   * (`FORECAST_PARTITION_PATTERN`, infra/constructs/route-area.ts).
   */
  forecastAnswer: (orgId: string, hash: string): ItemKey => ({ pk: `FORECAST#${orgId}`, sk: hash }),
  /** Marks a refresh request as done, so a redelivered message is recognised (TTL). */
  refreshDone: (orgId: string, requestId: string): ItemKey => ({
    pk: keys.dimensionsPartition(orgId),
    sk: `REFRESHED#${requestId}`,
  }),
  ingestionsPartition: (orgId: string) => `${org(orgId)}#INGEST`,
  /** One uploaded billing file (object key and version/etag): its idempotency and status record. */
  ingestion: (orgId: string, objectKey: string, version: string): ItemKey => ({
    pk: keys.ingestionsPartition(orgId),
    sk: `${keys.ingestionPrefix}${objectKey}#${version}`,
  }),
  /** The sort-key prefix of every upload record in the ingestions partition (the uploads list). */
  ingestionPrefix: 'OBJ#',
  /** An upload's id (`upl_…`), pointing at its ingestion record's object key and version. */
  uploadPointer: (orgId: string, uploadId: string): ItemKey => ({
    pk: keys.ingestionsPartition(orgId),
    sk: `UPLOAD#${uploadId}`,
  }),
  /** GSI1 of an upload pointer: an org's uploads by time (`<first start>#<upload id>`), newest first. */
  uploadsIndex: (orgId: string, atId: string) => ({ gsi1pk: `${org(orgId)}#UPLOADS`, gsi1sk: atId }),

  /** An `Idempotency-Key` of one principal of an org: its claim and stored answer (TTL 24 h). */
  idempotency: (orgId: string, principalId: string, key: string): ItemKey => ({
    pk: `IDEMP#${orgId}#${principalId}#${key}`,
    sk: 'REC',
  }),

  // Admin area: listings, team invitations and sync state, metric points.
  /** Teams, scopes and datasources of an org: `begins_with(sk, prefix)` on the org partition. */
  teamsListing: (orgId: string) => ({ pk: org(orgId), skPrefix: 'TEAM#' }),
  scopesListing: (orgId: string) => ({ pk: org(orgId), skPrefix: 'SCOPE#' }),
  datasourcesListing: (orgId: string) => ({ pk: org(orgId), skPrefix: 'DS#' }),
  /** The sort-key prefixes inside a team's partition (`teamMembersPartition`). */
  teamPartitionPrefixes: { member: 'MEMBER#', invite: 'INVITE#', sync: 'SYNC' },
  /** A pending invitation of an e-mail unknown to the org; GSI1 finds every team an e-mail is invited to. */
  teamInvite: (orgId: string, teamId: string, email: string): ItemKey => ({
    pk: `${org(orgId)}#TEAM#${teamId}`,
    sk: `INVITE#${email.toLowerCase()}`,
  }),
  invitesByEmail: (orgId: string, email: string, teamId: string) => ({
    gsi1pk: `${org(orgId)}#INVITES`,
    gsi1sk: `${email.toLowerCase()}#${teamId}`,
  }),
  /** A team's membership version and chunked-sync lock. */
  teamSyncState: (orgId: string, teamId: string): ItemKey => ({
    pk: `${org(orgId)}#TEAM#${teamId}`,
    sk: 'SYNC',
  }),
  /**
   * A queued team operation (a large sync or a delete) and its status, in a partition of its own
   * so the membership query of the team never reads it.
   */
  teamOperation: (orgId: string, teamId: string, operationId: string): ItemKey => ({
    pk: `${org(orgId)}#TEAMOPS#${teamId}`,
    sk: `OP#${operationId}`,
  }),
  /** A principal's API-key mirrors: `begins_with(sk, prefix)` on the principal partition. */
  principalKeysListing: (orgId: string, principalId: string) => ({
    pk: keys.principalPartition(orgId, principalId),
    skPrefix: PRINCIPAL_SK.apiKey,
  }),
  /** One metric point: one partition per datasource and metric, sorted by ISO timestamp (re-push overwrites). */
  metricPointsPartition: (orgId: string, datasourceId: string, metric: string) =>
    `${org(orgId)}#DS#${datasourceId}#M#${metric}`,
  metricPoint: (orgId: string, datasourceId: string, metric: string, timestamp: string): ItemKey => ({
    pk: keys.metricPointsPartition(orgId, datasourceId, metric),
    sk: timestamp,
  }),

  // Cost alerts (beside `alert`, `alertsIndex`, `alertDue`, `alertThreshold` above).
  alertPartition: (orgId: string, alertId: string) => `${org(orgId)}#ALERT#${alertId}`,
  alertThresholdPrefix: 'THRESHOLD#',
  /** The GSI2 partition of one shard of the alert due index, for the sweep. */
  alertDueShard: (shard: number) => `ADUE#${shard}`,
  /** An alert's dedup state: when it last notified and for which window (conditional writes). */
  alertDedup: (orgId: string, alertId: string): ItemKey => ({
    pk: `${org(orgId)}#ALERT#${alertId}`,
    sk: 'DEDUP',
  }),
  /**
   * An expiring-commitments alert's claim of one commitment in one window (30/60/90 days): written
   * once, conditionally, so the commitment is announced once per window (docs/commitments.md).
   */
  commitmentExpiryClaim: (orgId: string, alertId: string, window: number, commitmentId: string): ItemKey => ({
    pk: `${org(orgId)}#ALERT#${alertId}`,
    sk: `${keys.commitmentExpiryClaimPrefix}${window}#${commitmentId}`,
  }),
  commitmentExpiryClaimPrefix: 'CEXP#',
  /** One evaluation of an alert (history, TTL); `evaluatedAt` is an ISO time, so the list sorts by time. */
  alertEvaluation: (orgId: string, alertId: string, evaluatedAt: string): ItemKey => ({
    pk: `${org(orgId)}#ALERT#${alertId}`,
    sk: `EVAL#${evaluatedAt}`,
  }),
  alertEvaluationPrefix: 'EVAL#',
  /** A notification's delivery record (idempotency of the notify worker, TTL). */
  notification: (orgId: string, notificationId: string): ItemKey => ({
    pk: `${org(orgId)}#NOTIFS`,
    sk: `NOTIF#${notificationId}`,
  }),
};

/** Attributes that are storage plumbing, never part of a domain record. */
export const KEY_ATTRIBUTES = [
  'pk',
  'sk',
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'ttl',
  'entity',
  'schemaVersion',
] as const;

/** Drops key attributes from a stored item, giving back the domain record. */
export function stripKeys<T extends Record<string, unknown>>(
  item: T,
): Omit<T, (typeof KEY_ATTRIBUTES)[number]> {
  const copy: Record<string, unknown> = { ...item };
  for (const attr of KEY_ATTRIBUTES) delete copy[attr];
  return copy as Omit<T, (typeof KEY_ATTRIBUTES)[number]>;
}
