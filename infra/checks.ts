import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { Construct } from 'constructs';

/**
 * Attaches the cdk-nag AWS Solutions and Serverless rule packs to `app` (an App or a Stage):
 * synthesis then fails on any finding not acknowledged, with its reason, where it occurs.
 * `infra/app.ts` and the infra tests both call this, so `cdk synth` and `npm test` check alike.
 */
export function addComplianceChecks(app: Construct): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}
