/**
 * The topic every alarm notifies when none is given, who may publish to it, and the e-mail
 * addresses the `alarmEmail` prop subscribes.
 */
import { ArnFormat, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

/**
 * The condition under which CloudWatch may act for an alarm: an alarm of this account in this
 * region (`aws:SourceAccount`, `aws:SourceArn`), so no other account's alarm can make CloudWatch
 * publish to the topic or use its key (the confused deputy).
 */
export function ownAlarmsCondition(scope: Construct): Record<string, Record<string, string>> {
  const stack = Stack.of(scope);
  return {
    StringEquals: { 'aws:SourceAccount': stack.account },
    ArnLike: {
      'aws:SourceArn': stack.formatArn({
        service: 'cloudwatch',
        resource: 'alarm',
        resourceName: '*',
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    },
  };
}

/**
 * The topic alarms notify when none is given: encrypted with its own KMS key, TLS only, and
 * open to CloudWatch for this account's alarms. The TLS rule (`enforceSSL`) makes CDK write a
 * topic policy, and a topic policy replaces SNS's default one: with the Deny alone, nothing
 * would allow CloudWatch to publish, and every alarm would fail to notify (reported for another
 * project in aws-solutions/automated-security-response-on-aws#43). So the policy also allows
 * `sns:Publish` to `cloudwatch.amazonaws.com` for this account's alarms.
 */
export function createAlarmTopic(scope: Construct, removalPolicy: RemovalPolicy): sns.Topic {
  const cloudWatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
  const fromOwnAlarms = ownAlarmsCondition(scope);
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    description: 'Gridwire: encrypts alarm notifications',
    enableKeyRotation: true,
    removalPolicy,
  });
  // CloudWatch can only publish to an encrypted topic whose key lets it; only for this account's
  // alarms (SNS calls KMS on the publisher's behalf, and the source keys travel with the call).
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToUseTheKey',
      principals: [cloudWatch],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: fromOwnAlarms,
    }),
  );
  const topic = new sns.Topic(scope, 'AlarmTopic', {
    displayName: 'Gridwire alarms',
    masterKey: key,
    enforceSSL: true,
  });
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [cloudWatch],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: fromOwnAlarms,
    }),
  );
  return topic;
}

/** The `alarmEmail` prop as a list: none, one address, or several. */
export const alarmEmailsOf = (alarmEmail: string | readonly string[] | undefined): readonly string[] =>
  alarmEmail === undefined ? [] : typeof alarmEmail === 'string' ? [alarmEmail] : alarmEmail;

/**
 * Subscribes each address to the alarm topic by email. SNS first sends each a confirmation
 * message; an address receives alarms only once its owner followed the link in it.
 */
export function subscribeAlarmEmails(alarmTopic: sns.ITopic, addresses: readonly string[]): void {
  for (const address of addresses) {
    const subscription = alarmTopic.addSubscription(new EmailSubscription(address));
    Validations.of(subscription).acknowledge({
      id: 'Serverless-SNSRedrivePolicy',
      reason:
        "An alarm email SNS can't deliver (an address not confirmed, or bouncing) would wait in a dead-letter queue nobody watches; the alarm's state and history stay in CloudWatch, and the topic's other subscribers still get it.",
    });
  }
}
