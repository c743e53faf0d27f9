import { lit } from './convert';

/**
 * FOCUS ServiceCategory of a provider's service, for the native exports (which name the service but
 * not its category). One table per provider, keyed by the identifier its export carries, compared
 * ignoring case: AWS `lineItem/ProductCode` (or the product name), Azure `MeterCategory`, Google
 * Cloud `service.description`, OCI `product/service`. The values are FOCUS 1.2's ServiceCategory
 * values; a service the table does not know is "Other", which FOCUS allows for any service (the
 * column must never be null). The tables follow each provider's own grouping of its services in
 * its product catalogue (docs/warehouse.md, "ServiceCategory"); extend them here.
 */
export type ServiceCategory =
  | 'AI and Machine Learning'
  | 'Analytics'
  | 'Business Applications'
  | 'Compute'
  | 'Databases'
  | 'Developer Tools'
  | 'Identity'
  | 'Integration'
  | 'Internet of Things'
  | 'Management and Governance'
  | 'Media'
  | 'Migration'
  | 'Mobile'
  | 'Multicloud'
  | 'Networking'
  | 'Security'
  | 'Storage'
  | 'Web'
  | 'Other';

type Table = Partial<Record<ServiceCategory, readonly string[]>>;

/** AWS: product codes (`lineItem/ProductCode`) and, for files that have only names, product names. */
export const AWS_SERVICE_CATEGORIES: Table = {
  'AI and Machine Learning': [
    'AmazonSageMaker',
    'AmazonBedrock',
    'AmazonRekognition',
    'AmazonComprehend',
    'AmazonTextract',
    'AmazonPolly',
    'transcribe',
    'translate',
    'AmazonLex',
    'AmazonKendra',
    'Amazon SageMaker',
    'Amazon Bedrock',
  ],
  Analytics: [
    'AmazonAthena',
    'AWSGlue',
    'ElasticMapReduce',
    'AmazonRedshift',
    'AmazonKinesis',
    'AmazonKinesisFirehose',
    'AmazonQuickSight',
    'AmazonES',
    'AmazonMSK',
    'AWSLakeFormation',
    'Amazon Athena',
    'AWS Glue',
    'Amazon Redshift',
    'Amazon Kinesis',
  ],
  'Business Applications': ['AmazonConnect', 'AmazonWorkMail', 'AmazonChime', 'AmazonSES', 'Amazon Connect'],
  Compute: [
    'AmazonEC2',
    'AWSLambda',
    'AmazonECS',
    'AmazonEKS',
    'AWSFargate',
    'AmazonLightsail',
    'AWSBatch',
    'AmazonWorkSpaces',
    'AWSOutposts',
    'Amazon Elastic Compute Cloud',
    'AWS Lambda',
    'Amazon Elastic Container Service',
    'Amazon Elastic Kubernetes Service',
  ],
  Databases: [
    'AmazonRDS',
    'AmazonDynamoDB',
    'AmazonElastiCache',
    'AmazonDocDB',
    'AmazonNeptune',
    'AmazonMemoryDB',
    'AmazonTimestream',
    'AmazonKeyspaces',
    'Amazon Relational Database Service',
    'Amazon DynamoDB',
    'Amazon ElastiCache',
  ],
  'Developer Tools': [
    'AWSCodeBuild',
    'AWSCodeCommit',
    'AWSCodePipeline',
    'AWSCodeArtifact',
    'AWSCloudShell',
    'AWSXRay',
    'AWS CloudShell',
  ],
  Identity: ['AWSDirectoryService', 'AmazonCognito', 'AWSSSO', 'Amazon Cognito'],
  Integration: [
    'AWSQueueService',
    'AmazonSNS',
    'AmazonStates',
    'AWSEvents',
    'AmazonApiGateway',
    'AmazonMQ',
    'AmazonAppFlow',
    'Amazon Simple Queue Service',
    'Amazon Simple Notification Service',
    'AWS Step Functions',
    'Amazon API Gateway',
  ],
  'Internet of Things': ['AWSIoT', 'AWSIoTAnalytics', 'AWSGreengrass', 'AWS IoT'],
  'Management and Governance': [
    'AmazonCloudWatch',
    'AWSCloudTrail',
    'AWSConfig',
    'AWSCloudFormation',
    'AWSSystemsManager',
    'AWSCostExplorer',
    'AWSBudgets',
    'AWSOrganizations',
    'AWSServiceCatalog',
    'Amazon CloudWatch',
    'AWS CloudTrail',
    'AWS Config',
  ],
  Media: ['AmazonIVS', 'AWSElementalMediaConvert', 'AmazonGameLift', 'AWSElementalMediaLive'],
  Migration: [
    'AWSMigrationHubRefactorSpaces',
    'AWSDatabaseMigrationSvc',
    'AWSTransfer',
    'AWSApplicationMigrationSvc',
    'AWSDataSync',
    'AWS Migration Hub Refactor Spaces',
    'AWS Database Migration Service',
  ],
  Mobile: ['AWSAmplify', 'AWSDeviceFarm', 'AmazonPinpoint'],
  Networking: [
    'AWSDataTransfer',
    'AmazonVPC',
    'AWSELB',
    'AmazonCloudFront',
    'AmazonRoute53',
    'AWSDirectConnect',
    'AWSGlobalAccelerator',
    'AWSTransitGateway',
    'Elastic Load Balancing',
    'Amazon CloudFront',
    'Amazon Route 53',
    'Amazon Virtual Private Cloud',
  ],
  Security: [
    'awskms',
    'AWSSecretsManager',
    'AmazonGuardDuty',
    'AWSSecurityHub',
    'AWSShield',
    'awswaf',
    'AWSCertificateManager',
    'AmazonInspector',
    'AmazonMacie',
    'AWS Key Management Service',
    'AWS Secrets Manager',
    'AWS WAF',
  ],
  Storage: [
    'AmazonS3',
    'AmazonEFS',
    'AmazonFSx',
    'AmazonS3GlacierDeepArchive',
    'AmazonGlacier',
    'AWSBackup',
    'AWSStorageGatewayDeepArchive',
    'AWSStorageGateway',
    'Amazon Simple Storage Service',
    'Amazon Elastic File System',
    'AWS Backup',
  ],
  Web: ['AWSElasticBeanstalk', 'AWSAppRunner', 'AWS Elastic Beanstalk', 'AWS App Runner'],
};

