/**
 * The outputs the guides name (`ApiUrl`, `TableName`, `DeadLetterBucketName`) are written under
 * those names, not under CDK's construct path and hash (`PipelineApiUrlABA74706`), and a second
 * pipeline's under its output prefix, as the queue outputs are.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import { pipelineOutputNames } from '../../shared/config/resources';

const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

const app = newApp();
const stack = new Stack(app, 'Shop');
const first = new DeliveryPipeline(stack, 'Pipeline');
const orders = new DeliveryPipeline(stack, 'Orders');
const outputs = Template.fromStack(stack).findOutputs('*');

/** A construct's CloudFormation logical id in the stack. */
const ref = (construct: { node: { defaultChild?: unknown } }) => ({
  Ref: stack.getLogicalId(construct.node.defaultChild as never),
});

describe('the API, table and dead-letter bucket outputs', () => {
  it('carry the names the guides use, for the first pipeline of a stack', () => {
    expect(pipelineOutputNames()).toEqual({
      apiUrl: 'ApiUrl',
      tableName: 'TableName',
      deadLetterBucketName: 'DeadLetterBucketName',
      egressAddresses: 'EgressAddresses',
    });
    expect(outputs.ApiUrl?.Description).toBe('Base URL of the Gridwire API');
    expect(outputs.TableName).toMatchObject({ Value: ref(first.table) });
    expect(outputs.DeadLetterBucketName).toMatchObject({ Value: ref(first.deadLetterBucket) });
  });

  it("carry the second pipeline's output prefix", () => {
    expect(orders.outputPrefix).toBe('Orders');
    expect(outputs.OrdersApiUrl?.Description).toBe('Base URL of the Gridwire API');
    expect(outputs.OrdersTableName).toMatchObject({ Value: ref(orders.table) });
    expect(outputs.OrdersDeadLetterBucketName).toMatchObject({ Value: ref(orders.deadLetterBucket) });
  });

  it('leave no output under a construct path and hash', () => {
    expect(Object.keys(outputs).filter((name) => /[0-9A-F]{8}$/.test(name))).toEqual([]);
  });
});
