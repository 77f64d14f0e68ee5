/** Sick endpoints for the scenarios: beside healthy ones, and one that goes down and comes back. */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { PhaseTally, RecoveryPhase } from '../recovery';
import type { RecoverySinkMessage, RecoverySinkRequest } from '../recovery-sink';

/** A webhook that answers every request with `status`, counting requests. */
export async function deadWebhook(
  /** The status it answers with; `hang`: it never answers (the request times out after 30 s). */
  status: number | 'hang',
): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    if (status !== 'hang') request.on('end', () => response.writeHead(status).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dead`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A local port nothing listens on: connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Closable {
  close(): Promise<void>;
}

/**
 * Ends a scenario with a webhook that never answers: that webhook first (its requests end, so
 * the stack's invocations can), then the stack, then the other webhooks.
 */
export async function closeAfterHanging(
  hanging: Closable,
  stack: Closable | undefined,
  ...others: Closable[]
): Promise<void> {
  await hanging.close();
  await stack?.close();
  for (const other of others) await other.close();
}

/**
 * The recovery scenario's webhook (`../recovery-sink.ts`), in a process of its own: down (503)
 * or up (200), counting requests in flight, connections, rates and acknowledged events.
 */
export class RecoverySink {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /** Starts it down: every request is answered 503. */
  static async start(): Promise<RecoverySink> {
    const child = fork(join(__dirname, '..', 'recovery-sink.ts'), [], {
      execArgv: ['--import', 'tsx', '--no-warnings'],
      cwd: join(__dirname, '..', '..'),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message: RecoverySinkMessage) => {
        if (message.type === 'ready') resolve(message.port);
      });
      child.once('exit', (code) => reject(new Error(`recovery sink exited (${code})`)));
    });
    return new RecoverySink(child, `http://127.0.0.1:${port}/hook`);
  }

  /** Answers with `phase`'s status from now on, each answer held back `answerDelayMs`; counts start again. */
  switchTo(phase: RecoveryPhase, answerDelayMs: number): void {
    this.child.send({ type: 'switch', phase, answerDelayMs } satisfies RecoverySinkRequest);
  }

  take(): Promise<PhaseTally> {
    return this.ask({ type: 'take' }, 'taken').then((message) => message.tally);
  }

  /** Each acknowledged event id and how many times it was acknowledged. */
  acknowledged(): Promise<Array<[string, number]>> {
    return this.ask({ type: 'acknowledged' }, 'acknowledged').then((message) => message.counts);
  }

  private ask<K extends Exclude<RecoverySinkMessage['type'], 'ready'>>(
    request: RecoverySinkRequest,
    answer: K,
  ): Promise<Extract<RecoverySinkMessage, { type: K }>> {
    return new Promise((resolve) => {
      const onMessage = (message: RecoverySinkMessage) => {
        if (message.type !== answer) return;
        this.child.off('message', onMessage);
        resolve(message as Extract<RecoverySinkMessage, { type: K }>);
      };
      this.child.on('message', onMessage);
      this.child.send(request);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' } satisfies RecoverySinkRequest);
    await exited;
  }
}
