/**
 * The clients of AWS resource destinations on the local stack: the emulator's SQS and SNS on one
 * endpoint, whatever region a resource names, and the stack's registered functions for Lambda
 * (`lambda-functions.ts`). There is no EventBridge or Kinesis emulator, and no IAM: a role to
 * assume is not assumed here.
 */
import { LOCAL_REGION, type LocalCredentials, localSqsClient } from '../shared/platform/aws';
import {
  type LambdaInvoker,
  RESOURCE_REQUEST_HANDLER,
  type ResourceClients,
} from '../shared/platform/resource-clients';
import { madeOnce, resourceSdks } from '../shared/platform/resource-sdks';

/**
 * The local stack's resource clients. Its queues as destinations have an SQS client of their own,
 * apart from the stack's queues'.
 */
export const localResourceClients = (
  endpoint: string,
  credentials: LocalCredentials,
  lambda?: LambdaInvoker,
): ResourceClients => ({
  ...(lambda === undefined ? {} : { lambda: () => lambda }),
  sqs: madeOnce(() => localSqsClient(endpoint, credentials)),
  sns: madeOnce(
    () =>
      new (resourceSdks.sns().SNSClient)({
        region: LOCAL_REGION,
        credentials: { ...credentials },
        endpoint,
        requestHandler: RESOURCE_REQUEST_HANDLER,
      }),
  ),
});