/** Azure: `MeterCategory` of EA and MCA exports. */
export const AZURE_SERVICE_CATEGORIES: Table = {
  'AI and Machine Learning': [
    'Cognitive Services',
    'Azure OpenAI Service',
    'Machine Learning',
    'Azure Machine Learning',
  ],
  Analytics: [
    'Azure Data Factory v2',
    'Azure Data Factory',
    'Azure Synapse Analytics',
    'Azure Databricks',
    'HDInsight',
    'Event Hubs',
    'Stream Analytics',
    'Azure Data Explorer',
    'Power BI Embedded',
  ],
  Compute: [
    'Virtual Machines',
    'Virtual Machines Licenses',
    'Azure Kubernetes Service',
    'Functions',
    'Container Instances',
    'Cloud Services',
    'Batch',
    'Azure Virtual Desktop',
    'Azure VMware Solution',
  ],
  Databases: [
    'SQL Database',
    'Azure Cosmos DB',
    'Azure Database for MySQL',
    'Azure Database for PostgreSQL',
    'Azure Database for MariaDB',
    'Redis Cache',
    'Azure Cache for Redis',
    'SQL Managed Instance',
  ],
  'Developer Tools': [
    'Azure DevOps',
    'Visual Studio Subscription',
    'Azure App Configuration',
    'Container Registry',
  ],
  Identity: ['Azure Active Directory', 'Microsoft Entra ID', 'Azure Active Directory B2C', 'Microsoft Entra'],
  Integration: ['Service Bus', 'Logic Apps', 'API Management', 'Event Grid', 'Notification Hubs'],
  'Internet of Things': ['IoT Hub', 'IoT Central', 'Azure Digital Twins'],
  'Management and Governance': [
    'Azure Monitor',
    'Log Analytics',
    'Insight and Analytics',
    'Automation',
    'Azure Arc',
    'Backup',
    'Advisor',
  ],
  Media: ['Media Services', 'Azure Communication Services', 'PlayFab'],
  Migration: ['Azure Migrate', 'Azure Database Migration Service', 'Azure Site Recovery', 'Site Recovery'],
  Networking: [
    'Virtual Network',
    'Bandwidth',
    'Load Balancer',
    'Application Gateway',
    'VPN Gateway',
    'ExpressRoute',
    'Azure DNS',
    'Azure Front Door Service',
    'Content Delivery Network',
    'Azure Firewall',
    'Network Watcher',
    'Traffic Manager',
    'Azure Bastion',
    'NAT Gateway',
  ],
  Security: [
    'Key Vault',
    'Microsoft Defender for Cloud',
    'Azure Defender',
    'Sentinel',
    'Azure DDOS Protection',
  ],
  Storage: ['Storage', 'Azure NetApp Files', 'Data Box', 'Azure Backup'],
  Web: ['Azure App Service', 'App Service', 'Static Web Apps', 'Azure Static Web Apps', 'Azure Spring Apps'],
};

