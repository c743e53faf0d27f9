/**
 * Queues, the workers that consume them and the schedules that start work: one manifest read by
 * the CDK stack (queues, DLQs, event sources, EventBridge rules) and by the local runtime
 * (fauxqs queues, pollers, the ticker). Every queue has a dead-letter queue.
 */
/** The work queues by name: call sites say `QUEUE.notifications`, never a string. */
export const QUEUE = {
  warehouseRefresh: 'warehouse-refresh',
  alertEvaluation: 'alert-evaluation',
  reportDelivery: 'report-delivery',
  notifications: 'notifications',
  teamOperations: 'team-operations',
  billingIngest: 'billing-ingest',
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

export interface QueueDef {
  /** One of `QUEUE` in the manifest (tests build queues of their own from the same shape). */
  name: string;
  /** Seconds a received message stays hidden; at least 6× the consumer's timeout in AWS. */
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the DLQ. */
  maxReceiveCount: number;
}

export interface WorkerDef {
  name: string;
  queue: string;
  /** Entry module under `functions/`, without extension. */
  entry: string;
  batchSize: number;
  timeoutSeconds: number;
  memoryMb: number;
  usesWarehouse?: boolean;
  /**
   * Opens DuckDB at run time in AWS (where the warehouse is otherwise Athena): billing ingestion
   * stages each upload in an in-memory DuckDB before writing Parquet. The stack ships DuckDB to
   * such a worker only, and runs it on x86_64 (see docs/deploy.md, "What the stack creates").
   */
  needsDuckDb?: boolean;
  /** Renders chart PNGs and PDFs (reports): the stack ships the fonts and resvg's wasm with it. */
  rendersCharts?: boolean;
  sendsTo?: string[];
  sendsEmail?: boolean;
  /** Calls the identity provider's invitation API (team sync): its URL and token secret in AWS. */
  invitesUsers?: boolean;
}

export interface ScheduleDef {
  name: string;
  /** EventBridge expression, e.g. `rate(15 minutes)` or `cron(0 6 * * ? *)`. */
  expression: string;
  /** Interval the local ticker uses for the same schedule; 0: not ticked locally (`/_local/tick` runs it). */
  localIntervalSeconds: number;
  entry: string;
  timeoutSeconds: number;
  sendsTo?: string[];
}

export const queues: readonly QueueDef[] = [
  { name: QUEUE.warehouseRefresh, visibilityTimeoutSeconds: 900 * 6, maxReceiveCount: 5 },
  { name: QUEUE.alertEvaluation, visibilityTimeoutSeconds: 360, maxReceiveCount: 5 },
  { name: QUEUE.reportDelivery, visibilityTimeoutSeconds: 360, maxReceiveCount: 5 },
  { name: QUEUE.notifications, visibilityTimeoutSeconds: 180, maxReceiveCount: 5 },
  /** Team syncs past one transaction and deletes of large teams, handed off by their routes. */
  { name: QUEUE.teamOperations, visibilityTimeoutSeconds: 300 * 6, maxReceiveCount: 3 },
  /** S3 `ObjectCreated` events of the billing bucket's `uploads/` prefix (see the warehouse). */
  { name: QUEUE.billingIngest, visibilityTimeoutSeconds: 900 * 6, maxReceiveCount: 3 },
];

export const workers: readonly WorkerDef[] = [
  {
    name: 'warehouse-refresh',
    queue: QUEUE.warehouseRefresh,
    entry: 'workers/warehouse-refresh',
    batchSize: 5,
    timeoutSeconds: 900,
    memoryMb: 3008,
    usesWarehouse: true,
  },
  {
    name: 'billing-ingest',
    queue: QUEUE.billingIngest,
    entry: 'workers/billing-ingest',
    batchSize: 1,
    timeoutSeconds: 900,
    memoryMb: 3008,
    usesWarehouse: true,
    needsDuckDb: true,
    sendsTo: [QUEUE.warehouseRefresh],
  },
  {
    name: 'notify',
    queue: QUEUE.notifications,
    entry: 'workers/notify',
    batchSize: 10,
    timeoutSeconds: 30,
    memoryMb: 512,
    sendsEmail: true,
  },
  {
    name: 'alert-evaluate',
    queue: QUEUE.alertEvaluation,
    entry: 'workers/alert-evaluate',
    batchSize: 10,
    timeoutSeconds: 60,
    memoryMb: 1024,
    usesWarehouse: true,
    sendsTo: [QUEUE.notifications],
    // Cost alerts' charts and budget alerts' burn charts are drawn here (shared/domain/alerts/chart.ts).
    rendersCharts: true,
  },
  {
    // One operation per invocation: a 2,000-member sync (4,000 items, invitations) takes minutes.
    name: 'team-operations',
    queue: QUEUE.teamOperations,
    entry: 'workers/team-sync',
    batchSize: 1,
    timeoutSeconds: 300,
    memoryMb: 512,
    invitesUsers: true,
  },
  {
    name: 'report-delivery',
    queue: QUEUE.reportDelivery,
    entry: 'workers/report-delivery',
    batchSize: 5,
    timeoutSeconds: 60,
    memoryMb: 1024,
    usesWarehouse: true,
    sendsEmail: true,
    rendersCharts: true,
  },
];

export const schedules: readonly ScheduleDef[] = [
  {
    name: 'outbox-sweep',
    expression: 'rate(5 minutes)',
    localIntervalSeconds: 30,
    entry: 'schedules/outbox-sweep',
    timeoutSeconds: 60,
    // Every queue an outbox entry may name.
    sendsTo: [QUEUE.warehouseRefresh, QUEUE.teamOperations],
  },
  {
    name: 'alert-sweep',
    expression: 'rate(15 minutes)',
    localIntervalSeconds: 60,
    entry: 'schedules/alert-sweep',
    timeoutSeconds: 120,
    sendsTo: [QUEUE.alertEvaluation],
  },
  {
    name: 'report-sweep',
    expression: 'rate(15 minutes)',
    localIntervalSeconds: 60,
    entry: 'schedules/report-sweep',
    timeoutSeconds: 60,
    sendsTo: [QUEUE.reportDelivery],
  },
  {
    // The ECB publishes around 16:00 CET on business days; 17:00 UTC is after it all year.
    name: 'fx-fetch',
    expression: 'cron(0 17 ? * MON-FRI *)',
    // Locally there is no internet: the demo seed loads synthetic rates instead.
    localIntervalSeconds: 0,
    entry: 'schedules/fx-fetch',
    timeoutSeconds: 60,
  },
];

export function dlqName(queue: string): string {
  return `${queue}-dlq`;
}
