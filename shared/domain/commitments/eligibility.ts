import type { WhereClause, WhereRule } from '../../model/where-clause';

/**
 * Which usage a commitment could cover, where the export does not say (none of the supported
 * exports marks eligibility per line). A usage line (ChargeCategory `Usage`, not spot:
 * PricingCategory `Dynamic` is never eligible) naming no commitment is eligible when its provider's
 * rule below holds; every line that names a commitment is read as it is. The services are those
 * the providers' commitment programmes apply to (docs/commitments.md cites them), by the
 * ServiceName the converters write (CUR product name or product code, Azure MeterCategory, Google
 * Cloud service description). Providers without a rule (OCI) have no eligible usage.
 */
export interface EligibilityRule {
  provider: string;
  services: readonly string[];
  /** AWS: the usage types of instance hours (and Lambda/Fargate compute) within those services; any usage type when the line has none (FOCUS exports). */
  usageTypes?: readonly string[];
  /** Google Cloud: time-priced usage only (vCPU and memory hours, not storage by the month). */
  pricingUnitContains?: string;
}

export const ELIGIBILITY: readonly EligibilityRule[] = [
  {
    provider: 'AWS',
    services: [
      'Amazon Elastic Compute Cloud',
      'AmazonEC2',
      'AWS Lambda',
      'AWSLambda',
      'Amazon Elastic Container Service',
      'AmazonECS',
      'Amazon Relational Database Service',
      'AmazonRDS',
      'Amazon ElastiCache',
      'AmazonElastiCache',
      'Amazon Redshift',
      'AmazonRedshift',
      'Amazon OpenSearch Service',
      'AmazonES',
      'Amazon MemoryDB',
      'AmazonMemoryDB',
      'Amazon DynamoDB',
      'AmazonDynamoDB',
      'Amazon SageMaker',
      'AmazonSageMaker',
    ],
    usageTypes: [
      'BoxUsage',
      'DedicatedUsage',
      'HostUsage',
      'Lambda-GB-Second',
      'Fargate-vCPU-Hours',
      'Fargate-GB-Hours',
      'InstanceUsage',
      'Multi-AZUsage',
      'NodeUsage',
      'Node:',
      'ESInstance',
      'CapacityUnit-Hrs',
      'ml.',
    ],
  },
  {
    provider: 'Microsoft',
    services: [
      'Virtual Machines',
      'Azure Dedicated Host',
      'Azure App Service',
      'Functions',
      'Container Instances',
      'Azure Container Apps',
      'SQL Database',
      'SQL Managed Instance',
      'Azure Cosmos DB',
      'Azure Database for PostgreSQL',
      'Azure Database for MySQL',
      'Azure Synapse Analytics',
      'Redis Cache',
      'Azure Cache for Redis',
    ],
  },
  {
    provider: 'Google Cloud',
    services: [
      'Compute Engine',
      'Kubernetes Engine',
      'Cloud Run',
      'Cloud SQL',
      'Cloud Spanner',
      'Memorystore for Redis',
      'AlloyDB for PostgreSQL',
      'Cloud Bigtable',
    ],
    pricingUnitContains: 'hour',
  },
];

const rule = (field: string, operator: string, value: string[]): WhereRule => ({ field, operator, value });

/** The rules as one where clause of the query model (resolved and bound like any filter). */
export function eligibleClause(providers: readonly EligibilityRule[] = ELIGIBILITY): WhereClause {
  return {
    combinator: 'or',
    rules: providers.map((p) => {
      const rules: WhereClause['rules'] = [
        rule('provider', 'in', [p.provider]),
        rule('ServiceName', 'in', [...p.services]),
      ];
      if (p.usageTypes)
        rules.push({
          combinator: 'or',
          rules: [rule('x_UsageType', 'null', []), rule('x_UsageType', 'contains', [...p.usageTypes])],
        });
      if (p.pricingUnitContains) rules.push(rule('PricingUnit', 'contains', [p.pricingUnitContains]));
      return { combinator: 'and', rules } satisfies WhereClause;
    }),
  };
}
