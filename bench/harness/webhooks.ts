/** Sick endpoints for the scenarios that put them beside healthy ones. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

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
