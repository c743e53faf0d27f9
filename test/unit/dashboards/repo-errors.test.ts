import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  encodeSnapshot,
  publishDashboardVersion,
  type VersionHead,
} from '../../../shared/db/dashboards-repo';
import { ConflictError } from '../../../shared/errors';
import type { DashboardSummary } from '../../../shared/model/dashboards';
import { DASHBOARD_DEFAULTS } from '../../fixtures/dashboards/defaults';

// DynamoDB Local never raises TransactionConflict and reports no per-item reasons the way the
// service does, so the mapping of cancellation reasons is checked against an injected error.
const ddb = mockClient(DynamoDBDocumentClient);

const summary: DashboardSummary = {
  id: 'dash_1',
  organizationId: 'org_1',
  name: 'x',
  ...DASHBOARD_DEFAULTS,
  widgetCount: 0,
  version: 2,
  publishedVersion: 2,
  publishedAt: '2025-01-01T00:00:00.000Z',
  createdById: 'user_1',
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  archivedAt: null,
};
const encoded = encodeSnapshot('{"widgets":[]}');
const head: VersionHead = {
  dashboardId: 'dash_1',
  version: 2,
  name: 'x',
  createdAt: summary.createdAt,
  createdById: 'user_1',
  widgetCount: 0,
  jsonBytes: encoded.jsonBytes,
  storedBytes: encoded.storedBytes,
  partCount: 1,
  encoding: 'gzip-json',
};

const canceled = (codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

afterEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe('dashboards repo: transaction outcomes', () => {
  it.each([
    ['a failed version condition', ['ConditionalCheckFailed', 'None', 'None']],
    ['a conflicting concurrent transaction', ['TransactionConflict', 'None', 'None']],
  ])('maps %s to 409 VERSION_CONFLICT', async (_label, codes) => {
    ddb.on(TransactWriteCommand).rejects(canceled(codes));
    await expect(publishDashboardVersion(summary, 1, head, encoded)).rejects.toEqual(
      new ConflictError('VERSION_CONFLICT'),
    );
  });

  it('lets other cancellations through as they are (a 500, not a false conflict)', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['ValidationError', 'None']));
    await expect(publishDashboardVersion(summary, 1, head, encoded)).rejects.toBeInstanceOf(
      TransactionCanceledException,
    );
  });

  it('writes metadata, head and parts in one transaction with capacity reporting and a request token', async () => {
    ddb.on(TransactWriteCommand).resolves({ ConsumedCapacity: [{ TableName: 't', CapacityUnits: 6 }] });
    const report = await publishDashboardVersion(summary, 1, head, encoded);
    expect(report).toEqual({ consumedWriteUnits: 6 });
    const input = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input;
    expect(input.ReturnConsumedCapacity).toBe('TOTAL');
    expect(input.ClientRequestToken).toEqual(expect.any(String));
    expect(input.TransactItems).toHaveLength(3);
    expect(input.TransactItems![0]!.Put!.ConditionExpression).toContain('#v = :expected');
    expect(input.TransactItems![0]!.Put!.ExpressionAttributeValues![':expected']).toBe(1);
  });
});
