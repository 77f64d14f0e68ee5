import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DeliveryPipeline } from './delivery-pipeline';
import type { DeliveryPipelineProps } from './delivery-pipeline-props';

export interface GridwireStackProps extends StackProps {
  /** Settings of the delivery pipeline. */
  readonly pipeline?: DeliveryPipelineProps;
}

/** One Gridwire deployment. */
export class GridwireStack extends Stack {
  readonly pipeline: DeliveryPipeline;

  constructor(scope: Construct, id: string, props: GridwireStackProps = {}) {
    super(scope, id, props);
    this.pipeline = new DeliveryPipeline(this, 'Pipeline', props.pipeline);
  }
}
