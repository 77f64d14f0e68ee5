/**
 * Lambda functions of the local stack, for `AwsLambdaFunction` destinations: each a module on this
 * machine exporting `handler`, registered by name (`gridwire start --lambda orders=./orders.ts`).
 * A delivery's `Invoke` runs the handler in this process with the batch, as Lambda would: an
 * asynchronous invocation (`Event`) is answered 202 at once and run after; a synchronous one
 * (`RequestResponse`) is answered with the handler's result, or a `FunctionError` when it throws.
 * A function not registered answers `ResourceNotFoundException`, as Lambda does.
 */
import { resolve } from 'node:path';
import type { InvokeCommand, InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { parseResourceArn } from '../shared/delivery/rules/resource-destinations';
import { LoadedOnce } from '../shared/platform/cache';
import type { LambdaInvoker } from '../shared/platform/resource-clients';

type Handler = (event: unknown, context: unknown) => unknown;

/** `name=path` as the command line gives it. */
export function parseLambdaArgument(
  value: string,
  previous: Record<string, string> = {},
): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1) {
    throw new Error(`--lambda ${value}: must be <function name>=<module path>`);
  }
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** The function name an `Invoke` names (a name, or a function ARN with or without a qualifier). */
const functionNameOf = (name: string): string => {
  const ref = parseResourceArn('AwsLambdaFunction', name);
  return 'problem' in ref ? name : ref.name;
};

export function localLambdaInvoker(
  functions: Readonly<Record<string, string>>,
  onError: (name: string, error: Error) => void = () => {},
): LambdaInvoker {
  const loaded = new LoadedOnce<Handler>();
  const handlerOf = (name: string): Promise<Handler> =>
    loaded.get(name, async () => {
      const path = functions[name] as string;
      const module = (await import(resolve(path))) as { handler?: unknown; default?: { handler?: unknown } };
      const found = module.handler ?? module.default?.handler;
      if (typeof found !== 'function') throw new Error(`${path} exports no handler function`);
      return found as Handler;
    });
  return {
    send: async (
      command: InvokeCommand,
    ): Promise<Pick<InvokeCommandOutput, 'StatusCode' | 'FunctionError'>> => {
      const { FunctionName, InvocationType, Payload } = command.input;
      const name = functionNameOf(FunctionName ?? '');
      if (!Object.hasOwn(functions, name)) {
        throw Object.assign(new Error(`Function not found: ${FunctionName}`), {
          name: 'ResourceNotFoundException',
        });
      }
      const text =
        typeof Payload === 'string'
          ? Payload
          : Buffer.from((Payload ?? new Uint8Array()) as Uint8Array).toString('utf8');
      const event = JSON.parse(text || 'null');
      const context = { functionName: name, invokedFunctionArn: FunctionName };
      const run = async () => (await handlerOf(name))(event, context);
      if (InvocationType !== 'RequestResponse') {
        run().catch((error: Error) => onError(name, error));
        return { StatusCode: 202 };
      }
      try {
        await run();
        return { StatusCode: 200 };
      } catch (error) {
        onError(name, error as Error);
        return { StatusCode: 200, FunctionError: 'Unhandled' };
      }
    },
  };
}