/** Google Cloud: `service.description` of the BigQuery billing export. */
export const GCP_SERVICE_CATEGORIES: Table = {
  'AI and Machine Learning': [
    'Vertex AI',
    'Cloud Natural Language API',
    'Cloud Vision API',
    'Cloud Speech API',
    'Cloud Translation API',
    'Document AI',
    'Gemini API',
  ],
  Analytics: [
    'BigQuery',
    'BigQuery Storage API',
    'BigQuery Reservation API',
    'Dataflow',
    'Dataproc',
    'Cloud Pub/Sub',
    'Looker',
    'Cloud Data Fusion',
    'Cloud Composer',
  ],
  Compute: [
    'Compute Engine',
    'Kubernetes Engine',
    'Cloud Run',
    'Cloud Functions',
    'Cloud Run Functions',
    'Google Cloud VMware Engine',
    'Batch',
  ],
  Databases: [
    'Cloud SQL',
    'Cloud Spanner',
    'Cloud Bigtable',
    'Firestore',
    'Cloud Firestore',
    'Memorystore for Redis',
    'AlloyDB',
  ],
  'Developer Tools': [
    'Cloud Build',
    'Artifact Registry',
    'Container Registry',
    'Cloud Source Repositories',
    'Cloud Deploy',
  ],
  Identity: ['Identity Platform', 'Cloud Identity', 'Identity and Access Management'],
  Integration: ['Cloud Tasks', 'Workflows', 'Apigee', 'API Gateway', 'Cloud Scheduler', 'Eventarc'],
  'Internet of Things': ['Cloud IoT Core'],
  'Management and Governance': [
    'Cloud Logging',
    'Cloud Monitoring',
    'Stackdriver Logging',
    'Stackdriver Monitoring',
    'Cloud Trace',
  ],
  Media: ['Transcoder API', 'Live Stream API'],
  Migration: ['Database Migration Service', 'Storage Transfer Service', 'Migrate to Virtual Machines'],
  Mobile: ['Firebase', 'Firebase Hosting', 'Firebase Realtime Database'],
  Networking: [
    'Networking',
    'Cloud Load Balancing',
    'Cloud CDN',
    'Cloud DNS',
    'Cloud NAT',
    'Cloud Interconnect',
    'Cloud VPN',
    'Network Intelligence Center',
  ],
  Security: [
    'Secret Manager',
    'Cloud Key Management Service (KMS)',
    'Security Command Center',
    'Cloud Armor',
  ],
  Storage: ['Cloud Storage', 'Filestore', 'Backup and DR Service', 'Persistent Disk'],
  Web: ['App Engine'],
};

/** OCI: `product/service` of cost reports (upper snake case). */
export const OCI_SERVICE_CATEGORIES: Table = {
  'AI and Machine Learning': ['DATA_SCIENCE', 'AI_LANGUAGE', 'AI_VISION', 'AI_SPEECH', 'GENERATIVE_AI'],
  Analytics: ['ORACLE_STREAMING_SERVICE', 'ANALYTICS', 'DATA_FLOW', 'DATA_INTEGRATION', 'BIG_DATA'],
  Compute: ['COMPUTE', 'CONTAINER_ENGINE', 'FUNCTIONS', 'CONTAINER_INSTANCES', 'VMWARE'],
  Databases: ['DATABASE', 'MYSQL', 'AUTONOMOUS_DATABASE', 'NOSQL', 'POSTGRESQL', 'EXADATA'],
  'Developer Tools': ['DEVOPS', 'RESOURCE_MANAGER', 'APEX'],
  Identity: ['IDENTITY', 'IDENTITY_CLOUD_SERVICE'],
  Integration: ['INTEGRATION', 'NOTIFICATIONS', 'QUEUE', 'API_GATEWAY', 'EVENTS'],
  'Management and Governance': [
    'TELEMETRY',
    'MONITORING',
    'LOGGING',
    'LOGGING_ANALYTICS',
    'OPERATIONS_INSIGHTS',
  ],
  Migration: ['DATABASE_MIGRATION', 'CLOUD_MIGRATIONS'],
  Networking: [
    'NETWORK',
    'NETWORKING',
    'LOAD_BALANCER',
    'FASTCONNECT',
    'DNS',
    'VPN',
    'NETWORK_FIREWALL',
    'WEB_APPLICATION_ACCELERATION',
  ],
  Security: ['KEY_MANAGEMENT', 'VAULT', 'WAF', 'CLOUD_GUARD', 'BASTION', 'CERTIFICATES'],
  Storage: ['BLOCK_STORAGE', 'OBJECTSTORE', 'OBJECT_STORAGE', 'FILE_STORAGE', 'ARCHIVE_STORAGE'],
};

/**
 * The ServiceCategory of the first of `services` (SQL text expressions, tried in turn) a table
 * names, ignoring case; "Other" when none does (or all are null).
 */
export function serviceCategory(table: Table, ...services: string[]): string {
  const whens = Object.entries(table).flatMap(([category, names]) =>
    (names ?? []).map((name) => `WHEN ${lit(name.toLowerCase())} THEN ${lit(category)}`),
  );
  const one = (s: string) => `CASE lower(${s}) ${whens.join(' ')} END`;
  return `coalesce(${[...services.map(one), `'Other'`].join(', ')})`;
}
