/**
 * Where an operator command finds the queues: a running local stack (its data directory's
 * `endpoints.json`, which also names the local API and its admin token) or a deployed stack
 * (its CloudFormation outputs).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CloudFormationClient, Output } from '@aws-sdk/client-cloudformation';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { isDataDirLocked } from '../local/data-dir-lock';
import { ENDPOINTS_FILE, type EndpointsFile } from '../local/endpoints-file';
import { QUEUES, type QueueKey, queueOutputNames } from '../shared/config/resources';
import { CliError, explainAwsError } from './errors';

// The AWS SDK's clients load when a command reaches for queues or a stack, not when the program
// is built (see `cli/program.ts`).
const cloudFormationSdk = () =>
  require('@aws-sdk/client-cloudformation') as typeof import('@aws-sdk/client-cloudformation');
const sqsSdk = () => require('@aws-sdk/client-sqs') as typeof import('@aws-sdk/client-sqs');

export interface QueueUrls {
  /** The queue its consumer reads. */
  url: string;
  /** Its redrive queue, where messages land after `maxReceiveCount` failed receives. */
  redriveUrl: string;
}

export interface QueueTarget extends QueueUrls {
  key: QueueKey;
}

export interface QueueTargets {
  sqs: SQSClient;
  /** Queues this target knows; a stack deployed by an older version may lack newer ones. */
  queues: Partial<Record<QueueKey, QueueUrls>>;
  /** For messages: "the local stack in /path" or "stack Gridwire". */
  where: string;
}

export const QUEUE_KEYS = Object.keys(QUEUES) as QueueKey[];

/** Checks a queue name given by the user against `QUEUES`. */
export function parseQueueKey(value: string): QueueKey {
  if ((QUEUE_KEYS as string[]).includes(value)) return value as QueueKey;
  throw new CliError(`unknown queue "${value}"; the queues are ${QUEUE_KEYS.join(', ')}`);
}

/** The named queue, or every queue the target has, in `QUEUES` order. */
export function selectQueues(targets: QueueTargets, key?: QueueKey): QueueTarget[] {
  const keys = key === undefined ? QUEUE_KEYS : [key];
  const selected = keys.flatMap((k) => {
    const urls = targets.queues[k];
    return urls === undefined ? [] : [{ key: k, ...urls }];
  });
  if (key !== undefined && selected.length === 0) {
    throw new CliError(`${targets.where} has no ${key} queue; deploy this version of Gridwire first`);
  }
  if (selected.length === 0) throw new CliError(`${targets.where} has none of the queues`);
  return selected;
}

/** Queues of `QUEUES` that the target lacks (deployed by an older version). */
export function missingQueues(targets: QueueTargets): QueueKey[] {
  return QUEUE_KEYS.filter((key) => targets.queues[key] === undefined);
}

/**
 * The `endpoints.json` of the local stack running in `dataDir`, with the directory and file it
 * came from. Fails with "not running" (suggesting `otherwise`, e.g. `--stack`) when the file is
 * missing or the stack that wrote it has stopped.
 */
export async function runningLocalStack(
  dataDir: string,
  otherwise: string,
): Promise<{ dir: string; file: string; endpoints: EndpointsFile }> {
  const dir = resolve(dataDir);
  const notRunning = new CliError(
    `the local stack is not running in ${dir}; start it with npm start or pass ${otherwise}`,
  );
  const file = join(dir, ENDPOINTS_FILE);
  let endpoints: EndpointsFile;
  try {
    endpoints = JSON.parse(await readFile(file, 'utf8')) as EndpointsFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notRunning;
    throw new CliError(`could not read ${file}: ${(error as Error).message}`);
  }
  // endpoints.json outlives the stack; its lock answers only while it runs.
  if (!(await isDataDirLocked(dir))) throw notRunning;
  return { dir, file, endpoints };
}

/** The queues of the local stack running in `dataDir`. */
export async function localTargets(dataDir: string): Promise<QueueTargets> {
  const { dir, file, endpoints } = await runningLocalStack(dataDir, '--stack');
  if (typeof endpoints.queues !== 'object' || endpoints.queues === null) {
    throw new CliError(
      `${file} has no queue URLs (the running stack is an older version); restart the local stack`,
    );
  }
  if (typeof endpoints.credentials !== 'object' || endpoints.credentials === null) {
    throw new CliError(
      `${file} has no credentials for the emulators (the running stack is an older version); restart the local stack`,
    );
  }
  const queues: Partial<Record<QueueKey, QueueUrls>> = {};
  for (const key of QUEUE_KEYS) {
    const urls = endpoints.queues[key];
    if (urls !== undefined) queues[key] = { url: urls.url, redriveUrl: urls.redriveUrl };
  }
  const { localSqsClient } =
    require('../shared/platform/local-sqs') as typeof import('../shared/platform/local-sqs');
  return {
    sqs: localSqsClient(endpoints.sqs, endpoints.credentials),
    queues,
    where: `the local stack in ${dir}`,
  };
}

/**
 * Reads the queue URLs from a deployed stack's outputs (named by `queueOutputNames`), those of the
 * pipeline whose output prefix is `pipeline` (`''`: the stack's first pipeline).
 */
export function queueUrlsFromOutputs(
  outputs: readonly Output[],
  pipeline = '',
): Partial<Record<QueueKey, QueueUrls>> {
  const values = new Map(outputs.map((output) => [output.OutputKey, output.OutputValue]));
  const queues: Partial<Record<QueueKey, QueueUrls>> = {};
  for (const key of QUEUE_KEYS) {
    const names = queueOutputNames(key, pipeline);
    const url = values.get(names.url);
    const redriveUrl = values.get(names.redriveUrl);
    if (url !== undefined && redriveUrl !== undefined) queues[key] = { url, redriveUrl };
  }
  return queues;
}

/**
 * The queues of a deployed stack, found through its CloudFormation outputs: those of its pipeline
 * with the output prefix `pipeline` (`--pipeline`), by default its first.
 */
export async function stackTargets(
  stackName: string,
  region?: string,
  cloudFormation: CloudFormationClient = new (cloudFormationSdk().CloudFormationClient)(
    region === undefined ? {} : { region },
  ),
  pipeline = '',
): Promise<QueueTargets> {
  let outputs: Output[];
  try {
    const { DescribeStacksCommand } = cloudFormationSdk();
    const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    outputs = Stacks?.[0]?.Outputs ?? [];
  } catch (error) {
    const message = (error as Error).message ?? '';
    if (/does not exist/.test(message)) {
      throw new CliError(`stack ${stackName} does not exist${region === undefined ? '' : ` in ${region}`}`);
    }
    if (/region is missing/i.test(message)) {
      throw new CliError('no AWS region configured; pass --region or set AWS_REGION');
    }
    throw explainAwsError(error, `reading the outputs of stack ${stackName}`);
  }
  const queues = queueUrlsFromOutputs(outputs, pipeline);
  const where = pipeline === '' ? `stack ${stackName}` : `pipeline ${pipeline} of stack ${stackName}`;
  if (Object.keys(queues).length === 0) {
    const expected = QUEUE_KEYS.flatMap((key) => Object.values(queueOutputNames(key, pipeline)));
    throw new CliError(
      `${where} has none of the queue outputs (${expected.join(', ')}); is it a Gridwire stack deployed with this version${pipeline === '' ? '' : ", and the pipeline's outputPrefix"}?`,
    );
  }
  return { sqs: new (sqsSdk().SQSClient)(region === undefined ? {} : { region }), queues, where };
}
