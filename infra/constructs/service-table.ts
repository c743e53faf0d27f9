import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../shared/db/keys';

/**
 * The single table (`shared/db/keys.ts` `tableDefinition`): keys, indexes and TTL attribute from
 * there, on-demand, point-in-time recovery; kept and protected from deletion in prod. Created in
 * the scope given under the id `Table`, so its logical id never changes with the code around it.
 */
export function serviceTable(scope: Construct, prod: boolean): TableV2 {
  return new TableV2(scope, 'Table', {
    partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
    sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
    globalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
    })),
    timeToLiveAttribute: tableDefinition.ttlAttribute,
    billing: Billing.onDemand(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: prod,
    removalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}
