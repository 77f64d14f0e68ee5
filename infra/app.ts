#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { addComplianceChecks } from './checks';
import { GridwireStack } from './gridwire-stack';

const app = new App();
new GridwireStack(app, app.node.tryGetContext('stackName') ?? 'Gridwire', {
  description: 'Gridwire event delivery pipeline',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
addComplianceChecks(app);
