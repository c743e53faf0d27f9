import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { tableDefinition } from '../../shared/db/keys';
import { dlqName, type QueueDef } from '../../shared/queues';

/** Creates the single table and its indexes from the same definition the CDK stack uses. */
export async function ensureTable(client: DynamoDBClient, name: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: name }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  const attrs = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const ix of tableDefinition.indexes) {
    attrs.add(ix.partitionKey);
    attrs.add(ix.sortKey);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attrs].map((a) => ({ AttributeName: a, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: tableDefinition.indexes.map((ix) => ({
          IndexName: ix.name,
          KeySchema: [
            { AttributeName: ix.partitionKey, KeyType: 'HASH' },
            { AttributeName: ix.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
}

export interface LocalQueue {
  name: string;
  url: string;
  arn: string;
  dlqUrl: string;
  dlqArn: string;
}

/**
 * Creates a queue and its DLQ with a redrive policy. Locally the visibility timeout is short so
 * retries happen in seconds rather than minutes; the receive count before the DLQ is the deployed one.
 */
export async function ensureQueue(
  sqs: SQSClient,
  def: QueueDef,
  localVisibilitySeconds: number,
): Promise<LocalQueue> {
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: dlqName(def.name),
      Attributes: { MessageRetentionPeriod: '1209600' },
    }),
  );
  const dlqAttrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const dlqArn = dlqAttrs.Attributes?.QueueArn ?? '';
  const main = await sqs.send(
    new CreateQueueCommand({
      QueueName: def.name,
      Attributes: {
        VisibilityTimeout: String(localVisibilitySeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: def.maxReceiveCount }),
      },
    }),
  );
  const mainAttrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: main.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return {
    name: def.name,
    url: main.QueueUrl ?? '',
    arn: mainAttrs.Attributes?.QueueArn ?? '',
    dlqUrl: dlq.QueueUrl ?? '',
    dlqArn,
  };
}
