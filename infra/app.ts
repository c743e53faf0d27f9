import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import {
  type DeployConfig,
  DeployConfigError,
  readDeployConfig,
  readStage,
} from './constructs/deploy-config';
import { CostManagementStack } from './stack';

/**
 * The CDK app: `npx cdk synth -c env=dev` (placeholders, works offline) or
 * `npx cdk deploy -c env=prod -c jwtIssuer=… …` (every deploy setting required; see the README).
 * cdk-nag's AwsSolutions and Serverless packs run on every synth: an unacknowledged finding stops
 * it (`-c nag=false` skips them, e.g. to look at a template while fixing one).
 */
const app = new App();
let config: DeployConfig;
try {
  config = readDeployConfig(app.node, readStage(app.node));
} catch (error) {
  if (!(error instanceof DeployConfigError)) throw error;
  // A configuration mistake, not a bug: the message says what to pass, a stack trace would bury it.
  process.stderr.write(`\n${error.message}\n\n`);
  process.exit(1);
}
const { stage } = config;

new CostManagementStack(app, `CostManagement-${stage}`, {
  config,
  description: `Cost management service (${stage})`,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  terminationProtection: stage === 'prod',
});

if (String(app.node.tryGetContext('nag') ?? 'true') !== 'false') {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}

app.synth();
