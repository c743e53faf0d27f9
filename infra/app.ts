import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import {
  type DeployConfig,
  DeployConfigError,
  readDeployConfig,
  readStage,
} from './constructs/deploy-config';
import { createServiceStack } from './stack';

/**
 * The CDK app: `npx cdk synth -c env=dev` (placeholders, works offline) or
 * `npx cdk deploy -c env=prod -c jwtIssuer=… …` (every deploy setting required; see docs/deploy.md).
 * The stack is environment-agnostic: the account and region are the deployer's credentials', read
 * by CloudFormation at deploy time, never written into the template.
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

createServiceStack(app, config);

if (String(app.node.tryGetContext('nag') ?? 'true') !== 'false') {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}

app.synth();
